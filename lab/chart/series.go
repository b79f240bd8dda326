package chart

import (
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

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
		return fmt.Errorf("chart: %s.Series[%d] (%q) is empty", fig, i, s.Name)
	case len(s.X) != len(s.Y):
		return fmt.Errorf("chart: %s.Series[%d] (%q) has %d X values and %d Y values; they must match", fig, i, s.Name, len(s.X), len(s.Y))
	}
	for j := range s.X {
		x, y := s.X[j], s.Y[j]
		if !finite(x) || !finite(y) {
			return fmt.Errorf("chart: %s.Series[%d] (%q) point %d is (%v, %v); values must be finite", fig, i, s.Name, j, x, y)
		}
		if logX && x <= 0 {
			return fmt.Errorf("chart: %s.Series[%d] (%q) point %d has X = %v; a log x axis needs X > 0", fig, i, s.Name, j, x)
		}
		if logY && y <= 0 {
			return fmt.Errorf("chart: %s.Series[%d] (%q) point %d has Y = %v; a log y axis needs Y > 0", fig, i, s.Name, j, y)
		}
	}
	return nil
}

func (s Series) xys() plotter.XYs {
	pts := make(plotter.XYs, len(s.X))
	for j := range pts {
		pts[j].X, pts[j].Y = s.X[j], s.Y[j]
	}
	return pts
}

// checkSeries validates all series of a figure and its annotations.
func checkSeries(fig string, series []Series, logX, logY bool, yMax float64, a Annotations) error {
	if len(series) == 0 {
		return fmt.Errorf("chart: %s has no Series", fig)
	}
	for i, s := range series {
		if err := s.check(fig, i, logX, logY); err != nil {
			return err
		}
	}
	if !finite(yMax) || yMax < 0 {
		return fmt.Errorf("chart: %s.YMax must be finite and ≥ 0, got %v", fig, yMax)
	}
	if err := a.Validate(); err != nil {
		return err
	}
	if logX {
		for i, v := range a.VLines {
			if v.X <= 0 {
				return fmt.Errorf("chart: %s.VLines[%d].X = %v; a log x axis needs X > 0", fig, i, v.X)
			}
		}
		for i, s := range a.Spans {
			if s.From <= 0 {
				return fmt.Errorf("chart: %s.Spans[%d].From = %v; a log x axis needs From > 0", fig, i, s.From)
			}
		}
	}
	if logY {
		for i, h := range a.HLines {
			if h.Y <= 0 {
				return fmt.Errorf("chart: %s.HLines[%d].Y = %v; a log y axis needs Y > 0", fig, i, h.Y)
			}
		}
	}
	return nil
}

// useLogScales switches p's axes to logarithmic scales as asked.
func useLogScales(p *plot.Plot, logX, logY bool) {
	if logX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = LogTicks{}
	}
	if logY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = LogTicks{}
	}
}

// Lines is a figure of several named series drawn as lines (or steps),
// one colour per series, with a legend.
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

	// HLines, VLines, Spans and Notes decorate the plot (see [Annotations]).
	HLines []HLine
	VLines []VLine
	Spans  []Span
	Notes  []Note

	// Size is the rendered size; zero fields mean [DefaultSize].
	Size Size
}

func (l Lines) annotations() Annotations {
	return Annotations{HLines: l.HLines, VLines: l.VLines, Spans: l.Spans, Notes: l.Notes}
}

func (l Lines) check() error {
	return checkSeries("Lines", l.Series, l.LogX, l.LogY, l.YMax, l.annotations())
}

// Plot builds the plot of the lines.
func (l Lines) Plot() (*plot.Plot, error) {
	if err := l.check(); err != nil {
		return nil, err
	}
	p := NewPlot(l.Title, l.XLabel, l.YLabel)
	a := l.annotations()
	a.addSpans(p)
	for i, s := range l.Series {
		line, err := plotter.NewLine(s.xys())
		if err != nil {
			return nil, fmt.Errorf("chart: Lines.Series[%d] (%q): %w", i, s.Name, err)
		}
		line.LineStyle = lineStyle(Color(i), 1.5)
		if l.Step {
			line.StepStyle = plotter.PostStep
		}
		p.Add(line)
		thumbs := []plot.Thumbnailer{line}
		if l.Points {
			sc, err := plotter.NewScatter(s.xys())
			if err != nil {
				return nil, fmt.Errorf("chart: Lines.Series[%d] (%q): %w", i, s.Name, err)
			}
			sc.GlyphStyle = draw.GlyphStyle{Color: Color(i), Radius: vg.Points(2.5), Shape: draw.CircleGlyph{}}
			p.Add(sc)
			thumbs = append(thumbs, sc)
		}
		if s.Name != "" {
			p.Legend.Add(s.Name, thumbs...)
		}
	}
	a.addLines(p)
	useLogScales(p, l.LogX, l.LogY)
	if !l.LogY {
		fitY(p, l.YMax)
	} else if l.YMax > 0 {
		p.Y.Max = l.YMax
	}
	return p, checkRanges(p)
}

// Draw draws the lines on c.
func (l Lines) Draw(c draw.Canvas) error { return drawPanels(c, "", false, l) }

// FigureSize returns l.Size, defaults filled in.
func (l Lines) FigureSize() Size { return l.Size.or(DefaultSize) }

// PNG renders the lines as PNG bytes.
func (l Lines) PNG() ([]byte, error) { return PNG(l) }

// SVG renders the lines as SVG bytes.
func (l Lines) SVG() ([]byte, error) { return SVG(l) }

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

	// HLines, VLines, Spans and Notes decorate the plot (see [Annotations]).
	HLines []HLine
	VLines []VLine
	Spans  []Span
	Notes  []Note

	// Size is the rendered size; zero fields mean [DefaultSize].
	Size Size
}

func (s Scatter) annotations() Annotations {
	return Annotations{HLines: s.HLines, VLines: s.VLines, Spans: s.Spans, Notes: s.Notes}
}

func (s Scatter) check() error {
	if !finite(s.MarkSize) || s.MarkSize < 0 {
		return fmt.Errorf("chart: Scatter.MarkSize must be finite and ≥ 0, got %v", s.MarkSize)
	}
	return checkSeries("Scatter", s.Series, false, false, s.YMax, s.annotations())
}

func (s Scatter) markSize() float64 {
	if s.MarkSize == 0 {
		return 2
	}
	return s.MarkSize
}

// Plot builds the scatter plot.
func (s Scatter) Plot() (*plot.Plot, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	p := NewPlot(s.Title, s.XLabel, s.YLabel)
	a := s.annotations()
	a.addSpans(p)
	for i, ser := range s.Series {
		sc, err := plotter.NewScatter(ser.xys())
		if err != nil {
			return nil, fmt.Errorf("chart: Scatter.Series[%d] (%q): %w", i, ser.Name, err)
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: Color(i), Radius: vg.Points(s.markSize()), Shape: draw.CircleGlyph{}}
		p.Add(sc)
		if ser.Name != "" {
			p.Legend.Add(ser.Name, sc)
		}
	}
	a.addLines(p)
	fitY(p, s.YMax)
	return p, checkRanges(p)
}

// Draw draws the scatter plot on c.
func (s Scatter) Draw(c draw.Canvas) error { return drawPanels(c, "", false, s) }

// FigureSize returns s.Size, defaults filled in.
func (s Scatter) FigureSize() Size { return s.Size.or(DefaultSize) }

// PNG renders the scatter plot as PNG bytes.
func (s Scatter) PNG() ([]byte, error) { return PNG(s) }

// SVG renders the scatter plot as SVG bytes.
func (s Scatter) SVG() ([]byte, error) { return SVG(s) }
