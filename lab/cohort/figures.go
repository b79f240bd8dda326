package cohort

import (
	"fmt"
	"image/color"
	"time"

	"github.com/backofflab/backofflab/lab/figure"
	"github.com/backofflab/backofflab/lab/schedule"
)

// Board is one run of each policy in the same setting, laid out for the
// lesson's figures: every figure of the board is drawn on one time ruler
// that spans the slowest policy's finish, and every calls panel on one y
// scale fixed by the tallest burst of any policy, so that switching between
// policies never rescales an axis.
type Board struct {
	// Config is the setting; its Policy is not used.
	Config Config
	// Names, Results and Traces describe each policy's run, in order.
	Names   []string
	Results []Result
	Traces  []*Trace
	// End is the ruler's right edge: the latest Finish of any policy.
	End time.Duration
	// Tallest is the most calls any policy made in one Bucket.
	Tallest int
}

// NewBoard runs c once under each policy (same seed) and lays the runs out
// for the figures.
func NewBoard(c Config, policies []schedule.Named) (*Board, error) {
	if len(policies) == 0 {
		return nil, fmt.Errorf("cohort: NewBoard needs at least one policy")
	}
	b := &Board{Config: c}
	for _, p := range policies {
		c.Policy = p.Policy
		r, tr, err := RunTraced(c)
		if err != nil {
			return nil, err
		}
		b.Names = append(b.Names, p.Name)
		b.Results = append(b.Results, r)
		b.Traces = append(b.Traces, tr)
		b.End = max(b.End, r.Finish)
		b.Tallest = max(b.Tallest, r.PeakPer100ms)
	}
	return b, nil
}

// index returns the position of the named policy.
func (b *Board) index(name string) (int, error) {
	for i, n := range b.Names {
		if n == name {
			return i, nil
		}
	}
	return 0, fmt.Errorf("cohort: board has no policy %q: want one of %v", name, b.Names)
}

// finishes marks every policy's finish on the ruler. The marks also give
// every panel the same x range: up to the slowest finish.
func (b *Board) finishes() []figure.VLine {
	v := make([]figure.VLine, len(b.Names))
	for i, n := range b.Names {
		label := fmt.Sprintf("%s %.1f s", n, b.Results[i].Finish.Seconds())
		if b.Results[i].Unfinished > 0 {
			label = fmt.Sprintf("%s: %d unfinished", n, b.Results[i].Unfinished)
		}
		v[i] = figure.VLine{X: b.Results[i].Finish.Seconds(), Label: label}
	}
	return v
}

// outage shades the outage, if any, in the default grey.
func (b *Board) outage() []figure.Span {
	if b.Config.Outage <= 0 {
		return nil
	}
	return []figure.Span{{From: 0, To: b.Config.Outage.Seconds(), Label: "outage"}}
}

// IdleColor is the translucent amber of the spans in which capacity stands
// unused while work is outstanding (InFlight), set apart from the grey of
// the outage.
var IdleColor color.Color = color.NRGBA{0xF0, 0xB0, 0x20, 0x48}

// headroom is how far the calls panels' y scale reaches above the tallest
// burst: room for the label of the run's worst bucket below the labels
// written along the top of the plot.
const headroom = 1.3

// Calls returns the first panel for the named policy: calls per 100 ms,
// admitted and refused stacked, against a dashed line at what the
// dependency can admit per bucket once it is up, with the run's own worst
// bucket labelled, on the board's shared scales.
func (b *Board) Calls(name string) (figure.Histogram, error) {
	i, err := b.index(name)
	if err != nil {
		return figure.Histogram{}, err
	}
	counts := b.Traces[i].Buckets(Bucket)
	n := int((b.End + Bucket - 1) / Bucket)
	admitted, refused := make([]float64, max(n, len(counts))), make([]float64, max(n, len(counts)))
	worst := 0
	for k, c := range counts {
		admitted[k], refused[k] = float64(c.Admitted), float64(c.Refused)
		if c.Calls() > counts[worst].Calls() {
			worst = k
		}
	}
	capacity := b.Config.Limit * int((msec(Bucket)+msec(b.Config.Service)-1)/msec(b.Config.Service))
	h := figure.Histogram{
		Title:  fmt.Sprintf("%s: calls per 100 ms", schedule.Label(name)),
		YLabel: "calls per 100 ms",
		Slot:   Bucket,
		Layers: []figure.Layer{{Name: "admitted", Counts: admitted}, {Name: "refused", Counts: refused}},
		YMax:   float64(b.Tallest) * headroom,
		HLines: []figure.HLine{{Y: float64(capacity), Label: fmt.Sprintf("dependency can admit %d per 100 ms", capacity)}},
		VLines: b.finishes(),
		Spans:  b.outage(),
	}
	if len(counts) > 0 {
		w := counts[worst]
		h.Notes = []figure.Note{{X: (w.Start + Bucket/2).Seconds(), Y: float64(w.Calls()), Text: fmt.Sprintf("%d calls", w.Calls())}}
	}
	return h, nil
}

// InFlight returns the second panel for the named policy: calls in flight
// against the limit, with the outage shaded grey and the spans in which
// capacity stood unused while work was outstanding shaded in IdleColor;
// the title gives their total, the run's idle time.
func (b *Board) InFlight(name string) (figure.Lines, error) {
	i, err := b.index(name)
	if err != nil {
		return figure.Lines{}, err
	}
	tr := b.Traces[i]
	steps := tr.InFlight()
	s := figure.Series{Name: "in flight"}
	for _, st := range steps {
		s.X = append(s.X, st.At.Seconds())
		s.Y = append(s.Y, float64(st.InFlight))
	}
	s.X = append(s.X, b.End.Seconds())
	s.Y = append(s.Y, s.Y[len(s.Y)-1])
	spans := b.outage()
	for _, sp := range tr.IdleSpans() {
		spans = append(spans, figure.Span{From: sp.From.Seconds(), To: sp.To.Seconds(), Color: IdleColor})
	}
	return figure.Lines{
		Title:  fmt.Sprintf("%s: calls in flight; shaded: idle while clients wait, %.1f s in all", schedule.Label(name), b.Results[i].Idle.Seconds()),
		XLabel: "time (s)",
		YLabel: "in flight",
		Series: []figure.Series{s},
		Step:   true,
		YMax:   float64(b.Config.Limit) * 1.25,
		HLines: []figure.HLine{{Y: float64(b.Config.Limit), Label: fmt.Sprintf("limit %d", b.Config.Limit)}},
		VLines: b.finishes(),
		Spans:  spans,
	}, nil
}

// Lanes returns the third panel for the named policy: one lane per client
// (y = client number), a mark per attempt, refused or admitted; a lane
// ends with the client's admitted call.
func (b *Board) Lanes(name string) (figure.Scatter, error) {
	i, err := b.index(name)
	if err != nil {
		return figure.Scatter{}, err
	}
	refused, admitted := figure.Series{Name: "refused"}, figure.Series{Name: "admitted"}
	for _, a := range b.Traces[i].Attempts {
		s := &refused
		if a.Admitted {
			s = &admitted
		}
		s.X = append(s.X, a.At.Seconds())
		s.Y = append(s.Y, float64(a.Client))
	}
	var series []figure.Series
	for _, s := range []figure.Series{admitted, refused} { // the colours of Calls' layers
		if len(s.X) > 0 {
			series = append(series, s)
		}
	}
	return figure.Scatter{
		Title:    fmt.Sprintf("%s: one lane per client, a mark per attempt", schedule.Label(name)),
		XLabel:   "time (s)",
		YLabel:   "client",
		Series:   series,
		MarkSize: 1.5,
		YMax:     float64(b.Config.Clients),
		VLines:   b.finishes(),
		Spans:    b.outage(),
	}, nil
}

// Panels returns the three panels of the named policy stacked on the
// board's ruler, which is marked in round numbers of seconds. Each marker
// is named once: the finishes on the calls panel, the outage on the
// in-flight panel; the other panels repeat them unlabelled. The title gives
// the run's finish and calls.
func (b *Board) Panels(name string) (figure.Stack, error) {
	st, err := b.stacked(name)
	if err != nil {
		return figure.Stack{}, err
	}
	st.calls.XTicks, st.inFlight.XTicks, st.lanes.XTicks = rulerTicks, rulerTicks, rulerTicks
	return figure.Stack{
		Title:  st.title,
		Panels: []figure.Figure{st.calls, st.inFlight, st.lanes},
	}, nil
}

// stack is the content of Panels before the ruler's ticks are applied.
type stack struct {
	title    string
	calls    figure.Histogram
	inFlight figure.Lines
	lanes    figure.Scatter
}

// stacked returns the panels of the named policy with each marker named
// once, and the stack's title.
func (b *Board) stacked(name string) (stack, error) {
	calls, err := b.Calls(name)
	if err != nil {
		return stack{}, err
	}
	i, _ := b.index(name)
	_, calls.Spans = figure.Unlabelled(nil, calls.Spans) // the worst bucket's label may be up there
	inFlight, _ := b.InFlight(name)
	inFlight.VLines, _ = figure.Unlabelled(inFlight.VLines, nil)
	lanes, _ := b.Lanes(name)
	lanes.VLines, lanes.Spans = figure.Unlabelled(lanes.VLines, lanes.Spans)
	r := b.Results[i]
	title := fmt.Sprintf("%s, seed %d: finished at %.2f s after %d calls", schedule.Label(name), b.Config.Seed, r.Finish.Seconds(), r.Calls)
	if r.Unfinished > 0 {
		title = fmt.Sprintf("%s, seed %d: %d clients unfinished at %.0f s after %d calls", schedule.Label(name), b.Config.Seed, r.Unfinished, r.Finish.Seconds(), r.Calls)
	}
	return stack{title, calls, inFlight, lanes}, nil
}

// CallsStack returns the calls panels (see Calls) of the named policies
// stacked on the board's ruler and y scale, in the order given, to compare
// a few policies' traffic directly. The title names the seed and the
// outage.
func (b *Board) CallsStack(names ...string) (figure.Stack, error) {
	if len(names) == 0 {
		return figure.Stack{}, fmt.Errorf("cohort: CallsStack needs at least one policy: want some of %v", b.Names)
	}
	setting := fmt.Sprintf("%v outage", b.Config.Outage)
	if b.Config.Outage <= 0 {
		setting = "no outage"
	}
	st := figure.Stack{Title: fmt.Sprintf("calls per 100 ms, seed %d, %s", b.Config.Seed, setting)}
	for k, name := range names {
		calls, err := b.Calls(name)
		if err != nil {
			return figure.Stack{}, err
		}
		if k > 0 { // the first panel names the markers
			calls.VLines, calls.Spans = figure.Unlabelled(calls.VLines, calls.Spans)
		}
		calls.XTicks = rulerTicks
		st.Panels = append(st.Panels, calls)
	}
	return st, nil
}

// rulerTicks is the least number of labelled ticks on the board's time
// ruler: round seconds, at least five labels.
const rulerTicks = 5

// CompareCalls returns every policy's calls per 100 ms as one line each, on
// the board's ruler: an interactive figure's legend then selects policies.
func (b *Board) CompareCalls() figure.Lines {
	n := int((b.End + Bucket - 1) / Bucket)
	l := figure.Lines{
		Title:  "calls per 100 ms, every policy",
		XLabel: "time (s)",
		YLabel: "calls per 100 ms",
		Step:   true,
		VLines: b.finishes(),
		Spans:  b.outage(),
	}
	for i, tr := range b.Traces {
		s := figure.Series{Name: schedule.Label(b.Names[i]), X: make([]float64, n+1), Y: make([]float64, n+1)}
		for k := range s.X {
			s.X[k] = (time.Duration(k) * Bucket).Seconds()
		}
		for k, c := range tr.Buckets(Bucket) {
			if k <= n {
				s.Y[k] = float64(c.Calls())
			}
		}
		l.Series = append(l.Series, s)
	}
	return l
}
