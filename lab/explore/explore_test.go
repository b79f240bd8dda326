package explore

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/backofflab/backofflab/lab/figure"
	"github.com/backofflab/backofflab/lab/interactive"
	"github.com/backofflab/backofflab/lab/schedule"
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
		r, err := waves.Run(waves.Lesson().WithJitter(float64(p) / 100))
		if err != nil {
			t.Fatal(err)
		}
		h := e.Frames[i].Panels[0].(figure.Histogram)
		for k, n := range r.Histogram.Counts {
			if h.Counts[k] != float64(n) {
				t.Fatalf("%d%%: slot %d holds %v, the lab counts %d", p, k, h.Counts[k], n)
			}
		}
		peak := fmt.Sprintf("peak %v/s", r.Peak().PerSecond())
		if !strings.Contains(e.Frames[i].Readout, peak) || !strings.Contains(h.Title, peak) {
			t.Errorf("%d%%: readout %q, title %q, want %s", p, e.Frames[i].Readout, h.Title, peak)
		}
		marked := e.Frames[i].Panels[1].(figure.Lines).Series[1]
		if math.Abs(marked.X[0]-float64(p)) > 1e-9 || marked.Y[0] != r.Peak().PerSecond() {
			t.Errorf("%d%%: marked point (%v, %v), want (%d, %v)", p, marked.X[0], marked.Y[0], p, r.Peak().PerSecond())
		}
	}
	if _, err := interactive.HTML(e); err != nil {
		t.Fatal(err)
	}
}

// The other explorables: one frame per setting, each drawable, and bad
// arguments refused with an error naming them.
func TestExplorablesBuild(t *testing.T) {
	slot, err := SlotWidth()
	if err != nil || len(slot.Frames) != len(waves.SlotWidths()) {
		t.Fatalf("SlotWidth: %d frames, %v", len(slot.Frames), err)
	}
	capacity, err := Capacity(CapacityBases(), []int{500, 2000})
	if err != nil || len(capacity.Frames) != 2*len(CapacityBases()) {
		t.Fatalf("Capacity: %d frames, %v", len(capacity.Frames), err)
	}
	// Row-major: base 1 s with 2000 clients (index 1) is the exercise's run,
	// and the slider reaches 2.7 s, the first base the lesson finds fitting.
	for _, tc := range []struct {
		base time.Duration
		want string
	}{{time.Second, "base 1s, 2000 clients: peak 3075/s"}, {2700 * time.Millisecond, "base 2.7s, 2000 clients: peak 1190/s"}} {
		i := slices.Index(CapacityBases(), tc.base)
		if i < 0 {
			t.Errorf("CapacityBases %v lacks %v", CapacityBases(), tc.base)
			continue
		}
		if r := capacity.Frames[i*2+1].Readout; !strings.Contains(r, tc.want) {
			t.Errorf("Capacity at %v and 2000 clients: %q, want %q", tc.base, r, tc.want)
		}
	}
	strategies, err := Strategies(StrategyCaps())
	if err != nil || len(strategies.Frames) != 4*len(StrategyCaps()) {
		t.Fatalf("Strategies: %d frames, %v", len(strategies.Frames), err)
	}
	if got := strategies.Controls[0].Values; len(got) != 4 || got[0] != schedule.Label(schedule.NameExponential) || got[1] != schedule.Label(schedule.NameFull) {
		t.Errorf("Strategies buttons %q, want the lineup's labels, exponential (no jitter) then full jitter first", got)
	}
	if r := strategies.Frames[len(StrategyCaps())].Readout; !strings.HasPrefix(r, "full jitter, cap 1s: ") {
		t.Errorf("Strategies readout %q, want it to start with the label of full jitter and the cap", r)
	}
	for _, e := range []figure.Explorable{slot, capacity, strategies} {
		if _, err := interactive.HTML(e); err != nil {
			t.Error(err)
		}
	}
	if _, err := Capacity(nil, []int{1}); err == nil || !strings.Contains(err.Error(), "base") {
		t.Errorf("Capacity(nil, …): %v", err)
	}
	if _, err := Strategies(nil); err == nil || !strings.Contains(err.Error(), "cap") {
		t.Errorf("Strategies(nil): %v", err)
	}
}
