package schedule_test

import (
	"fmt"
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

// counting wraps a Uniform and counts its draws.
type counting struct {
	r     schedule.Uniform
	draws int
}

func (c *counting) Float64() float64 { c.draws++; return c.r.Float64() }

const maxDuration = time.Duration(math.MaxInt64)

// policies returns one valid instance of every policy with the given cap
// (Constant ignores the cap).
func policies(base, cap time.Duration) map[string]schedule.Policy {
	return map[string]schedule.Policy{
		"exponential":  schedule.Exponential{Base: base, Cap: cap},
		"full":         schedule.FullJitter{Base: base, Cap: cap},
		"equal":        schedule.EqualJitter{Base: base, Cap: cap},
		"decorrelated": schedule.Decorrelated{Base: base, Cap: cap},
		"uniform":      schedule.UniformJitter{Base: base, Cap: cap, Width: 1},
		"constant":     schedule.Constant{Base: base},
	}
}

func TestFormulas(t *testing.T) {
	const (
		b = 100 * time.Millisecond
		C = 2 * time.Second
	)
	tests := []struct {
		name string
		p    schedule.Policy
		n    int
		prev time.Duration
		u    float64
		want time.Duration
	}{
		{"exponential n=0", schedule.Exponential{Base: b, Cap: C}, 0, 0, 0.9, b},
		{"exponential n=4", schedule.Exponential{Base: b, Cap: C}, 4, 0, 0.9, 1600 * time.Millisecond},
		{"exponential capped", schedule.Exponential{Base: b, Cap: C}, 5, 0, 0.9, C},
		{"exponential ×3", schedule.Exponential{Base: b, Multiplier: 3}, 2, 0, 0, 900 * time.Millisecond},
		{"exponential ×1.5", schedule.Exponential{Base: b, Multiplier: 1.5}, 2, 0, 0, 225 * time.Millisecond},
		{"exponential n<0", schedule.Exponential{Base: b}, -3, 0, 0, b},
		{"full", schedule.FullJitter{Base: b, Cap: C}, 3, 0, 0.25, 200 * time.Millisecond},
		{"full u=0", schedule.FullJitter{Base: b, Cap: C}, 3, 0, 0, 0},
		{"full capped", schedule.FullJitter{Base: b, Cap: C}, 9, 0, 0.5, time.Second},
		{"equal", schedule.EqualJitter{Base: b, Cap: C}, 3, 0, 0.5, 600 * time.Millisecond},
		{"equal u=0", schedule.EqualJitter{Base: b, Cap: C}, 3, 0, 0, 400 * time.Millisecond},
		{"equal capped", schedule.EqualJitter{Base: b, Cap: C}, 9, 0, 0.25, 1250 * time.Millisecond},
		{"uniform w=1 u=0", schedule.UniformJitter{Base: b, Width: 1}, 1, 0, 0, 100 * time.Millisecond},
		{"uniform w=1 u=.75", schedule.UniformJitter{Base: b, Width: 1}, 1, 0, 0.75, 250 * time.Millisecond},
		{"uniform w=0", schedule.UniformJitter{Base: b}, 2, 0, 0.9, 400 * time.Millisecond},
		{"uniform w=2 u=0", schedule.UniformJitter{Base: b, Width: 2}, 2, 0, 0, 0},
		{"uniform above cap clamps", schedule.UniformJitter{Base: b, Cap: C, Width: 1}, 9, 0, 0.75, C},
		{"uniform below cap", schedule.UniformJitter{Base: b, Cap: C, Width: 1}, 9, 0, 0.25, 1500 * time.Millisecond},
		{"decorrelated first", schedule.Decorrelated{Base: b, Cap: C}, 0, 0, 0.5, 200 * time.Millisecond},
		{"decorrelated prev", schedule.Decorrelated{Base: b, Cap: C}, 7, 300 * time.Millisecond, 0.5, 500 * time.Millisecond},
		{"decorrelated u=0", schedule.Decorrelated{Base: b, Cap: C}, 7, time.Second, 0, b},
		{"decorrelated capped", schedule.Decorrelated{Base: b, Cap: C}, 7, time.Second, 0.9, C},
		{"decorrelated ×2", schedule.Decorrelated{Base: b, Multiplier: 2}, 0, time.Second, 0.5, 1050 * time.Millisecond},
		{"decorrelated prev<base", schedule.Decorrelated{Base: b}, 0, time.Millisecond, 0.5, 200 * time.Millisecond},
		{"decorrelated prev<0", schedule.Decorrelated{Base: b}, 0, -time.Hour, 0.5, 200 * time.Millisecond},
		{"constant", schedule.Constant{Base: b}, 50, time.Hour, 0.5, b},
		{"constant negative base", schedule.Constant{Base: -b}, 0, 0, 0.5, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.p.Delay(tt.n, tt.prev, fixed(tt.u)); got != tt.want {
				t.Errorf("%s: %v.Delay(%d, %v, %v) = %v, want %v", tt.name, tt.p, tt.n, tt.prev, tt.u, got, tt.want)
			}
		})
	}
}

// Base·2ⁿ is exact for as long as it fits a Duration.
func TestCeilingExact(t *testing.T) {
	p := schedule.Exponential{Base: 100 * time.Millisecond}
	want := 100 * time.Millisecond
	for n := 0; want < maxDuration/2; n++ {
		if got := p.Ceiling(n); got != want {
			t.Fatalf("Ceiling(%d) = %v, want %v", n, got, want)
		}
		want *= 2
	}
	// From a 1 ns base, 2⁶² still fits; 2⁶³ and beyond saturate.
	one := schedule.Exponential{Base: 1}
	for n, want := range map[int]time.Duration{62: 1 << 62, 63: maxDuration, 64: maxDuration, 65: maxDuration, 1 << 40: maxDuration} {
		if got := one.Ceiling(n); got != want {
			t.Errorf("Exponential{Base: 1ns}.Ceiling(%d) = %v, want %v", n, got, want)
		}
	}
}

func TestDrawsPerDelay(t *testing.T) {
	jittered := map[string]bool{"full": true, "equal": true, "decorrelated": true, "uniform": true}
	all := policies(100*time.Millisecond, time.Minute)
	all["uniform width 0"] = schedule.UniformJitter{Base: time.Second}
	all["zero full"] = schedule.FullJitter{}
	jittered["uniform width 0"], jittered["zero full"] = true, true
	for name, p := range all {
		r := &counting{r: lcg.MustNew(lcg.DefaultSeed)}
		var prev time.Duration
		calls := 0
		for _, n := range []int{0, 1, 2, 3, -1, 100, 10_000, math.MaxInt, math.MinInt} {
			prev = p.Delay(n, prev, r)
			calls++
		}
		want := 0
		if jittered[name] {
			want = calls
		}
		if r.draws != want {
			t.Errorf("%s: %d draws in %d Delay calls, want %d", name, r.draws, calls, want)
		}
	}
}

// For every policy, with and without a cap, a large retry number, a huge
// previous wait or an extreme draw never overflows into a negative wait and
// never exceeds the cap.
func TestNoOverflow(t *testing.T) {
	type params struct {
		base time.Duration
		mult float64
	}
	for _, pa := range []params{{time.Second, 0}, {time.Nanosecond, 1.0001}, {maxDuration, 1e300}, {time.Hour, 1}} {
		for _, cap := range []time.Duration{0, pa.base, maxDuration / 3, maxDuration} {
			ps := map[string]schedule.Policy{
				"exponential":  schedule.Exponential{Base: pa.base, Cap: cap, Multiplier: pa.mult},
				"full":         schedule.FullJitter{Base: pa.base, Cap: cap, Multiplier: pa.mult},
				"equal":        schedule.EqualJitter{Base: pa.base, Cap: cap, Multiplier: pa.mult},
				"decorrelated": schedule.Decorrelated{Base: pa.base, Cap: cap, Multiplier: pa.mult},
				"uniform":      schedule.UniformJitter{Base: pa.base, Cap: cap, Multiplier: pa.mult, Width: 2},
				"constant":     schedule.Constant{Base: pa.base},
			}
			for name, p := range ps {
				for _, n := range []int{100, 10_000, math.MaxInt} {
					for _, prev := range []time.Duration{0, pa.base, maxDuration} {
						for _, u := range []float64{0, 0.5, math.Nextafter(1, 0)} {
							d := p.Delay(n, prev, fixed(u))
							capped := cap > 0 && (name != "constant" || cap >= pa.base) // Constant has no cap of its own
							if d < 0 || (capped && d > cap) {
								t.Errorf("%v.Delay(%d, %v, %v) = %v, want in [0, cap %v]", p, n, prev, u, d, cap)
							}
						}
					}
				}
			}
		}
	}
	// Saturated windows stay saturated through the jitter: a midpoint draw
	// gives at least a quarter of the cap or of the largest Duration.
	for _, cap := range []time.Duration{0, time.Minute} {
		for name, p := range policies(time.Second, cap) {
			if name == "constant" {
				continue
			}
			floor := maxDuration / 4
			if cap > 0 {
				floor = cap / 4
			}
			for _, n := range []int{100, 10_000} {
				if d := p.Delay(n, maxDuration, fixed(0.5)); d < floor {
					t.Errorf("%v.Delay(%d, max, 0.5) = %v, want >= %v", p, n, d, floor)
				}
			}
		}
	}
	// Saturation lands exactly on the cap, or on the largest Duration.
	for _, n := range []int{100, 10_000} {
		if got := (schedule.Exponential{Base: time.Second}).Delay(n, 0, nil); got != maxDuration {
			t.Errorf("uncapped Exponential.Delay(%d) = %v, want %v", n, got, maxDuration)
		}
		if got := (schedule.Exponential{Base: time.Second, Cap: time.Minute}).Delay(n, 0, nil); got != time.Minute {
			t.Errorf("capped Exponential.Delay(%d) = %v, want 1m", n, got)
		}
	}
}

// Delay never panics and stays in range whatever the Uniform returns, and
// whatever nonsense the fields hold when a policy is used without New.
func TestDelayClampsBadInput(t *testing.T) {
	bad := []schedule.Uniform{nil, fixed(math.NaN()), fixed(-1), fixed(1), fixed(2), fixed(math.Inf(1)), fixed(math.Inf(-1))}
	odd := []schedule.Policy{
		schedule.Exponential{Base: -time.Second, Multiplier: -2},
		schedule.FullJitter{Base: time.Second, Cap: -time.Second, Multiplier: math.NaN()},
		schedule.EqualJitter{Base: time.Second, Multiplier: math.Inf(1)},
		schedule.UniformJitter{Base: time.Second, Width: 7},
		schedule.UniformJitter{Base: time.Second, Width: math.NaN()},
		schedule.Decorrelated{Base: -time.Second, Multiplier: 0.5},
		schedule.Decorrelated{Base: time.Second, Multiplier: math.Inf(-1)},
	}
	for _, p := range append(odd, valuesOf(policies(time.Second, time.Minute))...) {
		for _, r := range bad {
			for _, n := range []int{math.MinInt, -1, 0, 5, math.MaxInt} {
				if d := p.Delay(n, -time.Hour, r); d < 0 {
					t.Errorf("%v.Delay(%d, -1h, %v) = %v, want >= 0", p, n, r, d)
				}
			}
		}
	}
	// A draw of 1 or more is clamped just below 1; NaN and negatives to 0;
	// a nil Uniform draws the midpoint.
	p := schedule.FullJitter{Base: time.Second}
	for _, tt := range []struct {
		name string
		r    schedule.Uniform
		want time.Duration
	}{{"u=2", fixed(2), time.Second - 1}, {"u=NaN", fixed(math.NaN()), 0}, {"u=-3", fixed(-3), 0}, {"nil", nil, time.Second / 2}} {
		t.Run(tt.name, func(t *testing.T) {
			if got := p.Delay(0, 0, tt.r); got != tt.want {
				t.Errorf("FullJitter.Delay(0, 0, %v) = %v, want %v", tt.r, got, tt.want)
			}
		})
	}
}

func valuesOf(m map[string]schedule.Policy) []schedule.Policy {
	var out []schedule.Policy
	for _, p := range m {
		out = append(out, p)
	}
	return out
}

func TestZeroValuesWaitZero(t *testing.T) {
	for name, p := range policies(0, 0) {
		r := lcg.MustNew(1)
		for n := range 5 {
			if d := p.Delay(n, 0, r); d != 0 {
				t.Errorf("zero %s: Delay(%d) = %v, want 0", name, n, d)
			}
		}
	}
}

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

func TestValidate(t *testing.T) {
	type validator interface{ Validate() error }
	for _, v := range []validator{
		schedule.Exponential{}, schedule.FullJitter{Base: time.Second, Cap: 1},
		schedule.EqualJitter{Base: time.Second, Multiplier: 0.9},
		schedule.UniformJitter{Base: time.Second, Width: 3}, schedule.Decorrelated{Base: -1},
		schedule.Constant{Base: -1},
	} {
		if err := v.Validate(); err == nil {
			t.Errorf("%v.Validate() = nil, want an error", v)
		}
	}
	for _, p := range policies(time.Second, time.Minute) {
		if err := p.(validator).Validate(); err != nil {
			t.Errorf("%v.Validate(): %v", p, err)
		}
	}
}

func TestString(t *testing.T) {
	for _, tt := range []struct {
		p    schedule.Policy
		want string
	}{
		{schedule.FullJitter{Base: time.Second}, "full(base=1s cap=none mult=2)"},
		{schedule.Decorrelated{Base: time.Second, Cap: time.Minute}, "decorrelated(base=1s cap=1m0s mult=3)"},
		{schedule.UniformJitter{Base: time.Second, Multiplier: 1.5, Width: 0.5}, "uniform(base=1s cap=none mult=1.5 width=0.5)"},
		{schedule.Constant{Base: time.Second}, "constant(base=1s)"},
	} {
		t.Run(fmt.Sprintf("%T", tt.p), func(t *testing.T) {
			if got := tt.p.(interface{ String() string }).String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
		})
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

// summary is the mean, minimum and maximum of many waits.
type summary struct {
	mean     float64
	min, max time.Duration
}

func sample(p schedule.Policy, n int, prev time.Duration, draws int) summary {
	r := lcg.MustNew(lcg.DefaultSeed)
	s := summary{min: maxDuration}
	var sum float64
	for range draws {
		d := p.Delay(n, prev, r)
		sum += float64(d)
		s.min, s.max = min(s.min, d), max(s.max, d)
	}
	s.mean = sum / float64(draws)
	return s
}

// The jittered policies spread waits over the documented interval with the
// documented mean. 100 000 draws put the standard error of a uniform mean at
// about 0.1 % of the interval, so a 0.5 % tolerance fails only on a real
// error; the extremes must come within 0.1 % of the interval's ends.
func TestDistributions(t *testing.T) {
	const draws = 100_000
	c := 800 * time.Millisecond // window at n = 3 for a 100 ms base
	b := 100 * time.Millisecond
	tests := []struct {
		name   string
		p      schedule.Policy
		n      int
		prev   time.Duration
		lo, hi time.Duration // wait in [lo, hi)
	}{
		{"full", schedule.FullJitter{Base: b}, 3, 0, 0, c},
		{"equal", schedule.EqualJitter{Base: b}, 3, 0, c / 2, c},
		{"uniform w=1", schedule.UniformJitter{Base: b, Width: 1}, 3, 0, c / 2, 3 * c / 2},
		{"uniform w=0.5", schedule.UniformJitter{Base: b, Width: 0.5}, 3, 0, 3 * c / 4, 5 * c / 4},
		{"uniform w=2", schedule.UniformJitter{Base: b, Width: 2}, 3, 0, 0, 2 * c},
		{"decorrelated", schedule.Decorrelated{Base: b}, 3, c, b, 3 * c},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := sample(tt.p, tt.n, tt.prev, draws)
			span := float64(tt.hi - tt.lo)
			if s.min < tt.lo || s.max >= tt.hi {
				t.Errorf("%s: waits in [%v, %v], want in [%v, %v)", tt.name, s.min, s.max, tt.lo, tt.hi)
			}
			if float64(s.min-tt.lo) > 0.001*span || float64(tt.hi-s.max) > 0.001*span {
				t.Errorf("%s: waits in [%v, %v] do not reach the ends of [%v, %v)", tt.name, s.min, s.max, tt.lo, tt.hi)
			}
			want := float64(tt.lo+tt.hi) / 2
			if math.Abs(s.mean-want) > 0.005*span {
				t.Errorf("%s: mean %v, want %v ± 0.5 %% of the interval", tt.name, time.Duration(s.mean), time.Duration(want))
			}
		})
	}
}

// Full jitter spreads evenly: each tenth of the window receives a tenth of
// the waits, within 5 % (about 5 standard deviations for 100 000 draws).
func TestFullJitterIsFlat(t *testing.T) {
	const draws = 100_000
	p := schedule.FullJitter{Base: time.Second}
	r := lcg.MustNew(lcg.DefaultSeed)
	var bins [10]int
	for range draws {
		bins[p.Delay(0, 0, r)*10/time.Second]++
	}
	for i, got := range bins {
		if math.Abs(float64(got)-draws/10) > 0.05*draws/10 {
			t.Errorf("tenth %d of the window got %d waits, want %d ± 5 %%", i, got, draws/10)
		}
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

// A huge multiplier (it passes Validate) must not turn the upper bound into
// +Inf and a zero draw into NaN, that is a wait of 0, below Base.
func TestDecorrelatedHugeMultiplierStaysWithinBaseAndCap(t *testing.T) {
	for _, p := range []schedule.Decorrelated{
		{Base: 10 * time.Millisecond, Cap: time.Second, Multiplier: 1e300},
		{Base: 10 * time.Millisecond, Multiplier: math.MaxFloat64},
	} {
		if err := p.Validate(); err != nil {
			t.Fatalf("%v: %v", p, err)
		}
		for _, u := range []float64{0, 1e-300, 0.5, math.Nextafter(1, 0)} {
			for _, prev := range []time.Duration{0, p.Base, time.Second, math.MaxInt64} {
				got := p.Delay(0, prev, fixed(u))
				if got < p.Base || p.Cap > 0 && got > p.Cap {
					t.Errorf("%v.Delay(prev %v, u %v) = %v, want within [%v, %v]", p, prev, u, got, p.Base, p.Cap)
				}
			}
		}
	}
}
