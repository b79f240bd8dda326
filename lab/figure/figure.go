package figure

import (
	"errors"
	"fmt"
	"math"
)

// Size is a figure's size in pixels (a static figure is rendered at 96 dots
// per inch, so the default 768 × 336 is 8 in × 3.5 in). A zero Width or
// Height means the default: 768 wide, 336 high (for a [Stack], 230 per
// panel).
type Size struct {
	Width, Height int
}

// DefaultSize is the size of a figure whose Size is left zero.
var DefaultSize = Size{Width: 768, Height: 336}

// Or returns s with each zero or negative field replaced by d's.
func (s Size) Or(d Size) Size {
	if s.Width <= 0 {
		s.Width = d.Width
	}
	if s.Height <= 0 {
		s.Height = d.Height
	}
	return s
}

// check validates s as the Size of the figure named fig.
func (s Size) check(fig string) error {
	if s.Width < 0 || s.Height < 0 || s.Width > MaxPixels || s.Height > MaxPixels {
		return fmt.Errorf("figure: %s.Size %d×%d out of range: want 0 <= width, height <= %d (0: the default)", fig, s.Width, s.Height, MaxPixels)
	}
	return nil
}

// MaxPixels is the largest width or height of a figure.
const MaxPixels = 20000

// Figure is what the renderers draw: [Histogram], [Lines], [Scatter] and
// [Stack] (and, in lab/interactive only, [Explorable]). A renderer's own
// escape hatches (a custom gonum/plot plot, a go-echarts chart) are Figures
// too.
type Figure interface {
	// Validate reports the first field that cannot be drawn, or nil.
	Validate() error
	// FigureSize returns the figure's size, defaults filled in.
	FigureSize() Size
}

// Stack is several panels drawn above each other on one shared x ruler:
// every panel gets the union of the panels' x ranges, the plotting areas are
// aligned, and only the bottom panel labels the x axis.
//
// Panels that measure the same thing (the same y-axis label) share one y
// range, so that their bars and lines compare by height; panels with
// different y labels keep their own.
type Stack struct {
	// Title, if not empty, is written above the first panel.
	Title string
	// Panels are drawn top to bottom: Histograms, Lines or Scatters. There
	// must be at least one.
	Panels []Figure
	// Size is the rendered size. A zero Width means 768; a zero Height
	// means 230 per panel.
	Size Size
}

// Validate reports the first panel that cannot be drawn.
func (s Stack) Validate() error {
	if len(s.Panels) == 0 {
		return errors.New("figure: Stack.Panels must hold at least one panel")
	}
	for i, p := range s.Panels {
		switch p.(type) {
		case nil:
			return fmt.Errorf("figure: Stack.Panels[%d] is nil", i)
		case Stack, Explorable:
			return fmt.Errorf("figure: Stack.Panels[%d] is a %T: want a Histogram, Lines or Scatter", i, p)
		}
		if err := p.Validate(); err != nil {
			return fmt.Errorf("%w (Stack.Panels[%d])", err, i)
		}
	}
	return s.Size.check("Stack")
}

// FigureSize returns s.Size, defaults filled in.
func (s Stack) FigureSize() Size {
	return s.Size.Or(Size{Width: DefaultSize.Width, Height: max(1, len(s.Panels)) * 230})
}

// SharedY returns, for each panel, the index of the first panel with the
// same y-axis label: panels with the same index share one y range (see
// [Stack]).
func (s Stack) SharedY() []int {
	first := map[string]int{}
	out := make([]int, len(s.Panels))
	for i, p := range s.Panels {
		label := YLabel(p)
		if j, ok := first[label]; ok {
			out[i] = j
			continue
		}
		first[label] = i
		out[i] = i
	}
	return out
}

// YLabel returns the y-axis label of a Histogram (with its default), Lines
// or Scatter, and "" for any other figure.
func YLabel(f Figure) string {
	switch f := f.(type) {
	case Histogram:
		return f.YAxisLabel()
	case Lines:
		return f.YLabel
	case Scatter:
		return f.YLabel
	}
	return ""
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
