package chart

import (
	"encoding/binary"
	"math"
	"testing"
	"time"
)

// floats decodes b as little-endian float64s (any bit pattern, so NaN,
// infinities and huge values appear).
func floats(b []byte) []float64 {
	out := make([]float64, len(b)/8)
	for i := range out {
		out[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return out
}

// FuzzHistogram checks that any histogram either validates and builds both
// renderings' inputs, or is refused with an error; never a panic.
func FuzzHistogram(f *testing.F) {
	f.Add(int64(200*time.Millisecond), []byte{0, 0, 0, 0, 0, 0, 0xf0, 0x3f}, 0.0, 1.0)
	f.Add(int64(0), []byte{}, -1.0, math.NaN())
	f.Add(int64(-5), []byte{0, 0, 0, 0, 0, 0, 0xf8, 0x7f}, math.Inf(1), 2.0)
	f.Fuzz(func(t *testing.T, slot int64, counts []byte, yMax, spanTo float64) {
		h := Histogram{Slot: time.Duration(slot), Counts: floats(counts), YMax: yMax, Spans: []Span{{From: 0, To: spanTo}}}
		p, err := h.Plot()
		if err == nil && p == nil {
			t.Fatal("nil plot and nil error")
		}
		if len(h.Counts) <= 64 { // keep the fuzz loop fast
			if _, err2 := h.HTML(); (err == nil) != (err2 == nil) {
				t.Fatalf("Plot error %v but HTML error %v", err, err2)
			}
			if _, err3 := h.PNG(); (err == nil) != (err3 == nil) {
				t.Fatalf("Plot error %v but PNG error %v", err, err3)
			}
		}
	})
}

// FuzzLines checks series validation on arbitrary values.
func FuzzLines(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0xf0, 0x3f}, []byte{0, 0, 0, 0, 0, 0, 0xf0, 0x3f}, true, false)
	f.Add([]byte{}, []byte{0, 0, 0, 0, 0, 0, 0xf0, 0x3f}, false, true)
	f.Fuzz(func(t *testing.T, xb, yb []byte, logX, step bool) {
		l := Lines{Series: []Series{{Name: "s", X: floats(xb), Y: floats(yb)}}, LogX: logX, Step: step}
		p, err := l.Plot()
		if err == nil && p == nil {
			t.Fatal("nil plot and nil error")
		}
		if _, err2 := l.HTML(); (err == nil) != (err2 == nil) {
			t.Fatalf("Plot error %v but HTML error %v", err, err2)
		}
		if len(l.Series[0].X) <= 64 {
			if _, err3 := l.PNG(); (err == nil) != (err3 == nil) {
				t.Fatalf("Plot error %v but PNG error %v", err, err3)
			}
		}
	})
}
