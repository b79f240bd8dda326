package static

import (
	"image/color"
	"math"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/backofflab/backofflab/lab/figure"
)

// AddAnnotations validates a and adds it to p: spans first, so that the
// data drawn afterwards stays on top of the shading, then lines and notes.
// Call it after adding the data if the lines should be drawn over the data,
// or before if under; the figures of this package add the lines after the
// data and put spans at the back.
func AddAnnotations(p *plot.Plot, a figure.Annotations) error {
	if err := a.Validate(); err != nil {
		return err
	}
	addSpans(p, a)
	addLines(p, a)
	return nil
}

func addSpans(p *plot.Plot, a figure.Annotations) {
	for _, s := range a.Spans {
		p.Add(spanPlotter{Span: s})
	}
}

func addLines(p *plot.Plot, a figure.Annotations) {
	for _, s := range a.Spans {
		p.Add(spanPlotter{Span: s, labelOnly: true})
	}
	for _, h := range a.HLines {
		p.Add(hLinePlotter(h))
	}
	if len(a.VLines) > 0 {
		p.Add(vLinesPlotter(a.VLines))
	}
	for _, n := range a.Notes {
		p.Add(notePlotter(n))
	}
}

// annotationText is the style of annotation labels.
func annotationText(xa draw.XAlignment, ya draw.YAlignment) text.Style {
	return text.Style{
		Color:   figure.AnnotationGray,
		Font:    font.From(textFont, 9),
		XAlign:  xa,
		YAlign:  ya,
		Handler: plot.DefaultTextHandler,
	}
}

func dashed() draw.LineStyle {
	return draw.LineStyle{Color: figure.AnnotationGray, Width: vg.Points(1), Dashes: dashes}
}

type hLinePlotter figure.HLine

// Plot draws the dashed line and its label.
func (h hLinePlotter) Plot(c draw.Canvas, p *plot.Plot) {
	_, trY := p.Transforms(&c)
	y := trY(h.Y)
	c.StrokeLine2(dashed(), c.Min.X, y, c.Max.X, y)
	if h.Label == "" {
		return
	}
	// Above the line, unless the line runs along the top of the plot.
	if c.Max.Y-y < 0.12*(c.Max.Y-c.Min.Y) {
		c.FillText(annotationText(draw.XRight, draw.YTop), vg.Point{X: c.Max.X - vg.Points(3), Y: y - vg.Points(2)}, h.Label)
		return
	}
	c.FillText(annotationText(draw.XRight, draw.YBottom), vg.Point{X: c.Max.X - vg.Points(3), Y: y + vg.Points(2)}, h.Label)
}

// DataRange makes room for the line on the y axis only.
func (h hLinePlotter) DataRange() (xmin, xmax, ymin, ymax float64) {
	return math.Inf(1), math.Inf(-1), h.Y, h.Y
}

// vLinesPlotter draws dashed markers with their labels beside the top of
// each line: right of it, or left if the label would leave the plot. Labels
// are placed from left to right, each in the highest row where it overlaps
// no label already placed, on a light backing that hides the lines passing
// behind it, so markers close together stay readable.
type vLinesPlotter []figure.VLine

// Plot draws the dashed markers and their labels.
func (vs vLinesPlotter) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	sty := annotationText(draw.XLeft, draw.YTop)
	order := make([]int, len(vs))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return vs[order[a]].X < vs[order[b]].X })
	var labelled []int
	var extents []extent
	for _, i := range order {
		v := vs[i]
		x := trX(v.X)
		c.StrokeLine2(dashed(), x, c.Min.Y, x, c.Max.Y)
		if v.Label == "" {
			continue
		}
		w := sty.Width(v.Label)
		e := extent{From: x + vg.Points(2), To: x + vg.Points(2) + w}
		if e.To > c.Max.X {
			e = extent{From: x - vg.Points(2) - w, To: x - vg.Points(2)}
		}
		labelled = append(labelled, i)
		extents = append(extents, e)
	}
	step := sty.Font.Size * 1.2
	rows := staggerRows(extents, vg.Points(4), int((c.Max.Y-c.Min.Y)/step))
	for k, i := range labelled {
		top := c.Max.Y - vg.Points(2) - vg.Length(rows[k])*step
		// A light backing keeps the label readable where another marker's
		// line runs through it.
		e, h := extents[k], sty.Height(vs[i].Label)
		c.FillPolygon(labelBacking, []vg.Point{{X: e.From - 1, Y: top - h}, {X: e.To + 1, Y: top - h}, {X: e.To + 1, Y: top}, {X: e.From - 1, Y: top}})
		c.FillText(sty, vg.Point{X: e.From, Y: top}, vs[i].Label)
	}
}

// DataRange makes room for the markers on the x axis only.
func (vs vLinesPlotter) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax = math.Inf(1), math.Inf(-1)
	for _, v := range vs {
		xmin, xmax = math.Min(xmin, v.X), math.Max(xmax, v.X)
	}
	return xmin, xmax, math.Inf(1), math.Inf(-1)
}

// extent is the horizontal extent [From, To] of a label on the canvas.
type extent struct{ From, To vg.Length }

// staggerRows gives each label, in order, the lowest row number in which
// it stays at least gap away from every label already in that row. With
// maxRows > 0, rows wrap around after maxRows (labels may then overlap:
// the plot has no room for more rows).
func staggerRows(labels []extent, gap vg.Length, maxRows int) []int {
	rows := make([]int, len(labels))
	for i, l := range labels {
		r := 0
		for clash := true; clash; {
			clash = false
			for j := range i {
				if rows[j] == r && l.From < labels[j].To+gap && labels[j].From < l.To+gap {
					clash = true
					r++
					break
				}
			}
		}
		rows[i] = r
		if maxRows > 0 {
			rows[i] = r % maxRows
		}
	}
	return rows
}

// spanPlotter draws the shading of a span, or, with labelOnly, its label:
// the shading goes behind the data and the label in front of it.
type spanPlotter struct {
	figure.Span
	labelOnly bool
}

// Plot shades the span, or writes its label.
func (s spanPlotter) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	x0, x1 := max(trX(s.From), c.Min.X), min(trX(s.To), c.Max.X)
	if x1 <= x0 {
		return
	}
	if s.labelOnly {
		if s.Label != "" {
			c.FillText(annotationText(draw.XLeft, draw.YTop), vg.Point{X: x0 + vg.Points(3), Y: c.Max.Y - vg.Points(3)}, s.Label)
		}
		return
	}
	fill := color.Color(figure.SpanFill)
	if s.Color != nil {
		fill = s.Color
	}
	c.FillPolygon(fill, []vg.Point{{X: x0, Y: c.Min.Y}, {X: x1, Y: c.Min.Y}, {X: x1, Y: c.Max.Y}, {X: x0, Y: c.Max.Y}})
}

// DataRange makes room for the span on the x axis only.
func (s spanPlotter) DataRange() (xmin, xmax, ymin, ymax float64) {
	return s.From, s.To, math.Inf(1), math.Inf(-1)
}

type notePlotter figure.Note

// Plot writes the note just above its point, centred on it unless that
// would put the text outside the plot (a note on the first or last bar).
func (n notePlotter) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	sty := annotationText(draw.XCenter, draw.YBottom)
	x := centreInside(trX(n.X), sty.Width(n.Text), c.Min.X, c.Max.X)
	c.FillText(sty, vg.Point{X: x, Y: trY(n.Y) + vg.Points(3)}, n.Text)
}

// centreInside returns the centre nearest x for a text of width w that
// keeps the text within [lo, hi], or the middle of [lo, hi] if it is too
// narrow for the text.
func centreInside(x, w, lo, hi vg.Length) vg.Length {
	if hi-lo <= w {
		return (lo + hi) / 2
	}
	return min(max(x, lo+w/2), hi-w/2)
}

// DataRange makes room for the note's point.
func (n notePlotter) DataRange() (xmin, xmax, ymin, ymax float64) {
	return n.X, n.X, n.Y, n.Y
}
