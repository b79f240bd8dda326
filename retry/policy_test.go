package retry_test

// Tests of the policies' formulas, ranges and draws. The lessons' schedule
// package uses these very policies; its tests check its names and New.

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/backofflab/backofflab/retry"
)

// fixed is a Uniform that returns the same draw every time.
type fixed float64

func (f fixed) Float64() float64 { return float64(f) }

func TestFullJitterDelay(t *testing.T) {
	p := retry.FullJitter{Base: 100 * time.Millisecond, Cap: time.Second}
	for _, tc := range []struct {
		name string
		n    int
		u    retry.Uniform
		want time.Duration
	}{
		{"half the first window", 0, fixed(0.5), 50 * time.Millisecond},
		{"the window doubles", 2, fixed(0.5), 200 * time.Millisecond},
		{"the cap bounds the window", 10, fixed(0.5), 500 * time.Millisecond},
		{"a draw of 0 waits 0", 3, fixed(0), 0},
		{"a negative n counts as 0", -4, fixed(0.5), 50 * time.Millisecond},
		{"a nil Uniform draws 0.5", 1, nil, 100 * time.Millisecond},
		{"a NaN draw counts as 0", 1, fixed(math.NaN()), 0},
		{"a negative draw counts as 0", 1, fixed(-3), 0},
		{"a draw of 1 stays below the window", 0, fixed(1), 100*time.Millisecond - 1},
		{"a huge n saturates at the cap", math.MaxInt, fixed(0.5), 500 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := p.Delay(tc.n, 0, tc.u); got != tc.want {
				t.Errorf("Delay(%d) = %v, want %v", tc.n, got, tc.want)
			}
		})
	}
	uncapped := retry.FullJitter{Base: time.Second}
	if got := uncapped.Ceiling(math.MaxInt); got != math.MaxInt64 {
		t.Errorf("uncapped Ceiling(MaxInt) = %v, want the largest Duration", got)
	}
}

func TestFullJitterValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    retry.FullJitter
		want string // "" for valid
	}{
		{"default", retry.FullJitter{Base: 100 * time.Millisecond, Cap: 10 * time.Second}, ""},
		{"uncapped", retry.FullJitter{Base: time.Millisecond}, ""},
		{"zero base", retry.FullJitter{}, "base 0s out of range"},
		{"negative base", retry.FullJitter{Base: -1}, "base -1ns out of range"},
		{"negative cap", retry.FullJitter{Base: 1, Cap: -1}, "cap -1ns out of range"},
		{"cap below base", retry.FullJitter{Base: 2, Cap: 1}, "cap 1ns below base 2ns"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.p.Validate()
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("Validate() = %v, want nil", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("Validate() = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func ExampleFullJitter() {
	p := retry.FullJitter{Base: 100 * time.Millisecond, Cap: time.Second}
	fmt.Println(p)
	fmt.Println(p.Ceiling(0), p.Ceiling(1), p.Ceiling(2), p.Ceiling(3), p.Ceiling(4))
	fmt.Println(p.Delay(3, 0, fixed(0.25))) // a quarter of the 800ms window
	// Output:
	// full(base=100ms cap=1s mult=2)
	// 100ms 200ms 400ms 800ms 1s
	// 200ms
}

// counting wraps a Uniform and counts its draws.
type counting struct {
	r     retry.Uniform
	draws int
}

func (c *counting) Float64() float64 { c.draws++; return c.r.Float64() }

const maxDuration = time.Duration(math.MaxInt64)

// policies returns one valid instance of every policy with the given cap
// (Constant ignores the cap).
func policies(base, cap time.Duration) map[string]retry.Policy {
	return map[string]retry.Policy{
		"exponential":  retry.Exponential{Base: base, Cap: cap},
		"full":         retry.FullJitter{Base: base, Cap: cap},
		"equal":        retry.EqualJitter{Base: base, Cap: cap},
		"decorrelated": retry.Decorrelated{Base: base, Cap: cap},
		"uniform":      retry.UniformJitter{Base: base, Cap: cap, Width: 1},
		"constant":     retry.Constant{Base: base},
	}
}

func TestFormulas(t *testing.T) {
	const (
		b = 100 * time.Millisecond
		C = 2 * time.Second
	)
	tests := []struct {
		name string
		p    retry.Policy
		n    int
		prev time.Duration
		u    float64
		want time.Duration
	}{
		{"exponential n=0", retry.Exponential{Base: b, Cap: C}, 0, 0, 0.9, b},
		{"exponential n=4", retry.Exponential{Base: b, Cap: C}, 4, 0, 0.9, 1600 * time.Millisecond},
		{"exponential capped", retry.Exponential{Base: b, Cap: C}, 5, 0, 0.9, C},
		{"exponential ×3", retry.Exponential{Base: b, Multiplier: 3}, 2, 0, 0, 900 * time.Millisecond},
		{"exponential ×1.5", retry.Exponential{Base: b, Multiplier: 1.5}, 2, 0, 0, 225 * time.Millisecond},
		{"exponential n<0", retry.Exponential{Base: b}, -3, 0, 0, b},
		{"full", retry.FullJitter{Base: b, Cap: C}, 3, 0, 0.25, 200 * time.Millisecond},
		{"full u=0", retry.FullJitter{Base: b, Cap: C}, 3, 0, 0, 0},
		{"full capped", retry.FullJitter{Base: b, Cap: C}, 9, 0, 0.5, time.Second},
		{"equal", retry.EqualJitter{Base: b, Cap: C}, 3, 0, 0.5, 600 * time.Millisecond},
		{"equal u=0", retry.EqualJitter{Base: b, Cap: C}, 3, 0, 0, 400 * time.Millisecond},
		{"equal capped", retry.EqualJitter{Base: b, Cap: C}, 9, 0, 0.25, 1250 * time.Millisecond},
		{"uniform w=1 u=0", retry.UniformJitter{Base: b, Width: 1}, 1, 0, 0, 100 * time.Millisecond},
		{"uniform w=1 u=.75", retry.UniformJitter{Base: b, Width: 1}, 1, 0, 0.75, 250 * time.Millisecond},
		{"uniform w=0", retry.UniformJitter{Base: b}, 2, 0, 0.9, 400 * time.Millisecond},
		{"uniform w=2 u=0", retry.UniformJitter{Base: b, Width: 2}, 2, 0, 0, 0},
		{"uniform above cap clamps", retry.UniformJitter{Base: b, Cap: C, Width: 1}, 9, 0, 0.75, C},
		{"uniform below cap", retry.UniformJitter{Base: b, Cap: C, Width: 1}, 9, 0, 0.25, 1500 * time.Millisecond},
		{"decorrelated first", retry.Decorrelated{Base: b, Cap: C}, 0, 0, 0.5, 200 * time.Millisecond},
		{"decorrelated prev", retry.Decorrelated{Base: b, Cap: C}, 7, 300 * time.Millisecond, 0.5, 500 * time.Millisecond},
		{"decorrelated u=0", retry.Decorrelated{Base: b, Cap: C}, 7, time.Second, 0, b},
		{"decorrelated capped", retry.Decorrelated{Base: b, Cap: C}, 7, time.Second, 0.9, C},
		{"decorrelated ×2", retry.Decorrelated{Base: b, Multiplier: 2}, 0, time.Second, 0.5, 1050 * time.Millisecond},
		{"decorrelated prev<base", retry.Decorrelated{Base: b}, 0, time.Millisecond, 0.5, 200 * time.Millisecond},
		{"decorrelated prev<0", retry.Decorrelated{Base: b}, 0, -time.Hour, 0.5, 200 * time.Millisecond},
		{"constant", retry.Constant{Base: b}, 50, time.Hour, 0.5, b},
		{"constant negative base", retry.Constant{Base: -b}, 0, 0, 0.5, 0},
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
	p := retry.Exponential{Base: 100 * time.Millisecond}
	want := 100 * time.Millisecond
	for n := 0; want < maxDuration/2; n++ {
		if got := p.Ceiling(n); got != want {
			t.Fatalf("Ceiling(%d) = %v, want %v", n, got, want)
		}
		want *= 2
	}
	// From a 1 ns base, 2⁶² still fits; 2⁶³ and beyond saturate.
	one := retry.Exponential{Base: 1}
	for n, want := range map[int]time.Duration{62: 1 << 62, 63: maxDuration, 64: maxDuration, 65: maxDuration, 1 << 40: maxDuration} {
		if got := one.Ceiling(n); got != want {
			t.Errorf("Exponential{Base: 1ns}.Ceiling(%d) = %v, want %v", n, got, want)
		}
	}
}

func TestDrawsPerDelay(t *testing.T) {
	jittered := map[string]bool{"full": true, "equal": true, "decorrelated": true, "uniform": true}
	all := policies(100*time.Millisecond, time.Minute)
	all["uniform width 0"] = retry.UniformJitter{Base: time.Second}
	all["zero full"] = retry.FullJitter{}
	jittered["uniform width 0"], jittered["zero full"] = true, true
	for name, p := range all {
		r := &counting{r: seeded(1)}
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
			ps := map[string]retry.Policy{
				"exponential":  retry.Exponential{Base: pa.base, Cap: cap, Multiplier: pa.mult},
				"full":         retry.FullJitter{Base: pa.base, Cap: cap, Multiplier: pa.mult},
				"equal":        retry.EqualJitter{Base: pa.base, Cap: cap, Multiplier: pa.mult},
				"decorrelated": retry.Decorrelated{Base: pa.base, Cap: cap, Multiplier: pa.mult},
				"uniform":      retry.UniformJitter{Base: pa.base, Cap: cap, Multiplier: pa.mult, Width: 2},
				"constant":     retry.Constant{Base: pa.base},
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
		if got := (retry.Exponential{Base: time.Second}).Delay(n, 0, nil); got != maxDuration {
			t.Errorf("uncapped Exponential.Delay(%d) = %v, want %v", n, got, maxDuration)
		}
		if got := (retry.Exponential{Base: time.Second, Cap: time.Minute}).Delay(n, 0, nil); got != time.Minute {
			t.Errorf("capped Exponential.Delay(%d) = %v, want 1m", n, got)
		}
	}
}

// Delay never panics and stays in range whatever the Uniform returns, and
// whatever nonsense the fields hold when a policy is used without New.
func TestDelayClampsBadInput(t *testing.T) {
	bad := []retry.Uniform{nil, fixed(math.NaN()), fixed(-1), fixed(1), fixed(2), fixed(math.Inf(1)), fixed(math.Inf(-1))}
	odd := []retry.Policy{
		retry.Exponential{Base: -time.Second, Multiplier: -2},
		retry.FullJitter{Base: time.Second, Cap: -time.Second, Multiplier: math.NaN()},
		retry.EqualJitter{Base: time.Second, Multiplier: math.Inf(1)},
		retry.UniformJitter{Base: time.Second, Width: 7},
		retry.UniformJitter{Base: time.Second, Width: math.NaN()},
		retry.Decorrelated{Base: -time.Second, Multiplier: 0.5},
		retry.Decorrelated{Base: time.Second, Multiplier: math.Inf(-1)},
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
	p := retry.FullJitter{Base: time.Second}
	for _, tt := range []struct {
		name string
		r    retry.Uniform
		want time.Duration
	}{{"u=2", fixed(2), time.Second - 1}, {"u=NaN", fixed(math.NaN()), 0}, {"u=-3", fixed(-3), 0}, {"nil", nil, time.Second / 2}} {
		t.Run(tt.name, func(t *testing.T) {
			if got := p.Delay(0, 0, tt.r); got != tt.want {
				t.Errorf("FullJitter.Delay(0, 0, %v) = %v, want %v", tt.r, got, tt.want)
			}
		})
	}
}

func valuesOf(m map[string]retry.Policy) []retry.Policy {
	var out []retry.Policy
	for _, p := range m {
		out = append(out, p)
	}
	return out
}

func TestZeroValuesWaitZero(t *testing.T) {
	for name, p := range policies(0, 0) {
		r := seeded(1)
		for n := range 5 {
			if d := p.Delay(n, 0, r); d != 0 {
				t.Errorf("zero %s: Delay(%d) = %v, want 0", name, n, d)
			}
		}
	}
}

func TestValidate(t *testing.T) {
	type validator interface{ Validate() error }
	for _, v := range []validator{
		retry.Exponential{}, retry.FullJitter{Base: time.Second, Cap: 1},
		retry.EqualJitter{Base: time.Second, Multiplier: 0.9},
		retry.UniformJitter{Base: time.Second, Width: 3}, retry.Decorrelated{Base: -1},
		retry.Constant{Base: -1},
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
		p    retry.Policy
		want string
	}{
		{retry.FullJitter{Base: time.Second}, "full(base=1s cap=none mult=2)"},
		{retry.Decorrelated{Base: time.Second, Cap: time.Minute}, "decorrelated(base=1s cap=1m0s mult=3)"},
		{retry.UniformJitter{Base: time.Second, Multiplier: 1.5, Width: 0.5}, "uniform(base=1s cap=none mult=1.5 width=0.5)"},
		{retry.Constant{Base: time.Second}, "constant(base=1s)"},
	} {
		t.Run(fmt.Sprintf("%T", tt.p), func(t *testing.T) {
			if got := tt.p.(interface{ String() string }).String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
		})
	}
}

// summary is the mean, minimum and maximum of many waits.
type summary struct {
	mean     float64
	min, max time.Duration
}

func sample(p retry.Policy, n int, prev time.Duration, draws int) summary {
	r := seeded(1)
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
		p      retry.Policy
		n      int
		prev   time.Duration
		lo, hi time.Duration // wait in [lo, hi)
	}{
		{"full", retry.FullJitter{Base: b}, 3, 0, 0, c},
		{"equal", retry.EqualJitter{Base: b}, 3, 0, c / 2, c},
		{"uniform w=1", retry.UniformJitter{Base: b, Width: 1}, 3, 0, c / 2, 3 * c / 2},
		{"uniform w=0.5", retry.UniformJitter{Base: b, Width: 0.5}, 3, 0, 3 * c / 4, 5 * c / 4},
		{"uniform w=2", retry.UniformJitter{Base: b, Width: 2}, 3, 0, 0, 2 * c},
		{"decorrelated", retry.Decorrelated{Base: b}, 3, c, b, 3 * c},
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
	p := retry.FullJitter{Base: time.Second}
	r := seeded(1)
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

// A huge multiplier (it passes Validate) must not turn the upper bound into
// +Inf and a zero draw into NaN, that is a wait of 0, below Base.
func TestDecorrelatedHugeMultiplierStaysWithinBaseAndCap(t *testing.T) {
	for _, p := range []retry.Decorrelated{
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

// The first five waits of each policy for one client, drawn from a seeded
// generator, with a 100 ms base and a 2 s cap: Exponential doubles and
// stops at the cap; the jittered policies scatter below (full, equal) or
// around (uniform) that window; decorrelated grows from its own last wait.
func ExamplePolicy() {
	base, cap := 100*time.Millisecond, 2*time.Second
	for _, p := range []retry.Policy{
		retry.Exponential{Base: base, Cap: cap},
		retry.FullJitter{Base: base, Cap: cap},
		retry.EqualJitter{Base: base, Cap: cap},
		retry.Decorrelated{Base: base, Cap: cap},
		retry.UniformJitter{Base: base, Cap: cap, Width: 1},
		retry.Constant{Base: base},
		retry.Immediate{},
	} {
		r := seeded(1)
		fmt.Printf("%-13s", p.(interface{ Name() string }).Name())
		var prev time.Duration
		for n := range 5 {
			prev = p.Delay(n, prev, r)
			fmt.Printf("%8v", prev.Round(time.Millisecond))
		}
		fmt.Println()
	}
	// Output:
	// exponential     100ms   200ms   400ms   800ms    1.6s
	// full             24ms   100ms    20ms   392ms    1.2s
	// equal            62ms   150ms   210ms   596ms    1.4s
	// decorrelated    148ms   272ms   136ms   250ms   588ms
	// uniform          74ms   200ms   220ms   792ms      2s
	// constant        100ms   100ms   100ms   100ms   100ms
	// immediate          0s      0s      0s      0s      0s
}
