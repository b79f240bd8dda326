package explore

import (
	"fmt"
	"time"

	"github.com/backofflab/backofflab/lab/cohort"
	"github.com/backofflab/backofflab/lab/figure"
	"github.com/backofflab/backofflab/lab/schedule"
)

// BoardStep is the distance between two positions of the In Phase board's
// playhead: one cohort.Bucket, a bar of the calls panel.
const BoardStep = cohort.Bucket

// InPhaseBoard returns the In Phase board: c run once under each policy
// of policies (same seed), laid out by cohort.NewBoard on one time ruler.
// A scoreboard, one button per policy that prints the run's finish, calls
// and idle time, switches all three panels (Board.Calls, Board.InFlight,
// Board.Lanes) to that policy's run; a playhead plays the run over the
// ruler in steps of [BoardStep], moving a cursor across the three panels
// and printing on every policy's button, at the cursor's time t, the calls
// made at or before t, the clients answered (admitted calls completed) by
// t and the calls in flight at t.
func InPhaseBoard(c cohort.Config, policies []schedule.Named) (figure.Explorable, error) {
	b, err := cohort.NewBoard(c, policies)
	if err != nil {
		return figure.Explorable{}, err
	}
	labels := make([]string, len(b.Names))
	notes := make([]string, len(b.Names))
	for i, n := range b.Names {
		r := b.Results[i]
		labels[i] = schedule.Label(n)
		notes[i] = fmt.Sprintf("%v · %d calls · idle %v", r.Finish, r.Calls, r.Idle)
		if r.Unfinished > 0 {
			notes[i] = fmt.Sprintf("%d unfinished · %d calls · idle %v", r.Unfinished, r.Calls, r.Idle)
		}
	}
	steps := int((b.End+BoardStep-1)/BoardStep) + 1 // the calls panel has steps-1 bars
	ph := &figure.Playhead{Label: "time", Unit: "s", Start: 0, End: (time.Duration(steps-1) * BoardStep).Seconds(),
		Step: BoardStep.Seconds(), Tallies: []figure.Tally{{Name: "calls"}, {Name: "answered"}, {Name: "in flight"}}}
	e := figure.Explorable{Controls: []figure.Control{{Label: "policy", Values: labels, Notes: notes, Buttons: true}}, Playhead: ph}
	for i, n := range b.Names {
		calls, err := b.Calls(n)
		if err != nil {
			return figure.Explorable{}, err
		}
		inFlight, _ := b.InFlight(n)
		lanes, _ := b.Lanes(n)
		for k := range inFlight.VLines { // the calls panel names the finishes
			inFlight.VLines[k].Label, lanes.VLines[k].Label = "", ""
		}
		for k := range lanes.Spans { // and the outage, which the lanes' marks would cover
			lanes.Spans[k].Label = ""
		}
		r := b.Results[i]
		e.Frames = append(e.Frames, figure.Frame{Panels: []figure.Figure{calls, inFlight, lanes},
			Readout: fmt.Sprintf("%s, seed %d: finished at %v after %d calls (%d during the outage), idle %v, worst 100 ms %d calls",
				labels[i], c.Seed, r.Finish, r.Calls, r.CallsOutage, r.Idle, r.PeakPer100ms)})
		for k, counts := range tallies(b.Traces[i], steps) {
			ph.Tallies[k].Counts = append(ph.Tallies[k].Counts, counts)
		}
	}
	return e, nil
}

// tallies returns, at each of steps times 0, BoardStep, 2·BoardStep, …,
// the calls made at or before it, the admitted calls completed by then,
// and the calls in flight then (Trace.InFlight's value at that time).
func tallies(tr *cohort.Trace, steps int) [3][]int {
	var out [3][]int
	for k := range out {
		out[k] = make([]int, steps)
	}
	flight := tr.InFlight()
	a, f := 0, 0
	var done []time.Duration
	for s := range steps {
		t := time.Duration(s) * BoardStep
		for ; a < len(tr.Attempts) && tr.Attempts[a].At <= t; a++ {
			if tr.Attempts[a].Admitted {
				done = append(done, tr.Attempts[a].At+tr.Service)
			}
		}
		answered := 0
		for _, d := range done {
			if d <= t {
				answered++
			}
		}
		for f+1 < len(flight) && flight[f+1].At <= t {
			f++
		}
		out[0][s], out[1][s], out[2][s] = a, answered, flight[f].InFlight
	}
	return out
}
