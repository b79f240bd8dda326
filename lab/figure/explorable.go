package figure

import (
	"errors"
	"fmt"
	"math"
)

// Control is one input of an [Explorable]: a slider (moved by dragging or
// with the arrow keys) over Values, or, with Buttons, one button per value.
type Control struct {
	// Label names what the control sets, such as "jitter width"; the page
	// labels the control with it.
	Label string
	// Values are the settings the control spans, as the page prints them
	// beside the control ("25%", "1s"), in order. At least one.
	Values []string
	// Start is the index in Values the page starts at.
	Start int
	// Buttons shows one button per value instead of a slider: for a few
	// settings that have no order, such as policies.
	Buttons bool
	// Notes, with Buttons, are a second line printed on each button, such
	// as the score of the policy it shows: none, or one per value.
	Notes []string
}

// Playhead is a time cursor an [Explorable] can carry: a play/pause button
// and a slider (moved by dragging or with the arrow keys) over the positions
// Start, Start+Step, … up to End (the last position is End, rounded up to a
// whole step), in the panels' x units. The slider moves a vertical line
// across every panel at that x, and the page prints, on each button of the
// control the Tallies belong to, every tally's count at that position. Play
// advances the position Rate x units a second and stops at the end.
//
// The panels of an explorable with a playhead share one time ruler, from 0
// to End: the renderer fixes their x axes to it and gives them no zoom, so
// that the cursor crosses every panel at one x.
type Playhead struct {
	// Label names the slider, such as "time"; Unit is printed after its
	// value, such as "s".
	Label, Unit string
	// Start, End and Step are the first and last positions and the
	// distance between two; Step > 0, End > Start, and at most
	// MaxPositions positions.
	Start, End, Step float64
	// Rate is how far play advances per second; zero means the whole span
	// in ten seconds.
	Rate float64
	// Control is the index in Explorable.Controls of the Buttons control
	// whose buttons print the tallies.
	Control int
	// Tallies are the counts printed on that control's buttons.
	Tallies []Tally
}

// Tally is a count that a [Playhead]'s position reads, such as the calls
// made so far: Counts[v][i] is its value for value v of the playhead's
// control at position i.
type Tally struct {
	// Name is printed after the count, such as "calls".
	Name   string
	Counts [][]int
}

// MaxPositions is the most positions a [Playhead] may have.
const MaxPositions = 10000

// Positions returns the number of positions of the playhead's slider: 0 if
// the span or the step is not a positive finite number, and MaxPositions+1
// for any number above MaxPositions.
func (p Playhead) Positions() int {
	span := p.End - p.Start
	if !(p.Step > 0) || !(span > 0) || math.IsInf(p.Step, 0) || math.IsInf(span, 0) {
		return 0
	}
	n := math.Ceil(span/p.Step-1e-9) + 1
	if n > MaxPositions {
		return MaxPositions + 1
	}
	return int(n)
}

// Frame is what an [Explorable] shows at one setting of its controls.
type Frame struct {
	// Panels are the figures, one per panel of the explorable, top to
	// bottom: Histograms, Lines or Scatters. Every frame has the same
	// number of panels.
	Panels []Figure
	// Readout is a line of text printed under the controls, such as the
	// reported peak of the run shown; it may be empty.
	Readout string
}

// Explorable is a family of precomputed figures and the controls that
// switch between them in the page. The kernel computes every frame once;
// the page only swaps figures, so moving a control needs no kernel, works
// in a saved notebook and in a static HTML page, and cannot wait for
// anything.
//
// Frames are in row-major order of the controls' values: with controls of
// n₀, n₁, … values, the frame at positions (i₀, i₁, …) is
// Frames[(i₀·n₁ + i₁)·n₂ + …], the last control varying fastest.
//
// The frames of one panel share its y range, so that moving a control never
// rescales the axis a reader compares heights on: a panel whose figures
// leave YMax zero gets the tallest frame's range.
type Explorable struct {
	// Controls are the inputs, top to bottom. At least one.
	Controls []Control
	// Frames are the figures at every setting of the controls (see above).
	Frames []Frame
	// Playhead, if not nil, adds a time cursor under the controls (see
	// [Playhead]).
	Playhead *Playhead
}

// MaxFrames is the most frames an [Explorable] may hold, which keeps a
// notebook's size bounded.
const MaxFrames = 1000

// Validate reports the first control, frame or panel that cannot be shown.
func (e Explorable) Validate() error {
	if len(e.Controls) == 0 {
		return errors.New("figure: Explorable.Controls is empty: want at least one control")
	}
	want := 1
	for i, c := range e.Controls {
		if len(c.Values) == 0 {
			return fmt.Errorf("figure: Explorable.Controls[%d] (%q) has no values: want at least one", i, c.Label)
		}
		if c.Start < 0 || c.Start >= len(c.Values) {
			return fmt.Errorf("figure: Explorable.Controls[%d].Start %d out of range: want 0 <= start < %d", i, c.Start, len(c.Values))
		}
		want *= len(c.Values)
		if want > MaxFrames {
			return fmt.Errorf("figure: Explorable spans more than %d settings: want at most MaxFrames", MaxFrames)
		}
		if len(c.Notes) != 0 && (!c.Buttons || len(c.Notes) != len(c.Values)) {
			return fmt.Errorf("figure: Explorable.Controls[%d] (%q) has %d notes: want none, or one per value of a Buttons control (%d)", i, c.Label, len(c.Notes), len(c.Values))
		}
	}
	if err := e.checkPlayhead(); err != nil {
		return err
	}
	if len(e.Frames) != want {
		return fmt.Errorf("figure: Explorable has %d frames: want %d, one per setting of its controls", len(e.Frames), want)
	}
	panels := len(e.Frames[0].Panels)
	if panels == 0 {
		return errors.New("figure: Explorable.Frames[0] has no panels: want at least one")
	}
	for i, f := range e.Frames {
		if len(f.Panels) != panels {
			return fmt.Errorf("figure: Explorable.Frames[%d] has %d panels: want %d, as Frames[0]", i, len(f.Panels), panels)
		}
		for j, p := range f.Panels {
			switch p.(type) {
			case Histogram, Lines, Scatter:
			case nil:
				return fmt.Errorf("figure: Explorable.Frames[%d].Panels[%d] is nil", i, j)
			default:
				return fmt.Errorf("figure: Explorable.Frames[%d].Panels[%d] is a %T: want a Histogram, Lines or Scatter", i, j, p)
			}
			if err := p.Validate(); err != nil {
				return fmt.Errorf("%w (Explorable.Frames[%d].Panels[%d])", err, i, j)
			}
		}
	}
	return nil
}

// checkPlayhead validates the playhead, if any.
func (e Explorable) checkPlayhead() error {
	p := e.Playhead
	if p == nil {
		return nil
	}
	n := p.Positions()
	switch {
	case n == 0:
		return fmt.Errorf("figure: Explorable.Playhead spans %v to %v in steps of %v: want start < end and step > 0", p.Start, p.End, p.Step)
	case n > MaxPositions:
		return fmt.Errorf("figure: Explorable.Playhead has %d positions: want at most MaxPositions (%d)", n, MaxPositions)
	case !(p.Rate >= 0) || math.IsInf(p.Rate, 0):
		return fmt.Errorf("figure: Explorable.Playhead.Rate %v out of range: want rate >= 0", p.Rate)
	case len(p.Tallies) > 0 && (p.Control < 0 || p.Control >= len(e.Controls) || !e.Controls[p.Control].Buttons):
		return fmt.Errorf("figure: Explorable.Playhead.Control %d: want the index of a Buttons control", p.Control)
	}
	for k, t := range p.Tallies {
		if len(t.Counts) != len(e.Controls[p.Control].Values) {
			return fmt.Errorf("figure: Explorable.Playhead.Tallies[%d] (%q) has counts for %d values: want %d", k, t.Name, len(t.Counts), len(e.Controls[p.Control].Values))
		}
		for v, c := range t.Counts {
			if len(c) != n {
				return fmt.Errorf("figure: Explorable.Playhead.Tallies[%d].Counts[%d] has %d counts: want one per position (%d)", k, v, len(c), n)
			}
		}
	}
	return nil
}

// FigureSize returns the size of the first frame's panels stacked: the
// widest panel's width and the sum of their heights.
func (e Explorable) FigureSize() Size {
	var s Size
	if len(e.Frames) == 0 {
		return DefaultSize
	}
	for _, p := range e.Frames[0].Panels {
		if p == nil {
			continue
		}
		ps := p.FigureSize()
		s.Width = max(s.Width, ps.Width)
		s.Height += ps.Height
	}
	return s.Or(DefaultSize)
}
