package overload

import (
	"time"

	"fmt"
	"slices"

	"github.com/backofflab/backofflab/lab"
	"github.com/backofflab/backofflab/lab/figure"
)

// Named is a Config with the name the lesson's tables and figures give it.
type Named struct {
	Name   string
	Config Config
}

// Remedies returns the four runs the lesson compares, all built on c:
// "no limit" (c itself), "budget" (c.WithBudget()), "breaker"
// (c.WithBreaker()) and "pacing" (c.WithPacing()).
func Remedies(c Config) []Named {
	return []Named{
		{"no limit", c},
		{"budget", c.WithBudget()},
		{"breaker", c.WithBreaker()},
		{"pacing", c.WithPacing()},
	}
}

// RemedyBoard runs the named variants of Remedies(c) on one board, in the
// order named; with no names it runs all four. An unknown name is an error
// that lists the names allowed.
func RemedyBoard(c Config, names ...string) (*Board, error) {
	all := Remedies(c)
	if len(names) == 0 {
		return NewBoard(all)
	}
	runs := make([]Named, 0, len(names))
	for _, name := range names {
		i := slices.IndexFunc(all, func(n Named) bool { return n.Name == name })
		if i < 0 {
			known := make([]string, len(all))
			for k, n := range all {
				known[k] = n.Name
			}
			return nil, fmt.Errorf("overload: no remedy named %q: want one of %q", name, known)
		}
		runs = append(runs, all[i])
	}
	return NewBoard(runs)
}

// Board is several runs of one setting laid out for the lesson's figures:
// every figure of a board has the same time ruler (the runs share their
// duration, timeline resolution and dip) and shades the dip.
type Board struct {
	// Names, Configs and Results describe each run, in order.
	Names   []string
	Configs []Config
	Results []Result
}

// NewBoard runs each config and lays the runs out for the figures. The runs
// must have distinct names and the same Duration, Sample, DipStart and
// DipEnd, so that their timelines share one ruler.
func NewBoard(runs []Named) (*Board, error) {
	if len(runs) == 0 {
		return nil, fmt.Errorf("overload: NewBoard needs at least one run")
	}
	b := &Board{}
	first := runs[0]
	for i, n := range runs {
		if i > 0 {
			if _, err := b.index(n.Name); err == nil {
				return nil, fmt.Errorf("overload: NewBoard: two runs are named %q: want distinct names", n.Name)
			}
			c, f := n.Config, first.Config
			if c.Duration != f.Duration || c.Sample != f.Sample || c.DipStart != f.DipStart || c.DipEnd != f.DipEnd {
				return nil, fmt.Errorf("overload: NewBoard: run %q has Duration %v, Sample %v, dip %v–%v; run %q has %v, %v, %v–%v: want the same time ruler",
					n.Name, c.Duration, c.Sample, c.DipStart, c.DipEnd, first.Name, f.Duration, f.Sample, f.DipStart, f.DipEnd)
			}
		}
		r, err := Run(n.Config)
		if err != nil {
			return nil, fmt.Errorf("run %q: %w", n.Name, err)
		}
		b.Names = append(b.Names, n.Name)
		b.Configs = append(b.Configs, n.Config)
		b.Results = append(b.Results, r)
	}
	return b, nil
}

// Of returns the result of the named run, or the zero Result if the board
// has no run of that name.
func (b *Board) Of(name string) Result { return lab.Of(b.runs(), boardRun.key, name).result }

// ConfigOf returns the configuration of the named run, or the zero Config
// if the board has no run of that name.
func (b *Board) ConfigOf(name string) Config { return lab.Of(b.runs(), boardRun.key, name).config }

// boardRun is one run of a board, as Of finds it.
type boardRun struct {
	name   string
	config Config
	result Result
}

func (r boardRun) key() string { return r.name }

// runs returns the board's runs, in order.
func (b *Board) runs() []boardRun {
	out := make([]boardRun, len(b.Names))
	for i, name := range b.Names {
		out[i] = boardRun{name, b.Configs[i], b.Results[i]}
	}
	return out
}

// index returns the position of the named run.
func (b *Board) index(name string) (int, error) {
	for i, n := range b.Names {
		if n == name {
			return i, nil
		}
	}
	return 0, fmt.Errorf("overload: board has no run %q: want one of %q", name, b.Names)
}

// Quantity is what a timeline figure plots against time.
type Quantity int

const (
	// Offered is the rate of attempts reaching the server, per second.
	Offered Quantity = iota
	// Goodput is the rate of requests served while their client still
	// waited, per second.
	Goodput
	// Queue is the number of entries waiting in the queue.
	Queue
	// Wasted is the rate of entries served after their client had given
	// up, per second.
	Wasted
)

// String returns the quantity's name as a figure's axis gives it.
func (q Quantity) String() string {
	switch q {
	case Offered:
		return "offered load (attempts/s)"
	case Goodput:
		return "goodput (requests/s)"
	case Queue:
		return "queue (entries)"
	case Wasted:
		return "served for nobody (entries/s)"
	}
	return fmt.Sprintf("Quantity(%d)", int(q))
}

// value picks q from a timeline point.
func (q Quantity) value(p Point) float64 {
	switch q {
	case Offered:
		return p.Offered
	case Goodput:
		return p.Goodput
	case Queue:
		return float64(p.Queue)
	case Wasted:
		return p.Wasted
	}
	return 0
}

// dip shades the capacity dip, if any.
func (b *Board) dip() []figure.Span {
	c := b.Configs[0]
	if c.DipEnd <= c.DipStart {
		return nil
	}
	return []figure.Span{{From: c.DipStart.Seconds(), To: c.DipEnd.Seconds(), Label: "dip"}}
}

// reference is the dashed line that reads q: normal capacity for the
// server's work per second (a histogram, whose y axis leaves room above the
// line for its label), and for the queue the length beyond which an entry
// waits longer than the client timeout (capacity × Timeout), so that every
// queued attempt is abandoned. The offered load and goodput have none: their
// data run along their reference (capacity, the new-request rate) to the
// end of the run, where a line's label is written, so [Board.Lines] draws
// those as a series of their own, named in the legend (see flat).
func (b *Board) reference(q Quantity) []figure.HLine {
	c := b.Configs[0]
	switch q {
	case Wasted:
		return []figure.HLine{{Y: c.Capacity, Label: fmt.Sprintf("capacity %g/s", c.Capacity)}}
	case Queue:
		return []figure.HLine{{Y: c.Capacity * c.Timeout.Seconds(), Label: fmt.Sprintf("%v of work: queued attempts time out", c.Timeout)}}
	}
	return nil
}

// Lines returns q over time, one line per run (a step per timeline sample),
// the dip shaded, and a reference: for the queue a dashed line at the
// length beyond which every queued attempt waits past its client's timeout,
// capacity for the waste; for the offered load the capacity and for goodput
// the new-request rate as a last, flat series named in the legend (a dashed
// line's label would sit on the data). The references use the first run's
// Config.
func (b *Board) Lines(q Quantity) figure.Lines {
	l := figure.Lines{
		Title:  q.String(),
		XLabel: "time (s)",
		YLabel: q.String(),
		Step:   true,
		HLines: b.reference(q),
		Spans:  b.dip(),
	}
	for i, r := range b.Results {
		s := figure.Series{Name: b.Names[i], X: make([]float64, len(r.Timeline)), Y: make([]float64, len(r.Timeline))}
		for k, p := range r.Timeline {
			s.X[k], s.Y[k] = p.Start.Seconds(), q.value(p)
		}
		l.Series = append(l.Series, s)
	}
	c := b.Configs[0]
	switch q {
	case Offered:
		l.Series = append(l.Series, flat(fmt.Sprintf("capacity (%g/s)", c.Capacity), c.Capacity, c.Duration))
	case Goodput:
		l.Series = append(l.Series, flat(fmt.Sprintf("new requests (%g/s)", c.Rate), c.Rate, c.Duration))
	}
	return l
}

// flat is the series at y from 0 to the end of a run of length d.
func flat(name string, y float64, d time.Duration) figure.Series {
	return figure.Series{Name: name, X: []float64{0, d.Seconds()}, Y: []float64{y, y}}
}

// Timeline returns offered load, goodput and queue length as three panels on
// one time ruler, one line per run, the dip shaded in every panel.
func (b *Board) Timeline() figure.Stack {
	c := b.Configs[0]
	s := figure.Stack{
		Title: fmt.Sprintf("%g requests/s, capacity %g/s, timeout %v, capacity ×%g from %v to %v",
			c.Rate, c.Capacity, c.Timeout, c.DipCapacity, c.DipStart, c.DipEnd),
	}
	for _, q := range []Quantity{Offered, Goodput, Queue} {
		l := b.Lines(q)
		l.Title = ""
		s.Panels = append(s.Panels, l)
	}
	return s
}

// Work returns what the server spent its capacity on in the named run,
// per timeline sample: requests served while their client still waited
// (goodput) and entries served after their client had given up, stacked,
// with the normal capacity as a dashed line and the dip shaded. The y axis
// reaches a quarter above the capacity, so that the line's label sits
// above the bars that fill the capacity.
func (b *Board) Work(name string) (figure.Histogram, error) {
	i, err := b.index(name)
	if err != nil {
		return figure.Histogram{}, err
	}
	col := b.Results[i].Columns()
	return figure.Histogram{
		Title:  fmt.Sprintf("What the server spends its capacity on: %s", name),
		YLabel: "entries served per second",
		Slot:   b.Configs[i].Sample,
		Layers: []figure.Layer{
			{Name: "client still waiting (goodput)", Counts: col.Goodput},
			{Name: "client gave up (wasted)", Counts: col.Wasted},
		},
		HLines: b.reference(Wasted),
		Spans:  b.dip(),
		YMax:   1.25 * b.Configs[i].Capacity,
	}, nil
}
