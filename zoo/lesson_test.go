package zoo

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/backofflab/backofflab/lab/figure"
)

// Told Retry-After: 2, the libraries that honour it exactly send every retry
// at 2 s; the lab's package waits at least 2 s and adds jitter; the others do
// not read the header.
func TestRetryAfter(t *testing.T) {
	results, err := RunAll(RetryAfterEntries(), Storm{Clients: 200, RetryAfter: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := WriteRetryAfter(&out, results, 2*time.Second); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"cenkalti/backoff v5 Retry defaults":         "waited exactly that",
		"go-retryablehttp defaults":                  "waited exactly that",
		"failsafehttp NewRetryPolicyBuilder()":       "waited exactly that",
		"backofflab retry Retrier defaults":          "that, plus jitter",
		"go-retryablehttp LinearJitterBackoff":       "ignored it",
		"gax-go v2 Backoff Backoff{} defaults":       "ignored it",
		"aws-sdk-go-v2 retry NewStandard() defaults": "ignored it",
	}
	for key, what := range want {
		found := false
		for line := range strings.Lines(out.String()) {
			f := strings.Fields(line)
			if strings.HasPrefix(strings.Join(f, " "), key) {
				found = true
				if !strings.Contains(line, what) {
					t.Errorf("%s: %q, want %q", key, strings.TrimSpace(line), what)
				}
			}
		}
		if !found {
			t.Errorf("no row for %s in\n%s", key, out.String())
		}
	}
}

// WriteStable prints "varies" for every figure of an unseeded entry, so that
// a notebook that prints it repeats on every run.
func TestWriteStableHidesUnseededFigures(t *testing.T) {
	e := entry(t, Entries(), "cenkalti/backoff v5", "Retry")
	var a, b bytes.Buffer
	for _, out := range []*bytes.Buffer{&a, &b} {
		r := run(t, e, Storm{Clients: 300})
		if err := WriteStable(out, []Result{r}); err != nil {
			t.Fatal(err)
		}
	}
	if a.String() != b.String() || !strings.Contains(a.String(), "varies") {
		t.Errorf("unseeded rows differ or show figures:\n%s\n%s", a.String(), b.String())
	}
}

func TestChartHasOnePanelPerResult(t *testing.T) {
	results, err := RunAll(Entries()[:3], Storm{Clients: 50})
	if err != nil {
		t.Fatal(err)
	}
	fig := Chart("test", results, 10*time.Second, 20*time.Second)
	if len(fig.Panels) != 3 {
		t.Fatalf("%d panels, want 3", len(fig.Panels))
	}
	if h := fig.Panels[0].(figure.Histogram); len(h.Counts) != 2000 {
		t.Errorf("panel covers %d slots, want the 20 s window's 2000", len(h.Counts))
	}
}

// Over loopback, go-retryablehttp's defaults choose a first wait of exactly
// 1 s for every client (client.go:49 RetryWaitMin); the lab's
// Transport gives up after its 3 attempts during a longer outage.
func TestRunHTTP(t *testing.T) {
	if testing.Short() {
		t.Skip("real sockets and about 2 s of real time")
	}
	clients := HTTPClients()
	r, err := RunHTTP(context.Background(), clients[0], 20, 500*time.Millisecond, 1)
	if err != nil {
		t.Fatal(err)
	}
	if r.Served != 20 || len(r.Retries) != 20 || len(r.FirstWaits) != 20 {
		t.Errorf("retryablehttp: served %d, %d retries, %d first waits; want 20 of each", r.Served, len(r.Retries), len(r.FirstWaits))
	}
	for _, w := range r.FirstWaits {
		if w != time.Second {
			t.Fatalf("retryablehttp chose a first wait of %v, want exactly RetryWaitMin, 1 s", w)
		}
	}
	if r.Retries[0] < time.Second {
		t.Errorf("first retry at %v, before retryablehttp's RetryWaitMin of 1 s", r.Retries[0])
	}
	at := slices.IndexFunc(clients, func(c HTTPClient) bool { return c.Name == "backofflab retry" && !c.Fix })
	r, err = RunHTTP(context.Background(), clients[at], 20, 5*time.Second, 1)
	if err != nil {
		t.Fatal(err)
	}
	if r.Served != 0 || len(r.Retries) != 40 {
		t.Errorf("retry.Transport defaults: served %d with %d retries; want 0 and 2 per client", r.Served, len(r.Retries))
	}
	if _, err := RunHTTP(context.Background(), clients[0], 0, time.Second, 1); err == nil {
		t.Error("RunHTTP with 0 clients succeeded")
	}
}

// writeCounter counts the Write calls it receives.
type writeCounter struct{ n int }

func (c *writeCounter) Write(p []byte) (int, error) { c.n++; return len(p), nil }

// A notebook reads a cell's output as it comes: each table arrives in one
// Write, not one per column, so that the saved notebook holds it whole.
func TestTablesArriveInOneWrite(t *testing.T) {
	results, err := RunAll(Entries()[:2], Storm{Clients: 20})
	if err != nil {
		t.Fatal(err)
	}
	for name, write := range map[string]func(w *writeCounter) error{
		"WriteTable":  func(w *writeCounter) error { return WriteTable(w, results) },
		"WriteStable": func(w *writeCounter) error { return WriteStable(w, results) },
		"WriteHTTP":   func(w *writeCounter) error { return WriteHTTP(w, []HTTPResult{{HTTPClient: HTTPClients()[0]}}) },
	} {
		var w writeCounter
		if err := write(&w); err != nil {
			t.Fatal(err)
		}
		if w.n != 1 {
			t.Errorf("%s: %d writes, want 1", name, w.n)
		}
	}
}

// A library marked IgnoresRetryAfter retries sooner than a server's
// Retry-After: 60 asks, every time (LinearJitterBackoff's waits are at most
// 30 s before the first retry), so the mark is what the library does, not a
// reading of one run's draws; and the marked ones are the libraries that
// WriteRetryAfter would otherwise name by their draws.
func TestIgnoresRetryAfterIsWhatTheLibraryDoes(t *testing.T) {
	var marked []Entry
	for _, e := range RetryAfterEntries() {
		if e.IgnoresRetryAfter {
			marked = append(marked, e)
		}
	}
	if len(marked) == 0 {
		t.Fatal("no entry of RetryAfterEntries is marked IgnoresRetryAfter: want go-retryablehttp's LinearJitterBackoff")
	}
	const wait = time.Minute
	results, err := RunAll(marked, Storm{Clients: 50, RetryAfter: wait})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		if len(r.Retries) == 0 {
			t.Errorf("%s %s: no retries after Retry-After: 60", r.Name, r.Settings)
			continue
		}
		if lo := slices.Min(r.Retries); lo >= wait {
			t.Errorf("%s %s: marked IgnoresRetryAfter, but its first retry came at %v, after the %v the server asked", r.Name, r.Settings, lo, wait)
		}
	}
}

// A cohort is in step when the fullest slot of retries holds half of all its
// clients, not half of those that retried: 35 retries of 1000 clients in one
// slot (a quota's few, bunched by chance) are not a cohort back in step.
func TestInStepMeasuresTheWholeCohort(t *testing.T) {
	cohort := func(clients, retried int, at func(i int) time.Duration) Result {
		rec := newRecord(Storm{Clients: clients})
		for i := range clients {
			rec.attempts[i] = []time.Duration{0}
			if i < retried {
				rec.attempts[i] = append(rec.attempts[i], at(i))
			}
		}
		r, err := summarise(Entry{}, rec) // the Retries and Peak a run would give
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	together := func(int) time.Duration { return 15 * time.Millisecond }
	apart := func(i int) time.Duration { return time.Duration(i) * Slot }
	for _, c := range []struct {
		name string
		r    Result
		want bool
	}{
		{"35 of 1000 retry, all in one slot", cohort(1000, 35, together), false},
		{"all 1000 retry in one slot", cohort(1000, 1000, together), true},
		{"exactly half in one slot", cohort(1000, 500, together), true},
		{"499 of 1000 in one slot", cohort(1000, 499, together), false},
		{"all retry, one a slot", cohort(1000, 1000, apart), false},
		{"nobody retries", cohort(1000, 0, together), false},
	} {
		if got := c.r.InStep(); got != c.want {
			t.Errorf("%s: peak %d: InStep() = %v, want %v", c.name, c.r.Peak, got, c.want)
		}
	}
}
