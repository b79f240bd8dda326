package metrics

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestClipKeepsAtMostTheLimitAndAddsUp(t *testing.T) {
	h := Histogram{Slot: 200 * time.Millisecond, Counts: []int{0, 615, 240, 239, 1000}}
	kept, excess, err := h.Clip(240)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{0, 240, 240, 239, 240}; !slices.Equal(kept.Counts, want) {
		t.Errorf("kept = %v, want %v", kept.Counts, want)
	}
	if want := []int{0, 375, 0, 0, 760}; !slices.Equal(excess.Counts, want) {
		t.Errorf("excess = %v, want %v", excess.Counts, want)
	}
	if kept.Slot != h.Slot || excess.Slot != h.Slot {
		t.Errorf("slots %v, %v, want %v", kept.Slot, excess.Slot, h.Slot)
	}
	if kept.Total()+excess.Total() != h.Total() {
		t.Errorf("kept %d + excess %d != %d", kept.Total(), excess.Total(), h.Total())
	}
	h.Counts[1] = 1
	if kept.Counts[1] != 240 {
		t.Error("Clip's result shares memory with its input")
	}
}

func TestClipRejectsANegativeLimit(t *testing.T) {
	_, _, err := Histogram{Slot: time.Second, Counts: []int{1}}.Clip(-1)
	if err == nil || !containsAll(err.Error(), "limit", ">= 0") {
		t.Errorf("Clip(-1) error = %v, want one naming the limit and its range", err)
	}
	kept, excess, err := Histogram{Slot: time.Second, Counts: []int{3}}.Clip(0)
	if err != nil || kept.Counts[0] != 0 || excess.Counts[0] != 3 {
		t.Errorf("Clip(0) = %v, %v, %v; want everything in excess", kept.Counts, excess.Counts, err)
	}
}

func TestSpreadOf(t *testing.T) {
	s := SpreadOf([]float64{2, 4, 4, 4, 5, 5, 7, 9})
	if s.N != 8 || s.Mean != 5 || s.Min != 2 || s.Max != 9 {
		t.Errorf("SpreadOf = %+v", s)
	}
	if want := math.Sqrt(32.0 / 7); math.Abs(s.SD-want) > 1e-12 {
		t.Errorf("SD = %v, want the sample standard deviation %v", s.SD, want)
	}
	if got := SpreadOf(nil); got != (Spread{}) {
		t.Errorf("SpreadOf(nil) = %+v, want the zero Spread", got)
	}
	if got := SpreadOf([]float64{3}); got != (Spread{N: 1, Mean: 3, Min: 3, Max: 3}) {
		t.Errorf("SpreadOf one value = %+v", got)
	}
}

func TestSpreadString(t *testing.T) {
	for _, tc := range []struct {
		s    Spread
		want string
	}{
		{Spread{N: 5000, Mean: 937.195, SD: 47.96, Min: 781, Max: 1115}, "937 ± 48 (n = 5000, 781 to 1115)"},
		{Spread{N: 5000, Mean: 3.2612, SD: 0.0877, Min: 2.97, Max: 3.6}, "3.261 ± 0.088 (n = 5000, 2.970 to 3.600)"},
		{Spread{N: 1, Mean: 3.25, Min: 3.25, Max: 3.25}, "3.25 ± 0 (n = 1, 3.25 to 3.25)"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			if got := tc.s.String(); got != tc.want {
				t.Errorf("String() = %q", got)
			}
		})
	}
}

func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

// Clip never panics; kept and excess add up to the histogram and kept
// never exceeds the limit.
func FuzzClip(f *testing.F) {
	f.Add([]byte{0, 5, 250, 3}, 4)
	f.Add([]byte{}, 0)
	f.Add([]byte{1}, -1)
	f.Fuzz(func(t *testing.T, counts []byte, limit int) {
		h := Histogram{Slot: time.Millisecond}
		for _, c := range counts {
			h.Counts = append(h.Counts, int(c))
		}
		kept, excess, err := h.Clip(limit)
		if limit < 0 {
			if err == nil {
				t.Fatal("negative limit: no error")
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		for k, c := range h.Counts {
			if kept.Counts[k]+excess.Counts[k] != c || kept.Counts[k] > limit || excess.Counts[k] < 0 {
				t.Fatalf("slot %d: %d kept + %d excess from %d at limit %d", k, kept.Counts[k], excess.Counts[k], c, limit)
			}
		}
	})
}
