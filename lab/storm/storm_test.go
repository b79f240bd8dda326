package storm_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/backofflab/backofflab/lab/schedule"
	"github.com/backofflab/backofflab/lab/storm"
	"github.com/backofflab/backofflab/retry/breaker"
)

// A small storm under each policy, in virtual time (testing/synctest, on an in-memory
// network): every wait lasts exactly what the policy drew and a request takes no time, so the
// run's times are exact and the machine's load cannot move them. Every client recovers, the
// server saw each client's first request plus its retries, and exponential backoff without
// jitter retries in waves that full jitter flattens.
func TestStormShapes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const clients = 60
		runs := map[string]storm.Result{}
		for _, p := range storm.Policies() {
			outage := 300 * time.Millisecond
			if p == storm.RetryDefaults {
				// Short enough that no client fails five times in a row, which would open its
				// breaker for 5 to 7.5 s.
				outage = 60 * time.Millisecond
			}
			began := time.Now()
			c := storm.Lesson().WithPolicy(p).WithClients(clients).WithOutage(outage).WithBase(50 * time.Millisecond).WithSeed(1)
			res, err := storm.Run(storm.InMemory(context.Background()), c)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Recovered || res.Succeeded != clients || res.GaveUp != 0 {
				t.Fatalf("%s: %d succeeded, %d gave up, want all %d to recover", p, res.Succeeded, res.GaveUp, clients)
			}
			// Every client's first request arrives at 0, inside the outage, and fails.
			if len(res.Arrivals) != clients+len(res.Retries) || len(res.Retries) < clients {
				t.Fatalf("%s: %d arrivals, %d retries for %d clients", p, len(res.Arrivals), len(res.Retries), clients)
			}
			if first := res.Arrivals[:clients]; slices.Max(first) != 0 {
				t.Fatalf("%s: the first %d arrivals are at %v, want all at 0", p, clients, first)
			}
			if res.RecoveredAt < outage || res.Done != res.RecoveredAt {
				t.Fatalf("%s: recovered at %v, done at %v; want recovery after the %v outage, and done then", p, res.RecoveredAt, res.Done, outage)
			}
			// The run took the storm's time and not a moment more: no warm-up, no network time.
			if took := time.Since(began); took != res.Done {
				t.Errorf("%s: the run took %v of virtual time, its last client was done at %v", p, took, res.Done)
			}
			if h := res.Histogram(); h.Total() != len(res.Arrivals) || h.Slot != 10*time.Millisecond {
				t.Fatalf("%s: histogram of %d at %v", p, h.Total(), h.Slot)
			}
			runs[p] = res
		}
		for p, r := range runs {
			t.Logf("%-14s requests %4d  retry peak %-28v cv %.2f  recovered at %v", p, len(r.Arrivals), r.Peak, r.CV, r.RecoveredAt)
		}
		exp, full := runs[schedule.NameExponential], runs[schedule.NameFull]
		// Without jitter the whole cohort retries together at 50, 150 and 350 ms, and the last
		// wave, after the 300 ms outage, succeeds.
		waves := map[time.Duration]int{}
		for _, at := range exp.Retries {
			waves[at]++
		}
		if len(waves) != 3 || waves[50*time.Millisecond] != clients || waves[150*time.Millisecond] != clients || waves[350*time.Millisecond] != clients {
			t.Errorf("exponential: retries at %v (time: count), want all %d clients at 50ms, 150ms and 350ms", waves, clients)
		}
		if exp.RecoveredAt != 350*time.Millisecond || exp.Peak.Count != clients {
			t.Errorf("exponential: recovered at %v with a retry peak of %d in 10 ms, want 350ms and the whole cohort (%d)", exp.RecoveredAt, exp.Peak.Count, clients)
		}
		// Full jitter spreads the same cohort: its fullest 10 ms holds under half of it.
		if full.Peak.Count*2 >= clients {
			t.Errorf("full jitter: retry peak %d in 10 ms of %d clients, want under half", full.Peak.Count, clients)
		}
		// Waves make the gaps between retries bursty: long quiet gaps between zero ones.
		if exp.CV <= full.CV || exp.CV < 2 {
			t.Errorf("inter-retry CV: exponential %.2f, full jitter %.2f; want exponential's well above 1 and above full's", exp.CV, full.CV)
		}
		// The same Config twice: the same run, to the nanosecond.
		again, err := storm.Run(storm.InMemory(context.Background()), full.Config)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(again.Arrivals, full.Arrivals) || again.RecoveredAt != full.RecoveredAt {
			t.Errorf("full jitter run twice: %d arrivals recovered at %v, then %d at %v", len(full.Arrivals), full.RecoveredAt, len(again.Arrivals), again.RecoveredAt)
		}
	})
}

// Over real sockets, as the lessons run: a small storm in which every client recovers, and
// the server's count of requests agrees with the clients'. (Times here are the machine's: only
// what no load can change is checked; the shapes are checked in virtual time above.)
func TestStormOverLoopback(t *testing.T) {
	const clients = 20
	outage := 100 * time.Millisecond
	c := storm.Lesson().WithPolicy(schedule.NameFull).WithClients(clients).WithOutage(outage).WithBase(20 * time.Millisecond).WithSeed(1)
	res, err := storm.Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Recovered || res.Succeeded != clients || res.GaveUp != 0 {
		t.Fatalf("%d succeeded, %d gave up, want all %d to recover", res.Succeeded, res.GaveUp, clients)
	}
	if len(res.Arrivals) != clients+len(res.Retries) || res.Histogram().Total() != len(res.Arrivals) {
		t.Fatalf("%d arrivals, %d retries for %d clients, histogram of %d", len(res.Arrivals), len(res.Retries), clients, res.Histogram().Total())
	}
	// No client can have its answer before the server gives answers.
	if res.RecoveredAt < outage {
		t.Fatalf("recovered at %v, before the %v outage ended", res.RecoveredAt, outage)
	}
}

func TestConfigValidation(t *testing.T) {
	l := storm.Lesson()
	for _, tc := range []struct {
		name string
		cfg  storm.Config
		want string
	}{
		{"the zero Config", storm.Config{}, `storm: unknown policy ""`},
		{"unknown policy", l.WithPolicy("linear"), `storm: unknown policy "linear": want one of exponential, full, equal, decorrelated, uniform, constant, immediate, retry-defaults`},
		{"first edition's defaults", l.WithPolicy("defaults"), `storm: unknown policy "defaults"`},
		{"no clients", l.WithClients(0), "storm: clients 0 out of range: want 1 <= clients <= 5000"},
		{"negative clients", l.WithClients(-1), "storm: clients -1 out of range: want 1 <= clients <= 5000"},
		{"no outage", l.WithOutage(0), "storm: outage 0s out of range"},
		{"long outage", l.WithOutage(2 * time.Minute), "storm: outage 2m0s out of range"},
		{"no attempts", l.WithAttempts(0), "storm: attempts 0 out of range"},
		{"many attempts", l.WithAttempts(1001), "storm: attempts 1001 out of range"},
		{"negative deadline", l.WithDeadline(-time.Second), "storm: deadline -1s out of range"},
		{"no slot", func() storm.Config { c := l; c.Slot = 0; return c }(), "storm: slot 0s out of range"},
		{"wide slot", func() storm.Config { c := l; c.Slot = 2 * time.Second; return c }(), "storm: slot 2s out of range"},
		{"negative seed", l.WithSeed(-1), "storm: seed -1 out of range: want 0 <= seed < 2^31"},
		{"no base", l.WithBase(0), "storm: schedule: "},
		{"cap below base", l.WithBase(time.Second).WithCap(time.Millisecond), "storm: schedule: cap 1ms below base 1s"},
		{"cap below base, equal jitter", l.WithPolicy(schedule.NameEqual).WithBase(time.Second).WithCap(time.Millisecond), "storm: schedule: cap 1ms below base 1s"},
		{"bad backoff", l.WithBackoff(schedule.FullJitter{Base: time.Second, Cap: time.Millisecond}), "storm: backoff: cap 1ms below base 1s"},
		{"bad breaker failures", l.WithBreaker(breaker.Config{Failures: -1}), "storm: breaker: failures -1 out of range"},
		{"bad breaker open time", l.WithBreaker(breaker.Config{OpenTimeout: time.Second, MaxOpenTimeout: time.Millisecond}), "storm: breaker: max open timeout 1ms out of range"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := storm.Run(context.Background(), tc.cfg)
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("Run(%+v) = %v, want prefix %q", tc.cfg, err, tc.want)
			}
		})
	}
}

// Backoff and Breaker tune RetryDefaults. A breaker that opens after
// two failures for 100 ms brings every client back within a probe or two of
// the end of a 250 ms outage, where the default breaker (five failures, 5 s
// open) would keep them away for seconds. In virtual time (testing/synctest).
func TestDefaultsTuned(t *testing.T) {
	synctest.Test(t, testDefaultsTuned)
}

func testDefaultsTuned(t *testing.T) {
	const clients = 20
	outage := 250 * time.Millisecond
	c := storm.Lesson().WithClients(clients).WithOutage(outage).WithSeed(1).
		WithBackoff(schedule.Constant{Base: 10 * time.Millisecond}).
		WithBreaker(breaker.Config{Failures: 2, OpenTimeout: 100 * time.Millisecond})
	res, err := storm.Run(storm.InMemory(context.Background()), c)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Recovered || res.Succeeded != clients {
		t.Fatalf("%d of %d clients recovered", res.Succeeded, clients)
	}
	if res.RecoveredAt < outage || res.RecoveredAt > time.Second {
		t.Fatalf("recovered at %v, want between the end of the outage (%v) and 1s", res.RecoveredAt, outage)
	}
	// Two failures open the breaker; while it is open nothing reaches the
	// server, so each client sends at most one probe per 100 ms opening
	// during the outage, then its successful request.
	if max := clients * (2 + int(outage/(100*time.Millisecond)) + 1); len(res.Arrivals) > max || len(res.Arrivals) < 3*clients {
		t.Fatalf("%d requests from %d clients, want between %d and %d", len(res.Arrivals), clients, 3*clients, max)
	}
}

// Validate never panics, and whatever it rejects it rejects with a message
// that starts with the package name.
func FuzzValidate(f *testing.F) {
	f.Add(0, int64(0), 0, int64(0), int64(0), 0, 0, int64(0), int64(0))
	f.Add(200, int64(3*time.Second), 20, int64(15*time.Second), int64(10*time.Millisecond), 0, 5, int64(time.Second), int64(1250*time.Millisecond))
	f.Add(-1, int64(-1), -1, int64(-1), int64(-1), -1, -1, int64(-1), int64(-1))
	f.Fuzz(func(t *testing.T, clients int, outage int64, attempts int, deadline, slot int64, capacity, failures int, open, maxOpen int64) {
		c := storm.Lesson().WithClients(clients).WithOutage(time.Duration(outage)).WithAttempts(attempts).
			WithDeadline(time.Duration(deadline)).WithCapacity(capacity).
			WithBreaker(breaker.Config{Failures: failures, OpenTimeout: time.Duration(open), MaxOpenTimeout: time.Duration(maxOpen)})
		c.Slot = time.Duration(slot)
		err := c.Validate()
		if err != nil && !strings.HasPrefix(err.Error(), "storm: ") {
			t.Fatalf("error without the package name: %v", err)
		}
	})
}
