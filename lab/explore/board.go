package explore

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/backofflab/backofflab/lab/chart"
	"github.com/backofflab/backofflab/lab/cohort"
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
func InPhaseBoard(c cohort.Config, policies []schedule.Named) (chart.Explorable, error) {
	b, err := cohort.NewBoard(c, policies)
	if err != nil {
		return chart.Explorable{}, err
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
	ph := &chart.Playhead{Label: "time", Unit: "s", Start: 0, End: (time.Duration(steps-1) * BoardStep).Seconds(),
		Step: BoardStep.Seconds(), Tallies: []chart.Tally{{Name: "calls"}, {Name: "answered"}, {Name: "in flight"}}}
	e := chart.Explorable{Controls: []chart.Control{{Label: "policy", Values: labels, Notes: notes, Buttons: true}}, Playhead: ph}
	for i, n := range b.Names {
		calls, err := b.Calls(n)
		if err != nil {
			return chart.Explorable{}, err
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
		e.Frames = append(e.Frames, chart.Frame{Panels: []chart.Drawable{onRuler{calls, ph.End, true}, onRuler{inFlight, ph.End, false}, onRuler{lanes, ph.End, false}},
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

// onRuler is a figure of the board drawn on the calls panel's time ruler,
// which runs from 0 to End (the end of the calls panel's last bar), so
// that the panels' times line up and the playhead's cursor crosses them at
// one x. Every panel labels the ruler at the same round steps (see
// [rulerStep]): a value axis from 0 to End, without a label at End itself,
// off those steps; the calls panel's category axis (Category, one
// category a BoardStep) at the slots that start on a step.
//
// The board redraws all three panels at every click, so each is made
// cheap to draw: its bars and marks in echarts' large mode (all marks of a
// series as one path), and no zoom: zooming one panel would take it off the
// ruler the others share, and its slider redraws a preview of the data at
// every switch.
type onRuler struct {
	chart.Drawable
	End      float64
	Category bool
}

// noZoomRoom is the height, in pixels, of the zoom slider's room that a
// board panel does without.
const noZoomRoom = 36

// rulerStep returns the round step, 1, 2 or 5 times a power of ten, that
// labels a ruler of span units at most six times.
func rulerStep(span float64) float64 {
	for p := 0.01; ; p *= 10 {
		for _, m := range []float64{1, 2, 5} {
			if span/(m*p) <= 6 {
				return m * p
			}
		}
	}
}

// Height returns the figure's height without the zoom slider's room.
func (d onRuler) Height() int { return d.Drawable.Height() - noZoomRoom }

// Option returns the figure's option on the ruler, without zoom, its bars
// and marks in large mode.
func (d onRuler) Option() (json.RawMessage, error) {
	raw, err := d.Drawable.Option()
	if err != nil {
		return nil, err
	}
	var o map[string]json.RawMessage
	var axes, series []map[string]json.RawMessage
	var grid map[string]int
	if err := errors.Join(json.Unmarshal(raw, &o), json.Unmarshal(o["xAxis"], &axes), json.Unmarshal(o["series"], &series), json.Unmarshal(o["grid"], &grid)); err != nil {
		return nil, err
	}
	step := rulerStep(d.End)
	for _, ax := range axes {
		if d.Category {
			every := strconv.Itoa(int(math.Round(step/BoardStep.Seconds())) - 1)
			ax["axisLabel"] = json.RawMessage(`{"interval":` + every + `}`)
			// A tick at every slot, not drawn: echarts puts the ends of
			// a bar series' mark areas (the outage) on the axis's ticks.
			ax["axisTick"] = json.RawMessage(`{"show":false,"interval":0}`)
			continue
		}
		ax["min"], ax["max"] = json.RawMessage("0"), json.RawMessage(strconv.FormatFloat(d.End, 'f', -1, 64))
		ax["interval"] = json.RawMessage(strconv.FormatFloat(step, 'f', -1, 64))
		ax["axisLabel"] = json.RawMessage(`{"showMaxLabel":false}`)
	}
	for _, ser := range series {
		var kind string
		_ = json.Unmarshal(ser["type"], &kind)
		if kind == "bar" || kind == "scatter" {
			ser["large"], ser["largeThreshold"] = json.RawMessage("true"), json.RawMessage("100")
		}
	}
	delete(o, "dataZoom")
	o["legend"] = json.RawMessage(`{"show":true,"top":28}`) // a plain legend: a few names need no scrolling
	grid["bottom"] -= noZoomRoom
	o["xAxis"], _ = json.Marshal(axes)
	o["series"], _ = json.Marshal(series)
	o["grid"], _ = json.Marshal(grid)
	return json.Marshal(o)
}
