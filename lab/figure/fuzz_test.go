package figure_test

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/backofflab/backofflab/lab/figure"
	"github.com/backofflab/backofflab/lab/interactive"
	"github.com/backofflab/backofflab/lab/static"
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

// FuzzHistogram checks that any histogram either validates and both
// renderers draw it, or is refused with an error by both; never a panic.
func FuzzHistogram(f *testing.F) {
	f.Add(int64(200*time.Millisecond), []byte{0, 0, 0, 0, 0, 0, 0xf0, 0x3f}, 0.0, 1.0)
	f.Add(int64(0), []byte{}, -1.0, math.NaN())
	f.Add(int64(-5), []byte{0, 0, 0, 0, 0, 0, 0xf8, 0x7f}, math.Inf(1), 2.0)
	f.Fuzz(func(t *testing.T, slot int64, counts []byte, yMax, spanTo float64) {
		h := figure.Histogram{Slot: time.Duration(slot), Counts: floats(counts), YMax: yMax, Spans: []figure.Span{{From: 0, To: spanTo}}}
		err := h.Validate()
		if len(h.Counts) <= 64 { // keep the fuzz loop fast
			if _, err2 := interactive.HTML(h); (err == nil) != (err2 == nil) {
				t.Fatalf("Validate error %v but HTML error %v", err, err2)
			}
			if _, err3 := static.PNG(h); err == nil && err3 != nil && !isRange(err3) {
				t.Fatalf("valid histogram, PNG error %v", err3)
			} else if err != nil && err3 == nil {
				t.Fatalf("Validate error %v but PNG drew", err)
			}
		}
	})
}

// FuzzLines checks series validation on arbitrary values.
func FuzzLines(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0xf0, 0x3f}, []byte{0, 0, 0, 0, 0, 0, 0xf0, 0x3f}, true, false)
	f.Add([]byte{}, []byte{0, 0, 0, 0, 0, 0, 0xf0, 0x3f}, false, true)
	f.Fuzz(func(t *testing.T, xb, yb []byte, logX, step bool) {
		l := figure.Lines{Series: []figure.Series{{Name: "s", X: floats(xb), Y: floats(yb)}}, LogX: logX, Step: step}
		err := l.Validate()
		if _, err2 := interactive.HTML(l); (err == nil) != (err2 == nil) {
			t.Fatalf("Validate error %v but HTML error %v", err, err2)
		}
		if len(l.Series[0].X) <= 64 {
			if _, err3 := static.PNG(l); err == nil && err3 != nil && !isRange(err3) {
				t.Fatalf("valid lines, PNG error %v", err3)
			} else if err != nil && err3 == nil {
				t.Fatalf("Validate error %v but PNG drew", err)
			}
		}
	})
}

// isRange reports an error about a range gonum/plot cannot draw (values so
// far apart that their span overflows), which only the static renderer
// refuses: echarts draws it.
func isRange(err error) bool { return strings.Contains(err.Error(), "too wide to draw") }
