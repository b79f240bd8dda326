package flaky

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"time"

	"github.com/backofflab/backofflab/lab/chart"
	"github.com/backofflab/backofflab/lab/metrics"
	"github.com/backofflab/backofflab/lab/schedule"
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

// CompareCohorts runs RetryAfterCohort once for each policy of lineup
// (a nil Policy is retry.DefaultPolicy), with clients clients and the
// given seed, writes one row per cohort to w (the retries, the shortest
// and longest wait, the fullest 10 ms of planned waits, and whether every
// retry came at least a second after its client's 503) and returns a figure of the arrivals at
// the server per 10 ms, one panel per cohort on one scale.
func CompareCohorts(w io.Writer, clients int, seed uint64, lineup []schedule.Named) (chart.Stack, error) {
	const slot = 10 * time.Millisecond
	fig := chart.Stack{Title: fmt.Sprintf("Arrivals at the server per 10 ms: %d first requests, then %d retries told Retry-After: 1", clients, clients), ShareY: true}
	tw := newTable(w, "cohort\tretries\tshortest\tlongest\tfullest 10 ms\tall ≥ 1 s after their 503\t")
	for _, n := range lineup {
		c, err := RetryAfterCohort(clients, n.Policy, seed)
		if err != nil {
			return chart.Stack{}, err
		}
		planned, err := metrics.Count(c.Waits, slot)
		if err != nil {
			return chart.Stack{}, err
		}
		arrived, err := metrics.Count(c.Arrivals, slot)
		if err != nil {
			return chart.Stack{}, err
		}
		fmt.Fprintf(tw, "%s\t%d\t%v\t%v\t%d\t%v\t\n", n.Name, len(c.Waits), slices.Min(c.Waits).Round(time.Millisecond),
			slices.Max(c.Waits).Round(time.Millisecond), planned.Peak().Count, c.FloorKept)
		retries := arrived.Counts[min(int(time.Second/slot), len(arrived.Counts)):]
		fig.Panels = append(fig.Panels, chart.Histogram{
			Title:  fmt.Sprintf("%s: the retries' fullest 10 ms holds %d", n.Name, slices.Max(append(retries, 0))),
			YLabel: "requests per 10 ms",
			Slot:   arrived.Slot,
			Counts: chart.Float64s(arrived.Counts),
		})
	}
	return fig, tw.Flush()
}
