package retry_test

import (
	"context"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/backofflab/backofflab/retry"
)

// The old names keep working for one release.
func TestDeprecatedNamesStillWork(t *testing.T) {
	if retry.MaxMaxAttempts != retry.MaxAttemptsLimit || retry.MaxMaxHosts != retry.MaxHostsLimit {
		t.Fatalf("MaxMaxAttempts %d, MaxMaxHosts %d: want MaxAttemptsLimit %d and MaxHostsLimit %d",
			retry.MaxMaxAttempts, retry.MaxMaxHosts, retry.MaxAttemptsLimit, retry.MaxHostsLimit)
	}
	if retry.After(nil, time.Second) != nil {
		t.Fatal("After(nil, d) is not nil")
	}
	var waits []time.Duration
	cfg := fast()
	cfg.Observer = func(e retry.Event) {
		if e.Kind == retry.EventRetry {
			waits = append(waits, e.Wait)
		}
	}
	calls := 0
	err := mustNew(t, cfg).Do(context.Background(), func(context.Context) error {
		if calls++; calls == 1 {
			return retry.After(errFlaky, 20*time.Millisecond)
		}
		return nil
	})
	if err != nil || len(waits) != 1 || waits[0] != 21*time.Millisecond {
		t.Fatalf("Do = %v with waits %v, want success after one wait of 20ms + the constant 1ms", err, waits)
	}
	if !slices.Equal(retry.DefaultRetryStatus, retry.DefaultRetryStatuses()) {
		t.Fatalf("DefaultRetryStatus %v, DefaultRetryStatuses() %v: want the same", retry.DefaultRetryStatus, retry.DefaultRetryStatuses())
	}
}

// DefaultRetryStatuses hands out copies: changing one changes no
// Transport's defaults.
func TestDefaultRetryStatusesIsACopy(t *testing.T) {
	s := retry.DefaultRetryStatuses()
	want := []int{http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout}
	if !slices.Equal(s, want) {
		t.Fatalf("DefaultRetryStatuses() = %v, want %v", s, want)
	}
	s[0] = http.StatusInternalServerError
	if got := retry.DefaultRetryStatuses(); !slices.Equal(got, want) {
		t.Fatalf("after changing a copy, DefaultRetryStatuses() = %v, want %v", got, want)
	}
	if n := attemptsOn500(t); n != 1 {
		t.Fatalf("%d attempts on a 500, want 1: changing a copy changed the default", n)
	}
}

// attemptsOn500 returns how many attempts a Transport made with the
// default statuses makes against a dependency that answers 500.
func attemptsOn500(t *testing.T) int {
	t.Helper()
	var n int
	rt, err := retry.NewTransport(retry.TransportConfig{Base: countStatus(&n, http.StatusInternalServerError), Config: fast()})
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodGet, "http://example.com/", nil)
	resp, err := rt.RoundTrip(req)
	if err != nil || resp.StatusCode != 500 {
		t.Fatalf("RoundTrip = %v, %v: want the 500", resp, err)
	}
	resp.Body.Close()
	return n
}

// A program that changed the deprecated DefaultRetryStatus before making
// its Transports keeps the behaviour it had.
func TestDeprecatedDefaultRetryStatusIsStillRead(t *testing.T) {
	old := retry.DefaultRetryStatus
	t.Cleanup(func() { retry.DefaultRetryStatus = old })
	retry.DefaultRetryStatus = append(slices.Clone(old), http.StatusInternalServerError)
	if n := attemptsOn500(t); n != 3 {
		t.Fatalf("%d attempts on a 500, want 3: DefaultRetryStatus lists it", n)
	}
}
