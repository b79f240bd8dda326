package storm_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/backofflab/backofflab/lab/schedule"
	"github.com/backofflab/backofflab/lab/storm"
	"github.com/backofflab/backofflab/retry/breaker"
)

// A small storm under each policy: every client recovers, the server saw
// each client's first request plus its retries, and exponential backoff
// without jitter retries in waves that full jitter flattens.
func TestStormShapes(t *testing.T) {
	const clients = 60
	runs := map[string]storm.Result{}
	for _, p := range storm.Lineup() {
		outage := 300 * time.Millisecond
		if p == storm.RetryDefaults {
			// Short enough that no client fails five times in a row, which
			// would open its breaker for 5 to 7.5 s and slow the test down.
			outage = 60 * time.Millisecond
		}
		res, err := storm.Run(context.Background(), storm.Config{
			Policy: p, Clients: clients, Outage: outage, Base: 50 * time.Millisecond, Seed: 1,
		})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Recovered || res.Succeeded != clients || res.GaveUp != 0 {
			t.Fatalf("%s: %d succeeded, %d gave up, want all %d to recover", p, res.Succeeded, res.GaveUp, clients)
		}
		// Every client's first request arrives (a loaded machine may land
		// some after a short outage, so those need no retry at all).
		if len(res.Arrivals) != clients+len(res.Retries) || len(res.Retries) == 0 {
			t.Fatalf("%s: %d arrivals, %d retries for %d clients", p, len(res.Arrivals), len(res.Retries), clients)
		}
		if res.RecoveredAt < outage {
			t.Fatalf("%s: recovered at %v, before the outage ended", p, res.RecoveredAt)
		}
		if h := res.Histogram(); h.Total() != len(res.Arrivals) || h.Slot != 10*time.Millisecond {
			t.Fatalf("%s: histogram of %d at %v", p, h.Total(), h.Slot)
		}
		runs[p] = res
	}
	exp, full := runs[schedule.NameExponential], runs[schedule.NameFull]
	// Without jitter the whole cohort retries at 50, 150 and 350 ms.
	if n := len(exp.Retries); n != 3*clients {
		t.Fatalf("exponential: %d retries, want 3 per client", n)
	}
	for p, r := range runs {
		t.Logf("%-11s requests %4d  retry peak %-28v cv %.2f  recovered at %v", p, len(r.Arrivals), r.Peak, r.CV, r.RecoveredAt)
	}
	// Waves make the gaps between retries bursty: long quiet gaps between
	// near-zero ones. (Peaks in 10 ms slots are left to the storm command:
	// under the race detector the scheduler smears a wave over tens of ms.)
	if exp.CV <= full.CV || exp.CV < 2 {
		t.Fatalf("inter-retry CV: exponential %.2f, full jitter %.2f; want exponential's well above 1 and above full's", exp.CV, full.CV)
	}
}

func TestConfigValidation(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  storm.Config
		want string
	}{
		{"unknown policy", storm.Config{Policy: "linear"}, `storm: unknown policy "linear": want one of exponential, full, equal, decorrelated, uniform, constant, immediate, retry-defaults`},
		{"first edition's defaults", storm.Config{Policy: "defaults"}, `storm: unknown policy "defaults"`},
		{"negative clients", storm.Config{Clients: -1}, "storm: clients -1 out of range: want 1 <= clients <= 5000"},
		{"long outage", storm.Config{Outage: 2 * time.Minute}, "storm: outage 2m0s out of range"},
		{"many attempts", storm.Config{Attempts: 1001}, "storm: attempts 1001 out of range"},
		{"negative deadline", storm.Config{Deadline: -time.Second}, "storm: deadline -1s out of range"},
		{"wide slot", storm.Config{Slot: 2 * time.Second}, "storm: slot 2s out of range"},
		{"cap below base", storm.Config{Base: time.Second, Cap: time.Millisecond}, "storm: schedule: cap 1ms below base 1s"},
		{"cap below base, equal jitter", storm.Config{Policy: schedule.NameEqual, Base: time.Second, Cap: time.Millisecond}, "storm: schedule: cap 1ms below base 1s"},
		{"bad backoff", storm.Config{Backoff: schedule.FullJitter{Base: time.Second, Cap: time.Millisecond}}, "storm: backoff: schedule: cap 1ms below base 1s"},
		{"bad breaker failures", storm.Config{Breaker: breaker.Config{Failures: -1}}, "storm: breaker: failures -1 out of range"},
		{"bad breaker open time", storm.Config{Breaker: breaker.Config{OpenTimeout: time.Second, MaxOpenTimeout: time.Millisecond}}, "storm: breaker: max open timeout 1ms out of range"},
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
// open) would keep them away for seconds.
func TestDefaultsTuned(t *testing.T) {
	const clients = 20
	outage := 250 * time.Millisecond
	res, err := storm.Run(context.Background(), storm.Config{
		Policy: storm.RetryDefaults, Clients: clients, Outage: outage, Seed: 1,
		Backoff: schedule.Constant{Base: 10 * time.Millisecond},
		Breaker: breaker.Config{Failures: 2, OpenTimeout: 100 * time.Millisecond},
	})
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
		err := storm.Validate(storm.Config{
			Clients: clients, Outage: time.Duration(outage), Attempts: attempts, Deadline: time.Duration(deadline),
			Slot: time.Duration(slot), Capacity: capacity,
			Breaker: breaker.Config{Failures: failures, OpenTimeout: time.Duration(open), MaxOpenTimeout: time.Duration(maxOpen)},
		})
		if err != nil && !strings.HasPrefix(err.Error(), "storm: ") {
			t.Fatalf("error without the package name: %v", err)
		}
	})
}
