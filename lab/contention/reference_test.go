package contention

import (
	"testing"
	"time"

	"github.com/backofflab/backofflab/lab/lcg"
	"github.com/backofflab/backofflab/lab/schedule"
)

// randomConfigs returns n varied configurations drawn from a fixed
// generator: every policy, few and many clients, bases, caps and first
// exponents across their ranges, networks from exact (a spread of 0, so
// that messages tie) to wide, both ways of counting, and random seeds.
func randomConfigs(n int) []Config {
	g := lcg.MustNew(25)
	pick := func(lo, hi int) int { return lo + int(g.Float64()*float64(hi-lo+1)) }
	ms := func(v int) time.Duration { return time.Duration(v) * time.Millisecond }
	names := schedule.Names()
	var out []Config
	for len(out) < n {
		c := Config{
			Clients:       pick(1, 120),
			Policy:        names[pick(0, len(names)-1)],
			Base:          time.Duration(pick(1, 20_000)) * time.Microsecond,
			FirstExponent: pick(0, 4),
			Net:           ms(pick(0, 30)),
			NetSD:         time.Duration(pick(0, 8_000)) * time.Microsecond * time.Duration(pick(0, 1)),
			Count:         Counting(pick(0, 1)),
			Seed:          int64(g.Next()),
		}
		c.Cap = c.Base * time.Duration(pick(1, 800))
		if c.Policy == schedule.NameConstant && pick(0, 1) == 0 {
			c.Cap = c.Base // a constant wait is its base
		}
		out = append(out, c)
	}
	return out
}

// TestRunIsTheReference checks that the fast engine and the reference give
// exactly the same results on random configurations, run after run from
// one generator as Repeat draws them, and on the lesson's own settings.
func TestRunIsTheReference(t *testing.T) {
	configs := randomConfigs(300)
	for _, name := range Policies() {
		configs = append(configs, Lesson().WithPolicy(name), Lesson().WithPolicy(name).WithWideSet().WithClients(190))
	}
	for i, c := range configs {
		p, err := c.policy()
		if err != nil {
			t.Fatalf("config %d %+v: %v", i, c, err)
		}
		fast, slow := lcg.MustNew(c.Seed), lcg.MustNew(c.Seed)
		var s sim
		for run := range 3 {
			got, want := s.run(c, p, fast), reference(c, p, slow)
			if got != want {
				t.Fatalf("config %d %+v, run %d:\nfast      %+v\nreference %+v", i, c, run, got, want)
			}
		}
		if fast.State() != slow.State() {
			t.Fatalf("config %d %+v: the two drew differently", i, c)
		}
	}
	r, err := Run(Lesson())
	if want, _ := RunReference(Lesson()); err != nil || r != want {
		t.Fatalf("Run %+v (%v), RunReference %+v", r, err, want)
	}
}

func TestRunReferenceNamesABadParameter(t *testing.T) {
	if _, err := RunReference(Lesson().WithClients(0)); err == nil {
		t.Fatal("RunReference accepted 0 clients")
	}
}

// BenchmarkBrookerSweepReference is BenchmarkBrookerSweep with the
// reference, on one goroutine (run it with -cpu 1 too): the same 9500 runs,
// each point's 100 runs drawn from one generator as Repeat draws them.
func BenchmarkBrookerSweepReference(b *testing.B) {
	events := 0
	for b.Loop() {
		for _, name := range Policies() {
			for _, n := range SweepClients() {
				c := Lesson().WithPolicy(name).WithClients(n)
				p, err := c.policy()
				if err != nil {
					b.Fatal(err)
				}
				g := lcg.MustNew(c.Seed)
				for range 100 {
					events += reference(c, p, g).Events
				}
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(events), "ns/event")
}
