package flaky

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/backofflab/backofflab/lab/schedule"
)

func TestServer(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fail  int64
		codes []int
	}{
		{"fails twice", 2, []int{503, 503, 200, 200}},
		{"never fails", 0, []int{200, 200}},
		{"always fails", Always, []int{503, 503, 503}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := New(tc.fail)
			defer s.Close()
			client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
			for i, want := range tc.codes {
				resp, err := client.Get(s.URL)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if resp.StatusCode != want {
					t.Errorf("request %d: status %d, want %d", i+1, resp.StatusCode, want)
				}
			}
			if n := int64(len(tc.codes)); s.Requests() != n || s.Conns() != n {
				t.Errorf("%d requests on %d connections counted, want %d of each (keep-alives off)", s.Requests(), s.Conns(), n)
			}
		})
	}
}

// Waiting exactly what Retry-After says lines the cohort up on one instant;
// jitter above the floor spreads it, and neither comes back early.
func TestRetryAfterCohort(t *testing.T) {
	if testing.Short() {
		t.Skip("two cohorts of 50 clients, over a second each")
	}
	exact, err := RetryAfterCohort(50, schedule.Constant{}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(exact.Waits) != 50 || len(exact.Arrivals) != 100 || !exact.FloorKept {
		t.Fatalf("exact: %d waits, %d arrivals, floor kept %v; want 50, 100, true", len(exact.Waits), len(exact.Arrivals), exact.FloorKept)
	}
	if slices.Min(exact.Waits) != time.Second || slices.Max(exact.Waits) != time.Second {
		t.Errorf("exact: waits from %v to %v, want 1s each", slices.Min(exact.Waits), slices.Max(exact.Waits))
	}
	jittered, err := RetryAfterCohort(50, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !jittered.FloorKept || slices.Min(jittered.Waits) < time.Second || slices.Max(jittered.Waits) == slices.Min(jittered.Waits) {
		t.Errorf("jittered: waits from %v to %v, floor kept %v; want spread above 1s", slices.Min(jittered.Waits), slices.Max(jittered.Waits), jittered.FloorKept)
	}
	again, _ := RetryAfterCohort(50, nil, 1)
	a, b := slices.Clone(jittered.Waits), slices.Clone(again.Waits)
	slices.Sort(a)
	slices.Sort(b)
	if !slices.Equal(a, b) {
		t.Errorf("same seed, different waits")
	}
}

func TestRetryAfterCohortRefuses(t *testing.T) {
	for _, n := range []int{0, MaxCohort + 1} {
		if _, err := RetryAfterCohort(n, nil, 1); err == nil || !strings.Contains(err.Error(), "clients") {
			t.Errorf("RetryAfterCohort(%d): %v, want an error naming clients", n, err)
		}
	}
	for _, seed := range []int64{-1, 1 << 31} {
		if _, err := RetryAfterCohort(1, nil, seed); err == nil || !strings.Contains(err.Error(), "seed") {
			t.Errorf("RetryAfterCohort with seed %d: %v, want an error naming the seed", seed, err)
		}
	}
}
