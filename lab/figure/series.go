package figure

import "fmt"

// Series is a named sequence of points (X[i], Y[i]). X and Y must have the
// same, non-zero length and hold finite numbers.
type Series struct {
	Name string
	X, Y []float64
}

// check validates s as series number i of the figure named fig.
func (s Series) check(fig string, i int, logX, logY bool) error {
	switch {
	case len(s.X) == 0 && len(s.Y) == 0:
		return fmt.Errorf("figure: %s.Series[%d] (%q) is empty", fig, i, s.Name)
	case len(s.X) != len(s.Y):
		return fmt.Errorf("figure: %s.Series[%d] (%q) has %d X values and %d Y values; they must match", fig, i, s.Name, len(s.X), len(s.Y))
	}
	for j := range s.X {
		x, y := s.X[j], s.Y[j]
		if !finite(x) || !finite(y) {
			return fmt.Errorf("figure: %s.Series[%d] (%q) point %d is (%v, %v); values must be finite", fig, i, s.Name, j, x, y)
		}
		if logX && x <= 0 {
			return fmt.Errorf("figure: %s.Series[%d] (%q) point %d has X = %v; a log x axis needs X > 0", fig, i, s.Name, j, x)
		}
		if logY && y <= 0 {
			return fmt.Errorf("figure: %s.Series[%d] (%q) point %d has Y = %v; a log y axis needs Y > 0", fig, i, s.Name, j, y)
		}
	}
	return nil
}

// checkSeries validates all series of a figure and its annotations.
func checkSeries(fig string, series []Series, logX, logY bool, yMax float64, xTicks int, a Annotations) error {
	if len(series) == 0 {
		return fmt.Errorf("figure: %s has no Series", fig)
	}
	for i, s := range series {
		if err := s.check(fig, i, logX, logY); err != nil {
			return err
		}
	}
	if !finite(yMax) || yMax < 0 {
		return fmt.Errorf("figure: %s.YMax must be finite and ≥ 0, got %v", fig, yMax)
	}
	if xTicks < 0 || xTicks > MaxTicks {
		return fmt.Errorf("figure: %s.XTicks %d out of range: want 0 <= ticks <= %d", fig, xTicks, MaxTicks)
	}
	if err := a.Validate(); err != nil {
		return err
	}
	if logX {
		for i, v := range a.VLines {
			if v.X <= 0 {
				return fmt.Errorf("figure: %s.VLines[%d].X = %v; a log x axis needs X > 0", fig, i, v.X)
			}
		}
		for i, s := range a.Spans {
			if s.From <= 0 {
				return fmt.Errorf("figure: %s.Spans[%d].From = %v; a log x axis needs From > 0", fig, i, s.From)
			}
		}
	}
	if logY {
		for i, h := range a.HLines {
			if h.Y <= 0 {
				return fmt.Errorf("figure: %s.HLines[%d].Y = %v; a log y axis needs Y > 0", fig, i, h.Y)
			}
		}
	}
	return nil
}

// Lines is a figure of several named series drawn as lines (or steps), one
// colour per series, with a legend.
type Lines struct {
	// Title is written above the plot.
	Title string
	// XLabel and YLabel label the axes.
	XLabel, YLabel string
	// Series are drawn in order; there must be at least one.
	Series []Series
	// Step draws each series as a step function: the value holds until the
	// next point (right for counts per interval or in-flight calls).
	Step bool
	// Points marks every data point with a dot.
	Points bool
	// LogX and LogY use logarithmic axes; the values must then be positive.
	LogX, LogY bool
	// YMax, if positive, fixes the top of the y axis. Zero fits the data.
	YMax float64
	// XTicks is the least number of labelled ticks on the x axis; zero
	// lets the renderer choose.
	XTicks int

	// HLines, VLines, Spans and Notes decorate the plot.
	HLines []HLine
	VLines []VLine
	Spans  []Span
	Notes  []Note

	// Size is the rendered size; zero fields mean [DefaultSize].
	Size Size
}

// Annotations returns the figure's decorations.
func (l Lines) Annotations() Annotations {
	return Annotations{HLines: l.HLines, VLines: l.VLines, Spans: l.Spans, Notes: l.Notes}
}

// Validate reports the first field that cannot be drawn.
func (l Lines) Validate() error {
	if err := checkSeries("Lines", l.Series, l.LogX, l.LogY, l.YMax, l.XTicks, l.Annotations()); err != nil {
		return err
	}
	return l.Size.check("Lines")
}

// FigureSize returns l.Size, defaults filled in.
func (l Lines) FigureSize() Size { return l.Size.Or(DefaultSize) }

// Scatter is a figure of marks, one colour per series, with a legend: for
// instance one lane per client (Y = client number), one mark per attempt
// (X = time), a series per outcome.
type Scatter struct {
	// Title is written above the plot.
	Title string
	// XLabel and YLabel label the axes.
	XLabel, YLabel string
	// Series are drawn in order, later ones on top; there must be at least one.
	Series []Series
	// MarkSize is the radius of a mark in points; zero means 2.
	MarkSize float64
	// YMax, if positive, fixes the top of the y axis. Zero fits the data.
	YMax float64
	// XTicks is the least number of labelled ticks on the x axis; zero
	// lets the renderer choose.
	XTicks int

	// HLines, VLines, Spans and Notes decorate the plot.
	HLines []HLine
	VLines []VLine
	Spans  []Span
	Notes  []Note

	// Size is the rendered size; zero fields mean [DefaultSize].
	Size Size
}

// Annotations returns the figure's decorations.
func (s Scatter) Annotations() Annotations {
	return Annotations{HLines: s.HLines, VLines: s.VLines, Spans: s.Spans, Notes: s.Notes}
}

// Validate reports the first field that cannot be drawn.
func (s Scatter) Validate() error {
	if !finite(s.MarkSize) || s.MarkSize < 0 {
		return fmt.Errorf("figure: Scatter.MarkSize must be finite and ≥ 0, got %v", s.MarkSize)
	}
	if err := checkSeries("Scatter", s.Series, false, false, s.YMax, s.XTicks, s.Annotations()); err != nil {
		return err
	}
	return s.Size.check("Scatter")
}

// Radius returns MarkSize, or 2 if it is zero.
func (s Scatter) Radius() float64 {
	if s.MarkSize == 0 {
		return 2
	}
	return s.MarkSize
}

// FigureSize returns s.Size, defaults filled in.
func (s Scatter) FigureSize() Size { return s.Size.Or(DefaultSize) }
