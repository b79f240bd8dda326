package lcg

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestFirstDrawsFromSeedZero(t *testing.T) {
	// s1 = 12345; s2 = (1103515245*12345 + 12345) mod 2^31 = 1406932606.
	var g LCG
	if got := g.Next(); got != 12345 {
		t.Fatalf("first draw from seed 0 = %d, want 12345", got)
	}
	if got := g.Next(); got != 1406932606 {
		t.Fatalf("second draw from seed 0 = %d, want 1406932606", got)
	}
}

func TestFloat64IsNewStateOver2To31(t *testing.T) {
	g := MustNew(1513241)
	want := float64((uint64(Multiplier)*1513241+Increment)%Modulus) / Modulus
	if got := g.Float64(); got != want {
		t.Fatalf("Float64 = %v, want %v", got, want)
	}
}

func TestFloat64Range(t *testing.T) {
	g := MustNew(42)
	sum := 0.0
	const n = 200000
	for i := 0; i < n; i++ {
		u := g.Float64()
		if u < 0 || u >= 1 {
			t.Fatalf("draw %d = %v, outside [0,1)", i, u)
		}
		sum += u
	}
	if mean := sum / n; math.Abs(mean-0.5) > 0.01 {
		t.Fatalf("mean of %d draws = %v, want 0.5 ± 0.01", n, mean)
	}
}

func TestNewRejectsSeedsThatDoNotFit(t *testing.T) {
	for _, s := range []int64{-1, Modulus, math.MaxInt64} {
		if _, err := New(s); err == nil {
			t.Errorf("New(%d) gave no error", s)
		}
	}
	if _, err := New(Modulus - 1); err != nil {
		t.Errorf("New(2^31-1): %v", err)
	}
}

func TestSourceDrivesRand(t *testing.T) {
	r1 := rand.New(MustNew(7))
	r2 := rand.New(MustNew(7))
	for i := 0; i < 100; i++ {
		if a, b := r1.IntN(1000), r2.IntN(1000); a != b {
			t.Fatalf("same seed, draw %d differs: %d vs %d", i, a, b)
		}
	}
}

func FuzzNew(f *testing.F) {
	f.Add(int64(0))
	f.Add(int64(-5))
	f.Add(int64(Modulus))
	f.Fuzz(func(t *testing.T, seed int64) {
		g, err := New(seed)
		if (seed >= 0 && seed < Modulus) != (err == nil) {
			t.Fatalf("New(%d) error = %v", seed, err)
		}
		if err == nil {
			if u := g.Float64(); u < 0 || u >= 1 {
				t.Fatalf("draw %v outside [0,1)", u)
			}
		}
	})
}

func BenchmarkNext(b *testing.B) {
	g := MustNew(1)
	var s uint32
	for b.Loop() {
		s += g.Next()
	}
	_ = s
}

func BenchmarkFloat64(b *testing.B) {
	g := MustNew(1)
	var s float64
	for b.Loop() {
		s += g.Float64()
	}
	_ = s
}

func BenchmarkUint64(b *testing.B) {
	g := MustNew(1)
	var s uint64
	for b.Loop() {
		s += g.Uint64()
	}
	_ = s
}
