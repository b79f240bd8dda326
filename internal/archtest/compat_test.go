package archtest

import (
	"math"
	"testing"
	"time"

	"github.com/backofflab/backofflab/lab/lcg"
	"github.com/backofflab/backofflab/lab/schedule"
	"github.com/backofflab/backofflab/retry"
)

// Every schedule policy is a retry.Policy: schedule.Uniform and
// retry.Uniform are one type. This does not compile otherwise.
var (
	_ retry.Policy    = schedule.Exponential{}
	_ retry.Policy    = schedule.FullJitter{}
	_ retry.Policy    = schedule.EqualJitter{}
	_ retry.Policy    = schedule.Decorrelated{}
	_ retry.Policy    = schedule.UniformJitter{}
	_ retry.Policy    = schedule.Constant{}
	_ retry.Policy    = schedule.Immediate{}
	_ retry.Policy    = schedule.Policy(nil)
	_ schedule.Policy = retry.FullJitter{}
	_ retry.Uniform   = (*lcg.LCG)(nil)
)

// Every named policy can drive a Retrier as it is.
func TestEverySchedulePolicyValidatesInRetry(t *testing.T) {
	for _, name := range schedule.Names() {
		t.Run(name, func(t *testing.T) {
			base := 10 * time.Millisecond
			if name == schedule.NameImmediate {
				base = 0
			}
			p, err := schedule.New(schedule.Config{Name: name, Base: base, Cap: time.Second})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := retry.New(retry.Config{Policy: p}); err != nil {
				t.Errorf("retry.New with schedule %s: %v", name, err)
			}
		})
	}
}

// fixed is a Uniform that always draws the same number.
type fixed float64

func (f fixed) Float64() float64 { return float64(f) }

// retry's FullJitter waits exactly what schedule's does on the same draws,
// out-of-range draws and windows included.
func TestFullJitterMatchesSchedule(t *testing.T) {
	draws := []float64{0, 1e-9, 0.25, 0.5, math.Nextafter(1, 0), 1, 7, -1, math.NaN(), math.Inf(1)}
	g := lcg.MustNew(lcg.DefaultSeed)
	for range 200 {
		draws = append(draws, g.Float64())
	}
	for _, tc := range []struct {
		name      string
		base, cap time.Duration
	}{
		{"default", 100 * time.Millisecond, 10 * time.Second},
		{"uncapped", time.Millisecond, 0},
		{"cap equals base", time.Second, time.Second},
		{"1ns base", 1, 0},
		{"huge base", math.MaxInt64 / 3, 0},
		{"odd numbers", 7 * time.Microsecond, 333 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := retry.FullJitter{Base: tc.base, Cap: tc.cap}
			s := schedule.FullJitter{Base: tc.base, Cap: tc.cap}
			for _, n := range []int{-3, 0, 1, 2, 5, 17, 62, 63, 64, 65, 1000, math.MaxInt} {
				if got, want := r.Ceiling(n), s.Ceiling(n); got != want {
					t.Fatalf("Ceiling(%d) = %v, schedule says %v", n, got, want)
				}
				for _, u := range draws {
					if got, want := r.Delay(n, 0, fixed(u)), s.Delay(n, 0, fixed(u)); got != want {
						t.Fatalf("Delay(%d) on draw %v = %v, schedule says %v", n, u, got, want)
					}
				}
				if got, want := r.Delay(n, 0, nil), s.Delay(n, 0, nil); got != want {
					t.Fatalf("Delay(%d) with a nil Uniform = %v, schedule says %v", n, got, want)
				}
			}
			if r.String() != s.String() {
				t.Errorf("String() = %q, schedule says %q", r.String(), s.String())
			}
			if (r.Validate() == nil) != (s.Validate() == nil) {
				t.Errorf("Validate: retry says %v, schedule says %v", r.Validate(), s.Validate())
			}
		})
	}
}

// The seeded sequences agree too, call for call, for retry's default.
func TestDefaultPolicyMatchesScheduleFullJitter(t *testing.T) {
	s := schedule.FullJitter{Base: 100 * time.Millisecond, Cap: 10 * time.Second}
	a, b := lcg.MustNew(7), lcg.MustNew(7)
	for n := range 40 {
		if got, want := retry.DefaultPolicy.Delay(n, 0, a), s.Delay(n, 0, b); got != want {
			t.Fatalf("retry %d: DefaultPolicy waits %v, schedule.FullJitter %v", n, got, want)
		}
	}
}

// Validation agrees on the invalid settings as well.
func TestFullJitterValidateMatchesSchedule(t *testing.T) {
	for _, tc := range []struct {
		name      string
		base, cap time.Duration
	}{{"zero base", 0, 0}, {"negative base", -1, 0}, {"negative cap", 1, -1}, {"cap below base", 2, 1}} {
		t.Run(tc.name, func(t *testing.T) {
			r := retry.FullJitter{Base: tc.base, Cap: tc.cap}.Validate()
			s := schedule.FullJitter{Base: tc.base, Cap: tc.cap}.Validate()
			if r == nil || s == nil {
				t.Errorf("Validate: retry says %v, schedule says %v: want both to refuse", r, s)
			}
		})
	}
}
