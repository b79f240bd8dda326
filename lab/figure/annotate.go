package figure

import (
	"fmt"
	"image/color"
)

// HLine is a dashed horizontal reference line across the whole plot, such as
// the capacity of a dependency, labelled at its right end.
type HLine struct {
	Y     float64
	Label string
}

// VLine is a dashed vertical marker line, such as the moment a policy's
// last client finished, labelled beside its top; the renderers keep the
// labels of markers close together apart.
type VLine struct {
	X     float64
	Label string
}

// Span is a shaded band over the x interval [From, To], such as an outage,
// labelled at its top left.
type Span struct {
	From, To float64
	Label    string
	// Color, if not nil, fills the band instead of the default light grey,
	// so that bands of different meaning can be told apart (an outage in
	// grey, idle capacity in amber, say). Use a translucent colour: the
	// grid and the data are drawn over the band.
	Color color.Color
}

// Note is a short text written just above the data point (X, Y), such as
// the value of the tallest bar; a renderer keeps it inside the plot.
type Note struct {
	X, Y float64
	Text string
}

// Annotations are the decorations every kind of figure carries.
type Annotations struct {
	HLines []HLine
	VLines []VLine
	Spans  []Span
	Notes  []Note
}

// Validate reports the first annotation with a non-finite coordinate or an
// empty span.
func (a Annotations) Validate() error {
	for i, h := range a.HLines {
		if !finite(h.Y) {
			return fmt.Errorf("figure: HLines[%d].Y must be finite, got %v", i, h.Y)
		}
	}
	for i, v := range a.VLines {
		if !finite(v.X) {
			return fmt.Errorf("figure: VLines[%d].X must be finite, got %v", i, v.X)
		}
	}
	for i, s := range a.Spans {
		if !finite(s.From) || !finite(s.To) || s.To < s.From {
			return fmt.Errorf("figure: Spans[%d] must have finite From ≤ To, got [%v, %v]", i, s.From, s.To)
		}
	}
	for i, n := range a.Notes {
		if !finite(n.X) || !finite(n.Y) {
			return fmt.Errorf("figure: Notes[%d] must have finite X and Y, got (%v, %v)", i, n.X, n.Y)
		}
	}
	return nil
}

// Unlabelled returns copies of lines and spans without their labels, for a
// panel that repeats markers another panel already names.
func Unlabelled(lines []VLine, spans []Span) ([]VLine, []Span) {
	l := make([]VLine, len(lines))
	for i, v := range lines {
		l[i] = VLine{X: v.X}
	}
	s := make([]Span, len(spans))
	for i, sp := range spans {
		sp.Label = ""
		s[i] = sp
	}
	return l, s
}
