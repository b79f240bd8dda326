package zoo

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// entry finds the entry whose name and settings start as given.
func entry(t *testing.T, entries []Entry, name, settings string) Entry {
	t.Helper()
	for _, e := range entries {
		if e.Name == name && strings.HasPrefix(e.Settings, settings) {
			return e
		}
	}
	t.Fatalf("no entry %q with settings %q...", name, settings)
	return Entry{}
}

func run(t *testing.T, e Entry, s Storm) Result {
	t.Helper()
	r, err := Run(e, s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func ms(xs ...int) []time.Duration {
	out := make([]time.Duration, len(xs))
	for i, x := range xs {
		out[i] = time.Duration(x) * time.Millisecond
	}
	return out
}

// Every client of a library with exact waits sends at the same instants, and
// those instants follow from the library's source at the pinned version.
func TestExactDefaultsMatchTheLibrarySource(t *testing.T) {
	for _, c := range []struct {
		name, settings string
		want           []time.Duration // every client's requests
		gaveUp         int
		why            string
	}{
		{"go-retryablehttp", "defaults", ms(0, 1000, 3000, 7000, 15000), 0,
			"client.go:49-51 RetryWaitMin 1 s, RetryMax 4; client.go:560 DefaultBackoff waits min·2^attemptNum, attemptNum from 0"},
		{"eapache/go-resiliency retrier", "README", ms(0, 100, 200, 300), 1000,
			"backoffs.go:6 ConstantBackoff(3, 100 ms) is three waits of 100 ms; no jitter unless SetJitter"},
		{"sethvargo/go-retry", "README", ms(0, 1000, 3000, 6000, 11000), 0,
			"backoff_fibonacci.go: waits 1, 2, 3, 5 s; WithMaxRetries(4) stops after four retries"},
		{"failsafe-go retrypolicy", "NewWithDefaults", ms(0, 0, 0), 1000,
			"retrypolicy/retry.go:14 defaultMaxRetries = 2; NewBuilder sets no delay"},
		{"failsafe-go retrypolicy", "WithBackoff(1 s, 30 s)", ms(0, 1000, 3000, 7000, 15000), 0,
			"WithBackoff doubles from 1 s with no jitter"},
		{"sony/gobreaker v2", "Settings{}", ms(0, 1000, 2000, 3000, 4000, 5000, 66000), 0,
			"gobreaker.go:178 trips when ConsecutiveFailures > 5 (6th failure at 5 s); gobreaker.go:175 stays open 60 s; " +
				"at 65 s expiry is not yet Before(now), so the 1 s caller's probe goes at 66 s"},
	} {
		t.Run(c.name+"/"+c.settings, func(t *testing.T) {
			r := run(t, entry(t, Entries(), c.name, c.settings), Storm{Clients: 50})
			for i, a := range r.Attempts {
				if !slices.Equal(a, c.want) {
					t.Fatalf("client %d sent at %v, want %v (%s)", i, a, c.want, c.why)
				}
			}
			if r.GaveUp != c.gaveUp*50/1000 {
				t.Errorf("%d of 50 gave up, want %d", r.GaveUp, c.gaveUp*50/1000)
			}
			if r.Peak != 50*min(len(c.want)-1, countAt(c.want[1:], c.want[1])) {
				t.Errorf("peak %d, want every client in one slot", r.Peak)
			}
		})
	}
}

func countAt(xs []time.Duration, x time.Duration) int {
	n := 0
	for _, v := range xs {
		if v == x {
			n++
		}
	}
	return n
}

// Jittered libraries: each client's first wait lies in the window the
// library's source gives, and the cohort is spread, not in one slot.
func TestFirstWaitWindows(t *testing.T) {
	for _, c := range []struct {
		name, settings string
		lo, hi         time.Duration
		why            string
		inStep         bool // the window is narrower than a slot
	}{
		{"cenkalti/backoff v5", "Retry", 250 * time.Millisecond, 750 * time.Millisecond, "exponential.go:58-59 500 ms ± 50 %", false},
		{"cenkalti/backoff v4", "NewExponentialBackOff", 250 * time.Millisecond, 750 * time.Millisecond, "exponential.go 500 ms ± 50 %", false},
		{"gax-go v2 Backoff", "Backoff{}", 0, time.Second, "call_option.go:185 Pause draws from [0, Initial = 1 s)", false},
		{"avast/retry-go v4", "Do defaults", 100 * time.Millisecond, 200 * time.Millisecond, "options.go BackOffDelay 100 ms + RandomDelay [0, 100 ms)", false},
		{"k8s wait DefaultRetry", "retry.DefaultRetry", 10 * time.Millisecond, 11 * time.Millisecond, "util/retry/util.go:28 10 ms, Jitter 0.1", true},
		{"backofflab retry", "Retrier defaults", 0, 100 * time.Millisecond, "retry.DefaultPolicy full jitter, base 100 ms", false},
		{"grpc-go retry policy", "service config", 80 * time.Millisecond, 120 * time.Millisecond, "stream.go:884-887 initialBackoff × (0.8 + 0.4·rand)", false},
		{"aws-sdk-go-v2 retry", "NewStandard() defaults", 0, 100 * time.Millisecond, "standard.go BaseDelay 50 ms, jitter_backoff.go", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := run(t, entry(t, Entries(), c.name, c.settings), Storm{Clients: 200})
			firsts := 0
			for i, a := range r.Attempts {
				if len(a) < 2 {
					continue
				}
				firsts++
				if w := a[1]; w < c.lo || w > c.hi {
					t.Fatalf("client %d's first retry at %v, outside [%v, %v] (%s)", i, w, c.lo, c.hi, c.why)
				}
			}
			if firsts == 0 {
				t.Fatal("no client retried")
			}
			if r.InStep() != c.inStep {
				t.Errorf("peak %d of %d clients (%d retried): in step %v, want %v", r.Peak, len(r.Attempts), firsts, r.InStep(), c.inStep)
			}
		})
	}
}

// gRPC's connection backoff does not jitter the first redial
// (internal/backoff/backoff.go:57-58 returns BaseDelay, 1 s, when retries is
// 0), so every channel of the cohort redials at exactly 1 s; later redials
// are jittered ±20 %.
func TestGRPCFirstRedialIsExact(t *testing.T) {
	r := run(t, entry(t, Entries(), "grpc-go connection backoff", ""), Storm{Clients: 200})
	for i, a := range r.Attempts {
		if len(a) < 3 || a[1] != time.Second {
			t.Fatalf("client %d dialled at %v, want its first redial at exactly 1 s", i, a)
		}
	}
	if r.Peak != 200 || r.GaveUp != 0 {
		t.Errorf("peak %d, gave up %d; want all 200 redials in one slot and none giving up", r.Peak, r.GaveUp)
	}
	// The retry policy gives up after maxAttempts (4) during a 10 s outage.
	r = run(t, entry(t, Entries(), "grpc-go retry policy", ""), Storm{Clients: 200})
	for i, a := range r.Attempts {
		if len(a) != 4 {
			t.Fatalf("client %d sent %d requests, want maxAttempts = 4", i, len(a))
		}
	}
}

// The AWS retryer's shared quota: 500 tokens at 14 per retry allow 35 retries
// for the whole cohort (standard.go:60 defaultRetryCost = 14, :36 500
// tokens); throttling errors cost 5 (100 retries) and wait from a 1 s base.
func TestAWSQuotaIsShared(t *testing.T) {
	for _, c := range []struct {
		settings string
		retries  int
	}{{"NewStandard() defaults", 35}, {"defaults, throttling", 100}} {
		r := run(t, entry(t, Entries(), "aws-sdk-go-v2 retry", c.settings), Storm{})
		if len(r.Retries) != c.retries || r.GaveUp != 1000 {
			t.Errorf("%s: %d retries, %d gave up; want %d retries and all 1000 giving up", c.settings, len(r.Retries), r.GaveUp, c.retries)
		}
	}
}

// The workqueue's shared token bucket (10 per second, burst 100) lets the
// first 100 items back after 5 ms and queues the rest 100 ms apart.
func TestWorkqueueBucket(t *testing.T) {
	r := run(t, entry(t, Entries(), "client-go workqueue", ""), Storm{})
	at5ms := countAt(r.Retries, 5*time.Millisecond)
	if at5ms != 100 {
		t.Errorf("%d retries at 5 ms, want the bucket's burst of 100", at5ms)
	}
	if r.Peak != 100 || r.GaveUp != 0 {
		t.Errorf("peak %d, gave up %d; want 100 and 0", r.Peak, r.GaveUp)
	}
}

// A seeded entry repeats exactly; this is what makes cmd/zoo --json
// deterministic for them.
func TestSeededEntriesRepeat(t *testing.T) {
	for _, e := range append(Entries(), Fixes()...) {
		if !e.Seeded {
			continue
		}
		a, b := run(t, e, Storm{Clients: 100}), run(t, e, Storm{Clients: 100})
		for i := range a.Attempts {
			if !slices.Equal(a.Attempts[i], b.Attempts[i]) {
				t.Errorf("%s (%s): client %d sent at %v, then at %v", e.Name, e.Settings, i, a.Attempts[i], b.Attempts[i])
				break
			}
		}
	}
}

// Libraries that seed from the clock are run on the real clock; inside the
// bubble every client would draw the same waits.
func TestClockSeededLibrariesDoNotCollapse(t *testing.T) {
	r := run(t, entry(t, Entries(), "go-retryablehttp", "LinearJitterBackoff"), Storm{Clients: 200})
	if r.Peak > 20 {
		t.Errorf("LinearJitterBackoff: peak %d of 200 in one slot: the clock seed collapsed", r.Peak)
	}
}

func TestEveryEntryHasAVersionAndRuns(t *testing.T) {
	for _, e := range append(Entries(), Fixes()...) {
		r := run(t, e, Storm{Clients: 20})
		if r.Version == "unknown" || r.Version == "" {
			t.Errorf("%s: version %q", e.Name, r.Version)
		}
		if r.Served+r.GaveUp != 20 {
			t.Errorf("%s (%s): served %d + gave up %d != 20", e.Name, e.Settings, r.Served, r.GaveUp)
		}
	}
}

func TestStormRejectsBadInput(t *testing.T) {
	e := Entries()[0]
	for _, s := range []Storm{
		{Clients: -1}, {Clients: MaxClients + 1}, {Outage: -time.Second}, {Outage: MaxOutage + 1},
		{RetryAfter: 1500 * time.Millisecond}, {RetryAfter: -time.Second},
	} {
		if _, err := Run(e, s); err == nil || !strings.Contains(err.Error(), "Storm.") {
			t.Errorf("Run(%+v) = %v, want an error naming the field", s, err)
		}
	}
	if _, err := Run(Entry{Name: "empty"}, Storm{}); err == nil {
		t.Error("an entry with nothing to run ran")
	}
}
