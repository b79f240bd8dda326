package explore

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/backofflab/backofflab/lab/cohort"
	"github.com/backofflab/backofflab/lab/figure"
	"github.com/backofflab/backofflab/lab/interactive"
)

// Every frame of the board is the lab's run of its policy, the same three
// panels as cohort.Board's; the tallies start with every first call and end
// with the run's totals.
func TestInPhaseBoardFramesAreTheLabsRuns(t *testing.T) {
	c, lineup := cohort.Lesson(), cohort.Lineup()
	e, err := InPhaseBoard(c, lineup)
	if err != nil {
		t.Fatal(err)
	}
	b, err := cohort.NewBoard(c, lineup)
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Frames) != len(lineup) || len(e.Controls) != 1 || !e.Controls[0].Buttons || len(e.Controls[0].Notes) != len(lineup) {
		t.Fatalf("%d frames, controls %+v; want one button per policy with its note", len(e.Frames), e.Controls)
	}
	ph := e.Playhead
	n := ph.Positions()
	if ph.End < b.End.Seconds() || ph.End-ph.Step >= b.End.Seconds() || ph.Step != BoardStep.Seconds() {
		t.Errorf("playhead %v to %v in %v, want the ruler's end %v within its last step", ph.Start, ph.End, ph.Step, b.End)
	}
	for i, name := range b.Names {
		r := b.Results[i]
		calls := e.Frames[i].Panels[0].(figure.Histogram)
		want, _ := b.Calls(name)
		total := 0.0
		for k := range calls.Layers[0].Counts {
			if calls.Layers[0].Counts[k] != want.Layers[0].Counts[k] || calls.Layers[1].Counts[k] != want.Layers[1].Counts[k] {
				t.Fatalf("%s: bucket %d differs from the board's", name, k)
			}
			total += calls.Layers[0].Counts[k] + calls.Layers[1].Counts[k]
		}
		if int(total) != r.Calls {
			t.Errorf("%s: the calls panel holds %v calls, the run made %d", name, total, r.Calls)
		}
		if lanes := e.Frames[i].Panels[2].(figure.Scatter); len(lanes.Series[0].X)+len(lanes.Series[len(lanes.Series)-1].X) != r.Calls {
			t.Errorf("%s: the lanes hold %d+%d marks, want %d", name, len(lanes.Series[0].X), len(lanes.Series[len(lanes.Series)-1].X), r.Calls)
		}
		if len(calls.Layers[0].Counts) != n-1 {
			t.Errorf("%s: %d bars, want one per step of the playhead (%d)", name, len(calls.Layers[0].Counts), n-1)
		}
		if title := e.Frames[i].Panels[1].(figure.Lines).Title; !strings.Contains(title, "in all") {
			t.Errorf("%s: in-flight panel titled %q", name, title)
		}
		if !strings.Contains(e.Controls[0].Notes[i], r.Finish.String()) || !strings.Contains(e.Frames[i].Readout, r.Finish.String()) {
			t.Errorf("%s: note %q, readout %q; want the finish %v", name, e.Controls[0].Notes[i], e.Frames[i].Readout, r.Finish)
		}
		first, last := []int{ph.Tallies[0].Counts[i][0], ph.Tallies[1].Counts[i][0]}, []int{ph.Tallies[0].Counts[i][n-1], ph.Tallies[1].Counts[i][n-1], ph.Tallies[2].Counts[i][n-1]}
		if first[0] != c.Clients || first[1] != 0 {
			t.Errorf("%s: at 0 the tallies are %v calls and answered, want %d and 0", name, first, c.Clients)
		}
		if last[0] != r.Calls || last[1] != c.Clients-r.Unfinished || last[2] != 0 {
			t.Errorf("%s: at the end the tallies are %v, want %d calls, %d answered, 0 in flight", name, last, r.Calls, c.Clients-r.Unfinished)
		}
		for k := 1; k < n; k++ {
			if ph.Tallies[0].Counts[i][k] < ph.Tallies[0].Counts[i][k-1] || ph.Tallies[1].Counts[i][k] < ph.Tallies[1].Counts[i][k-1] || ph.Tallies[2].Counts[i][k] > c.Limit {
				t.Fatalf("%s: tallies at step %d break their order or the limit", name, k)
			}
		}
	}
	html, err := interactive.HTML(e)
	if err != nil {
		t.Fatal(err)
	}
	// Every panel on one ruler labelled every 5 s (every 50th slot of the
	// calls panel), without zoom, its bars and marks in large mode.
	for _, want := range []string{`"large":true`, fmt.Sprintf(`"max":%v`, ph.End), `"interval":function (i) { return i % 50 === 0; }`, `"minInterval":5,"maxInterval":5`} {
		if !strings.Contains(html, want) {
			t.Errorf("the board's fragment lacks %s", want)
		}
	}
	if strings.Contains(html, `"dataZoom"`) {
		t.Error("a board panel zooms; want the panels on one ruler")
	}
	if _, err := InPhaseBoard(c, nil); err == nil || !strings.Contains(err.Error(), "policy") {
		t.Errorf("InPhaseBoard with no policies: %v", err)
	}
}

// The tallies at one step agree with the trace counted directly.
func TestTalliesCountTheTrace(t *testing.T) {
	_, tr, err := cohort.RunTraced(cohort.Lesson())
	if err != nil {
		t.Fatal(err)
	}
	steps := int(tr.End/BoardStep) + 2
	got := tallies(tr, steps)
	for _, s := range []int{0, 30, 31, steps / 2, steps - 1} {
		at := time.Duration(s) * BoardStep
		calls, answered, flight := 0, 0, 0
		for _, a := range tr.Attempts {
			if a.At <= at {
				calls++
				if a.Admitted && a.At+tr.Service <= at {
					answered++
				}
				if a.Admitted && a.At+tr.Service > at {
					flight++
				}
			}
		}
		if got[0][s] != calls || got[1][s] != answered || got[2][s] != flight {
			t.Errorf("at %v: tallies %d, %d, %d; the trace counts %d calls, %d answered, %d in flight", at, got[0][s], got[1][s], got[2][s], calls, answered, flight)
		}
	}
}
