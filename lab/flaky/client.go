package flaky

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"time"

	"github.com/backofflab/backofflab/lab/figure"
	"github.com/backofflab/backofflab/lab/metrics"
	"github.com/backofflab/backofflab/lab/schedule"
	"github.com/backofflab/backofflab/lab/table"
	"github.com/backofflab/backofflab/retry"
)

// Get sends a GET for url with ctx through client and returns nil if the
// answer is 200 OK, or an error naming the status: an operation for
// retry.Retrier.Do against a dependency that answers over HTTP.
func Get(ctx context.Context, client *http.Client, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("status %d", resp.StatusCode)
	}
	return nil
}

// Outcome describes what an http.Client call returned, and closes the
// response's body: the status, such as "503 Service Unavailable", or for a
// call the retry package stopped, "refused: " and the package's own error.
// That error leaves out the URL, which holds a test server's random port,
// so Outcome prints the same on every run. Any other error is returned as
// it is.
func Outcome(resp *http.Response, err error) string {
	var re *retry.Error
	switch {
	case errors.As(err, &re):
		return "refused: " + re.Error()
	case err != nil:
		return err.Error()
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.Status
}

// Comparison is one RetryAfterCohort per policy of a lineup, in order.
type Comparison struct {
	// Clients is the size of each cohort.
	Clients int
	// Names are the lineup's names and Cohorts their cohorts.
	Names   []string
	Cohorts []Cohort
}

// CompareCohorts runs RetryAfterCohort once for each policy of lineup (a
// nil Policy is retry.DefaultPolicy), with clients clients and the given
// seed.
func CompareCohorts(clients int, seed int64, lineup []schedule.Named) (Comparison, error) {
	cmp := Comparison{Clients: clients}
	for _, n := range lineup {
		c, err := RetryAfterCohort(clients, n.Policy, seed)
		if err != nil {
			return Comparison{}, err
		}
		cmp.Names = append(cmp.Names, n.Name)
		cmp.Cohorts = append(cmp.Cohorts, c)
	}
	return cmp, nil
}

// compareSlot is the slot the comparison counts waits and arrivals in.
const compareSlot = 10 * time.Millisecond

// Table returns one row per cohort: the retries, the shortest and longest
// wait, the fullest 10 ms of planned waits, and whether every retry came at
// least a second after its client's 503.
func (cmp Comparison) Table() (table.Table, error) {
	t := table.New("cohort", "retries", "shortest", "longest", "fullest 10 ms", "all ≥ 1 s after their 503")
	for i, c := range cmp.Cohorts {
		if len(c.Waits) == 0 {
			return table.Table{}, fmt.Errorf("flaky: cohort %q made no retries", cmp.Names[i])
		}
		planned, err := metrics.Count(c.Waits, compareSlot)
		if err != nil {
			return table.Table{}, err
		}
		t.Add(cmp.Names[i], len(c.Waits), slices.Min(c.Waits).Round(time.Millisecond), slices.Max(c.Waits).Round(time.Millisecond),
			planned.Peak().Count, table.Num("%v", c.FloorKept))
	}
	return t, nil
}

// Figure returns the arrivals at the server per 10 ms, one panel per
// cohort on one scale, each titled with its retries' fullest 10 ms.
func (cmp Comparison) Figure() (figure.Stack, error) {
	fig := figure.Stack{Title: fmt.Sprintf("Arrivals at the server per 10 ms: %d first requests, then %d retries told Retry-After: 1", cmp.Clients, cmp.Clients)}
	for i, c := range cmp.Cohorts {
		arrived, err := metrics.Count(c.Arrivals, compareSlot)
		if err != nil {
			return figure.Stack{}, err
		}
		retries := arrived.Counts[min(int(time.Second/compareSlot), len(arrived.Counts)):]
		fig.Panels = append(fig.Panels, figure.Histogram{
			Title:  fmt.Sprintf("%s: the retries' fullest 10 ms holds %d", cmp.Names[i], slices.Max(append(retries, 0))),
			YLabel: "requests per 10 ms",
			Slot:   arrived.Slot,
			Counts: figure.Float64s(arrived.Counts),
		})
	}
	return fig, nil
}

// RoundedLeft returns err's text with the time left that it reports ("> 1s
// left") rounded up to the half second: that time is read from the clock,
// so it moves by a few milliseconds between runs.
func RoundedLeft(err error) string {
	if err == nil {
		return "<nil>"
	}
	left, half := regexp.MustCompile(`> (\S+) left`), 500*time.Millisecond
	return left.ReplaceAllStringFunc(err.Error(), func(m string) string {
		d, perr := time.ParseDuration(left.FindStringSubmatch(m)[1])
		if perr != nil {
			return m
		}
		return fmt.Sprintf("> %v left", (d+half-1)/half*half)
	})
}

// RetryAfterTable returns how package retry reads each Retry-After value
// at the time now: the wait it requires, or why it ignores the value.
func RetryAfterTable(now time.Time, values ...string) table.Table {
	t := table.New("Retry-After", "the client")
	for _, v := range values {
		if d, err := retry.ParseRetryAfter(v, now); err != nil {
			t.Add(fmt.Sprintf("%q", v), "ignored: "+err.Error())
		} else {
			t.Add(fmt.Sprintf("%q", v), fmt.Sprintf("wait at least %v", d))
		}
	}
	return t
}

// StatsTable returns a retry.Counters snapshot as one line: the attempts,
// retries, refusals by the budget and the breaker, give-ups and breaker
// changes.
func StatsTable(st retry.Stats) table.Table {
	t := table.New("attempts", "retries", "budget refusals", "breaker refusals", "give-ups", "breaker changes")
	t.Add(st.Attempts, st.Retries, st.BudgetRefusals, st.BreakerRefusals, st.GiveUps, st.BreakerChanges)
	return t
}
