package synchronisers

import (
	"testing"
	"time"

	"github.com/backofflab/backofflab/lab/metrics"
)

// Lesson 08's token offset, as its third edition states it (issue 27): a 1 %
// offset cuts the peak only where the offsets end up spread over several of
// the slots it is counted in. Cron's 600 ms is less than its 1 s slot and
// leaves 500; restart's 300 ms covers thirty 10 ms slots (60); TTL's 3 s
// covers three 1 s slots, and every reload draws again (175). Heal's 10 ms is
// one slot: after one wait it cuts nothing (1000), and only after thirty
// waits, whose offsets add up, does it spread the reconnections over 109 ms
// and cut the peak to 223.
func TestTokenOffsetClaims(t *testing.T) {
	for _, tc := range []struct {
		name string
		peak int
	}{{"cron", 500}, {"ttl", 175}, {"restart", 60}, {"heal", 223}} {
		s, err := Find(tc.name)
		if err != nil {
			t.Fatal(err)
		}
		r, err := metrics.Measure(s.With(0.01), s.Slot)
		if err != nil {
			t.Fatal(err)
		}
		if r.Peak.Count != tc.peak {
			t.Errorf("%s with a 1 %% offset (%v, slot %v): peak %d, want %d", tc.name, s.Interval/100, s.Slot, r.Peak.Count, tc.peak)
		}
	}
	s, err := Find("heal")
	if err != nil {
		t.Fatal(err)
	}
	heal := s.With(0.01).(PartitionHeal)
	for _, tc := range []struct {
		heal   time.Duration
		spread time.Duration
		peak   int
	}{{500 * time.Millisecond, 10 * time.Millisecond, 1000}, {30500 * time.Millisecond, 109 * time.Millisecond, 223}} {
		heal.Heal = tc.heal
		ts, err := heal.Events()
		if err != nil {
			t.Fatal(err)
		}
		lo, hi := ts[0], ts[0]
		for _, x := range ts {
			lo, hi = min(lo, x), max(hi, x)
		}
		r, err := metrics.Measure(heal, s.Slot)
		if err != nil {
			t.Fatal(err)
		}
		if spread := (hi - lo).Round(time.Millisecond); spread != tc.spread || r.Peak.Count != tc.peak {
			t.Errorf("heal at %v with ±5 ms: spread over %v, peak %d per %v; want %v and %d", tc.heal, spread, r.Peak.Count, s.Slot, tc.spread, tc.peak)
		}
	}
}
