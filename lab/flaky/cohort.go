package flaky

import (
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"time"

	"github.com/backofflab/backofflab/lab"
	"github.com/backofflab/backofflab/lab/lcg"
	"github.com/backofflab/backofflab/retry"
)

// Cohort is what RetryAfterCohort measured.
type Cohort struct {
	// Waits are the waits the clients chose before their retries, as the
	// retry package's observer reported them, in the order reported.
	Waits []time.Duration
	// Arrivals are when the requests reached the server, first requests
	// and retries, measured from the moment the clients were started.
	Arrivals []time.Duration
	// FloorKept reports whether every client retried exactly once and at
	// least a second after its own 503.
	FloorKept bool
}

// MaxCohort is the largest cohort RetryAfterCohort runs.
const MaxCohort = 2000

// RetryAfterCohort sends one GET from each of clients clients at once, to a
// server that answers each client's first request with 503 and
// "Retry-After: 1", and its second with 200. Each client has a retry
// Transport of its own, with policy as the wait above the server's floor
// (nil: retry.DefaultPolicy) and a generator seeded with seed and the
// client's number, and a connection pool of its own, as a separate process
// would. clients must be in [1, MaxCohort] and seed, as every model's, in
// [0, 2³¹).
func RetryAfterCohort(clients int, policy retry.Policy, seed int64) (Cohort, error) {
	if clients < 1 || clients > MaxCohort {
		return Cohort{}, fmt.Errorf("flaky: clients %d out of range: want 1 <= clients <= %d", clients, MaxCohort)
	}
	if seed < 0 || seed >= lcg.Modulus {
		return Cohort{}, fmt.Errorf("flaky: seed %d out of range: want 0 <= seed < 2^31", seed)
	}
	var (
		mu     sync.Mutex
		start  time.Time
		c      = Cohort{FloorKept: true}
		failed = map[string]time.Time{}
	)
	lab.NoteInMemoryNetwork()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, now := r.Header.Get("X-Client"), time.Now()
		mu.Lock()
		defer mu.Unlock()
		c.Arrivals = append(c.Arrivals, now.Sub(start))
		if t, ok := failed[id]; ok {
			c.FloorKept = c.FloorKept && now.Sub(t) >= time.Second
			io.WriteString(w, "ok")
			return
		}
		failed[id] = now
		w.Header().Set("Retry-After", "1")
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	observe := func(e retry.Event) {
		if e.Kind == retry.EventRetry {
			mu.Lock()
			c.Waits = append(c.Waits, e.Wait)
			mu.Unlock()
		}
	}
	hc := make([]*http.Client, clients)
	for i := range hc {
		t, err := retry.NewTransport(retry.TransportConfig{
			Config: retry.Config{Policy: policy, Rand: rand.New(rand.NewPCG(uint64(seed), uint64(i))), Observer: observe},
			Base:   &http.Transport{},
		})
		if err != nil {
			return Cohort{}, err
		}
		hc[i] = &http.Client{Transport: t}
	}
	var (
		wg   sync.WaitGroup
		errs = make([]error, clients)
	)
	mu.Lock()
	start = time.Now()
	mu.Unlock()
	for i, client := range hc {
		wg.Go(func() {
			req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
			req.Header.Set("X-Client", strconv.Itoa(i))
			resp, err := client.Do(req)
			if err != nil {
				errs[i] = err
				return
			}
			resp.Body.Close()
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return Cohort{}, fmt.Errorf("flaky: client %d: %w", i, err)
		}
	}
	for _, t := range hc {
		t.CloseIdleConnections()
	}
	c.FloorKept = c.FloorKept && len(c.Waits) == clients
	return c, nil
}
