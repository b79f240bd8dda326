package overload

import (
	"reflect"
	"testing"
	"time"

	"github.com/backofflab/backofflab/lab/lcg"
	"github.com/backofflab/backofflab/retry/breaker"
	"github.com/backofflab/backofflab/retry/budget"
)

// randomConfigs returns n varied configurations drawn from a fixed
// generator: ticks from 1 to 50 ms, light and overwhelming loads, short and
// long timeouts and dips, every combination of budget, breaker and pacing,
// and random seeds. The runs are short, so the reference stays quick.
func randomConfigs(n int) []Config {
	g := lcg.MustNew(10)
	pick := func(lo, hi int) int { return lo + int(g.Float64()*float64(hi-lo+1)) }
	ms := func(v int) time.Duration { return time.Duration(v) * time.Millisecond }
	var out []Config
	for len(out) < n {
		tick := ms(pick(1, 50))
		c := Config{
			Tick:        tick,
			Duration:    tick * time.Duration(pick(20, 1500)),
			Rate:        float64(pick(0, 3000)) * g.Float64(),
			Capacity:    float64(pick(1, 2000)) + g.Float64(),
			MaxAttempts: pick(1, MaxAttemptsLimit),
			DipCapacity: g.Float64() * float64(pick(0, 1)),
			Seed:        int64(g.Next()),
		}
		c.Timeout = tick * time.Duration(pick(1, int(c.Duration/tick)))
		c.DipStart = tick * time.Duration(pick(0, int(c.Duration/tick)))
		c.DipEnd = c.DipStart + tick*time.Duration(pick(0, int((c.Duration-c.DipStart)/tick)))
		c.Sample = tick * time.Duration(pick(1, int(c.Duration/tick)))
		if pick(0, 2) == 0 {
			c.Budget = &budget.Config{Ratio: g.Float64(), Buckets: pick(1, 10), Width: ms(pick(10, 2000))}
		}
		if pick(0, 2) == 0 {
			c.Breaker = &breaker.Config{Failures: pick(1, 10), OpenTimeout: ms(pick(1, 2000)), Probes: pick(1, 3)}
			c.Breaker.MaxOpenTimeout = c.Breaker.OpenTimeout * time.Duration(pick(1, 3))
		}
		if pick(0, 2) == 0 {
			c.Pacing = &Pacing{Above: ms(pick(0, 2000)), Jitter: ms(pick(0, 2000))}
		}
		if c.Validate() == nil {
			out = append(out, c)
		}
	}
	return out
}

// TestRunIsTheReference checks that Run and the reference give exactly the
// same Result, timeline included, on random configurations and on every
// setting of the lesson.
func TestRunIsTheReference(t *testing.T) {
	configs := randomConfigs(300)
	for _, n := range Remedies(Lesson()) {
		configs = append(configs, n.Config, n.Config.WithDipLength(time.Second), n.Config.WithSeed(7).WithRate(900))
	}
	for i, c := range configs {
		got, err := Run(c)
		if err != nil {
			t.Fatalf("config %d %+v: %v", i, c, err)
		}
		want, err := RunReference(c)
		if err != nil {
			t.Fatalf("config %d: reference: %v", i, err)
		}
		if !reflect.DeepEqual(got, want) {
			got.Timeline, want.Timeline = nil, nil
			t.Fatalf("config %d %+v:\nRun       %+v\nreference %+v", i, c, got, want)
		}
	}
	if _, err := RunReference(Lesson().WithAttempts(0)); err == nil {
		t.Error("RunReference accepted 0 attempts")
	}
}
