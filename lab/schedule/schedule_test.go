package schedule_test

import (
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/backofflab/backofflab/lab/lcg"
	"github.com/backofflab/backofflab/lab/schedule"
)

// fixed is a Uniform that always draws the same value.
type fixed float64

func (f fixed) Float64() float64 { return float64(f) }

const maxDuration = time.Duration(math.MaxInt64)

func TestNewBuildsEachPolicy(t *testing.T) {
	cfg := schedule.Config{Base: time.Second, Cap: time.Minute, Multiplier: 1.5, Width: 0.5}
	want := map[string]schedule.Policy{
		"exponential":  schedule.Exponential{Base: time.Second, Cap: time.Minute, Multiplier: 1.5},
		"full":         schedule.FullJitter{Base: time.Second, Cap: time.Minute, Multiplier: 1.5},
		"equal":        schedule.EqualJitter{Base: time.Second, Cap: time.Minute, Multiplier: 1.5},
		"decorrelated": schedule.Decorrelated{Base: time.Second, Cap: time.Minute, Multiplier: 1.5},
		"uniform":      schedule.UniformJitter{Base: time.Second, Cap: time.Minute, Multiplier: 1.5, Width: 0.5},
		"constant":     schedule.Constant{Base: time.Second},
		"immediate":    schedule.Immediate{},
		" Full ":       schedule.FullJitter{Base: time.Second, Cap: time.Minute, Multiplier: 1.5},
		"CONSTANT":     schedule.Constant{Base: time.Second},
	}
	for name, w := range want {
		cfg.Name = name
		got, err := schedule.New(cfg)
		if err != nil {
			t.Errorf("New(%+v): %v", cfg, err)
			continue
		}
		if !reflect.DeepEqual(got, w) {
			t.Errorf("New(%+v) = %#v, want %#v", cfg, got, w)
		}
	}
	for _, name := range schedule.Names() {
		p, err := schedule.New(schedule.Config{Name: name, Base: time.Second})
		if err != nil {
			t.Errorf("New(Name: %q): %v", name, err)
			continue
		}
		if got := p.(interface{ Name() string }).Name(); got != name {
			t.Errorf("New(Name: %q).Name() = %q", name, got)
		}
	}
	// A constant wait of zero is allowed: retry at once.
	if _, err := schedule.New(schedule.Config{Name: "constant"}); err != nil {
		t.Errorf("New(constant, base 0): %v", err)
	}
}

func TestNewRejectsBadParameters(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	tests := []struct {
		cfg  schedule.Config
		want string
	}{
		{schedule.Config{Name: "jitter", Base: time.Second}, `unknown policy "jitter": want one of exponential, full, equal, decorrelated, uniform, constant, immediate`},
		{schedule.Config{Base: time.Second}, `unknown policy ""`},
		{schedule.Config{Name: "none", Base: time.Second}, `policy "none" was renamed: use "exponential" (no jitter) or "immediate" (no wait)`},
		{schedule.Config{Name: "Flat", Base: time.Second}, `policy "flat" was renamed: use "constant"`},
		{schedule.Config{Name: "immediate", Cap: -1}, "cap -1ns out of range"},
		{schedule.Config{Name: "full"}, "base 0s out of range: want base > 0"},
		{schedule.Config{Name: "decorrelated", Base: -time.Second}, "base -1s out of range: want base > 0"},
		{schedule.Config{Name: "constant", Base: -time.Second}, "base -1s out of range: want base >= 0"},
		{schedule.Config{Name: "equal", Base: time.Second, Cap: -1}, "cap -1ns out of range: want cap >= 0 (0 means uncapped)"},
		{schedule.Config{Name: "exponential", Base: time.Second, Cap: time.Millisecond}, "cap 1ms below base 1s: want cap >= base, or cap = 0 for uncapped"},
		{schedule.Config{Name: "constant", Base: time.Second, Cap: time.Millisecond}, "cap 1ms below base 1s"},
		{schedule.Config{Name: "full", Base: time.Second, Multiplier: 0.5}, "multiplier 0.5 out of range: want a finite multiplier >= 1 (0 means the default)"},
		{schedule.Config{Name: "full", Base: time.Second, Multiplier: -2}, "multiplier -2 out of range"},
		{schedule.Config{Name: "full", Base: time.Second, Multiplier: nan}, "multiplier NaN out of range"},
		{schedule.Config{Name: "decorrelated", Base: time.Second, Multiplier: inf}, "multiplier +Inf out of range"},
		{schedule.Config{Name: "uniform", Base: time.Second, Width: 2.5}, "width 2.5 out of range: want 0 <= width <= 2"},
		{schedule.Config{Name: "uniform", Base: time.Second, Width: -0.1}, "width -0.1 out of range"},
		{schedule.Config{Name: "uniform", Base: time.Second, Width: nan}, "width NaN out of range"},
		{schedule.Config{Name: "full", Base: time.Second, Width: inf}, "width +Inf out of range"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			p, err := schedule.New(tt.cfg)
			if err == nil {
				t.Errorf("New(%+v) = %v, want error containing %q", tt.cfg, p, tt.want)
				return
			}
			if msg := err.Error(); !strings.HasPrefix(msg, "schedule: ") || !strings.Contains(msg, tt.want) {
				t.Errorf("New(%+v) error %q, want it to contain %q", tt.cfg, msg, tt.want)
			}
		})
	}
	// The edges of each range are accepted.
	for _, cfg := range []schedule.Config{
		{Name: "uniform", Base: time.Second, Cap: time.Second, Multiplier: 1, Width: 0},
		{Name: "uniform", Base: 1, Width: 2},
		{Name: "decorrelated", Base: 1, Cap: maxDuration, Multiplier: math.MaxFloat64},
	} {
		if _, err := schedule.New(cfg); err != nil {
			t.Errorf("New(%+v): %v", cfg, err)
		}
	}
}

func TestDelays(t *testing.T) {
	if got := schedule.Delays(schedule.Constant{Base: 1}, 0, nil); got != nil {
		t.Errorf("Delays(count 0) = %v, want nil", got)
	}
	if got := schedule.Delays(schedule.Constant{Base: 1}, -1, nil); got != nil {
		t.Errorf("Delays(count -1) = %v, want nil", got)
	}
	// Each decorrelated wait is drawn from [base, 3·previous).
	p := schedule.Decorrelated{Base: time.Millisecond}
	ds := schedule.Delays(p, 50, lcg.MustNew(7))
	prev := p.Base
	for i, d := range ds {
		if d < p.Base || d >= 3*prev {
			t.Fatalf("wait %d = %v, want in [%v, %v)", i, d, p.Base, 3*prev)
		}
		prev = d
	}
}

// FuzzNew checks that New never panics, and that every policy it accepts
// returns waits in [0, Cap] (or [0, largest Duration] uncapped) for any
// retry number, previous wait and draw.
func FuzzNew(f *testing.F) {
	f.Add("full", int64(time.Second), int64(time.Minute), 2.0, 0.0, 3, int64(0), 0.5)
	f.Add("uniform", int64(1), int64(0), 1.5, 2.0, 10_000, int64(0), 0.999)
	f.Add("decorrelated", int64(time.Millisecond), int64(0), 0.0, 0.0, 0, int64(math.MaxInt64), 0.99)
	f.Add("exponential", int64(math.MaxInt64), int64(0), 1e300, 0.0, 100, int64(-1), 0.0)
	f.Add("constant", int64(0), int64(5), 1.0, 1.0, -7, int64(3), 1.5)
	f.Add("equal", int64(-1), int64(-1), math.NaN(), math.Inf(1), 1, int64(1), math.NaN())
	f.Fuzz(func(t *testing.T, name string, base, cap int64, mult, width float64, n int, prev int64, u float64) {
		p, err := schedule.New(schedule.Config{Name: name, Base: time.Duration(base), Cap: time.Duration(cap), Multiplier: mult, Width: width})
		if err != nil {
			if p != nil {
				t.Fatalf("New returned both %v and error %v", p, err)
			}
			if !strings.HasPrefix(err.Error(), "schedule: ") {
				t.Fatalf("error %q lacks the package prefix", err)
			}
			return
		}
		for _, r := range []schedule.Uniform{fixed(u), lcg.MustNew(1), nil} {
			d := p.Delay(n, time.Duration(prev), r)
			if d < 0 || (cap > 0 && d > time.Duration(cap)) {
				t.Fatalf("%v.Delay(%d, %v) = %v, want in [0, cap %v]", p, n, time.Duration(prev), d, time.Duration(cap))
			}
		}
	})
}

// BenchmarkDelay measures one Delay call of each policy, including the draw
// from the lessons' LCG.
func BenchmarkDelay(b *testing.B) {
	for _, name := range schedule.Names() {
		p, err := schedule.New(schedule.Config{Name: name, Base: 100 * time.Millisecond, Cap: 20 * time.Second, Width: 1})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) { benchmarkDelay(b, p) })
	}
	// A multiplier other than 2 takes the math.Pow path.
	b.Run("exponential-mult1.5", func(b *testing.B) {
		benchmarkDelay(b, schedule.Exponential{Base: 100 * time.Millisecond, Cap: 20 * time.Second, Multiplier: 1.5})
	})
}

// benchmarkDelay times p's Delay, threading prev and cycling n over 0..15.
func benchmarkDelay(b *testing.B, p schedule.Policy) {
	r := lcg.MustNew(lcg.DefaultSeed)
	var prev time.Duration
	n := 0
	for b.Loop() {
		prev = p.Delay(n, prev, r)
		n = (n + 1) & 15
	}
}
