package explore

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/backofflab/backofflab/lab/chart"
	"github.com/backofflab/backofflab/lab/waves"
)

// Every frame of the jitter explorable is the lab's run at its width: the
// same counts, the same peak in the readout, the point marked on the curve.
func TestJitterWidthFramesAreTheLabsRuns(t *testing.T) {
	e, err := JitterWidth()
	if err != nil {
		t.Fatal(err)
	}
	percents := JitterPercents()
	if len(e.Frames) != len(percents) || len(e.Controls[0].Values) != len(percents) {
		t.Fatalf("%d frames, %d values; want %d", len(e.Frames), len(e.Controls[0].Values), len(percents))
	}
	for i, p := range percents {
		c := waves.Lesson()
		c.Jitter = float64(p) / 100
		r, err := waves.Run(c)
		if err != nil {
			t.Fatal(err)
		}
		h := e.Frames[i].Panels[0].(chart.Histogram)
		for k, n := range r.Histogram.Counts {
			if h.Counts[k] != float64(n) {
				t.Fatalf("%d%%: slot %d holds %v, the lab counts %d", p, k, h.Counts[k], n)
			}
		}
		peak := fmt.Sprintf("peak %v/s", r.Peak().PerSecond())
		if !strings.Contains(e.Frames[i].Readout, peak) || !strings.Contains(h.Title, peak) {
			t.Errorf("%d%%: readout %q, title %q, want %s", p, e.Frames[i].Readout, h.Title, peak)
		}
		marked := e.Frames[i].Panels[1].(chart.Lines).Series[1]
		if math.Abs(marked.X[0]-float64(p)) > 1e-9 || marked.Y[0] != r.Peak().PerSecond() {
			t.Errorf("%d%%: marked point (%v, %v), want (%d, %v)", p, marked.X[0], marked.Y[0], p, r.Peak().PerSecond())
		}
	}
	if _, err := e.HTML(); err != nil {
		t.Fatal(err)
	}
}
