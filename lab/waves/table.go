package waves

import (
	"fmt"
	"time"

	"github.com/backofflab/backofflab/lab/metrics"
	"github.com/backofflab/backofflab/lab/schedule"
	"github.com/backofflab/backofflab/lab/table"
)

// Table returns one line per run: its Label, the attempts planned, those
// never made because the client had already succeeded ("done early"),
// those lost past the window, the attempts counted, and the peak with its
// slot width. The three counts after "planned" make up Clients × Attempts.
func (rs Results) Table() table.Table {
	t := table.New("run", "planned", "done early", "past window", "counted", "peak")
	for _, r := range rs {
		t.Add(r.Config.Label(), r.Planned(), r.SkippedAfterSuccess, r.SkippedPastWindow, r.Total, r.Peak())
	}
	return t
}

// Table returns the sweeps side by side: one line per slot width, one
// column per sweep holding the reported peak rate and, in brackets, the
// count in the fullest slot. The sweeps must have been measured at the
// same widths.
func (sweeps SlotSweeps) Table() (table.Table, error) {
	t := table.New("slot")
	if len(sweeps) == 0 {
		return t, nil
	}
	n := len(sweeps[0].Peaks)
	for _, s := range sweeps[1:] {
		if len(s.Peaks) != n {
			return table.Table{}, fmt.Errorf("waves: sweeps of %d and %d widths: want the same widths in every sweep", n, len(s.Peaks))
		}
		for i, p := range s.Peaks {
			if w := sweeps[0].Peaks[i].Width; p.Width != w {
				return table.Table{}, fmt.Errorf("waves: width %d is %v in one sweep and %v in another: want the same widths in every sweep", i, w, p.Width)
			}
		}
	}
	for _, s := range sweeps {
		t.Head = append(t.Head, s.Config.Label())
	}
	for i := range n {
		row := []any{sweeps[0].Peaks[i].Width}
		for _, s := range sweeps {
			p := s.Peaks[i]
			row = append(row, table.Num("%.0f/s (%d)", p.PerSecond(), p.Count))
		}
		t.Add(row...)
	}
	return t, nil
}

// String describes the configuration in one line: "600 clients, 6 attempts
// from 1s, outage 20s, window 40s, jitter 0, slot 200ms, seed 1513241".
func (c Config) String() string {
	return fmt.Sprintf("%d clients, %d attempts from %v, outage %v, window %v, jitter %g, slot %v, seed %d",
		c.Clients, c.Attempts, c.Base, c.Outage, c.Window, c.Jitter, c.Slot, c.Seed)
}

// ScheduleTable returns one line per attempt of this model: its number i,
// the time it is scheduled at without jitter (Base·2ⁱ⁻¹ after the
// failure) and the time since attempt i−1 (since the failure for the
// first), which is half of it.
func (m *Model) ScheduleTable() table.Table {
	t := table.New("attempt i", "at t", "after attempt i−1")
	for i := 1; i <= m.cfg.Attempts; i++ {
		t.Add(i, m.Nominal(i), m.Nominal(i)-m.Nominal(i-1))
	}
	return t
}

// ConventionTable sets this model's schedule beside the other way to
// write exponential backoff, the one retry libraries and lab/schedule use:
// on the left attempt i at t = Base·2ⁱ⁻¹ after the failure and the time
// since attempt i−1 (as ScheduleTable); on the right retry n (from 0, the same
// row as attempt n+1), the wait before it, Base·2ⁿ, counted from the
// attempt before, and the time it lands at, its waits added up. Each named
// policy adds a column of its waits before retry n (a cap bounds a wait).
func (m *Model) ConventionTable(policies ...schedule.Named) table.Table {
	t := table.New("attempt i", "at t", "after i−1", "|", "retry n", "wait before it", "lands at")
	for _, p := range policies {
		t.Head = append(t.Head, "wait, "+p.Name)
	}
	free := schedule.Exponential{Base: m.cfg.Base}
	var at time.Duration
	for i := 1; i <= m.cfg.Attempts; i++ {
		w := free.Delay(i-1, 0, nil)
		at += w
		row := []any{i, m.Nominal(i), m.Nominal(i) - m.Nominal(i-1), "|", i - 1, w, at}
		for _, p := range policies {
			row = append(row, p.Policy.Delay(i-1, 0, nil))
		}
		t.Add(row...)
	}
	return t
}

// InWindow returns the number of attempts scheduled (without jitter)
// before the window ends.
func (m *Model) InWindow() int {
	n := 0
	for i := 1; i <= m.cfg.Attempts && m.Nominal(i) < m.cfg.Window; i++ {
		n++
	}
	return n
}

// band returns the band attempt i is drawn from at full width, [dᵢ/2,
// 3dᵢ/2), as "500ms to 1.5s".
func (m *Model) band(i int) string {
	d := m.Nominal(i)
	return fmt.Sprintf("%v to %v", d/2, 3*d/2)
}

// AttemptTable returns the attempts of the first clients clients, one line
// each in the order the model walks them: the client, the attempt's number,
// its time (to the millisecond), the band it was drawn from at full width
// and what became of it.
func (m *Model) AttemptTable(clients int) table.Table {
	t := table.New("client", "attempt", "at", "band at full width", "outcome")
	for a := range m.Attempts() {
		if a.Client >= clients {
			break
		}
		t.Add(a.Client, a.N, a.At.Round(time.Millisecond), table.Num("%s", m.band(a.N)), a.Outcome.String())
	}
	return t
}

// ByAttemptTable returns, per attempt number, how many clients failed,
// succeeded or ran past the window (ByAttempt), beside the band the attempt
// is drawn from at full width; notes under it walk from the planned
// attempts to the counted ones and say what became of the clients.
func (m *Model) ByAttemptTable() table.Table {
	t := table.New("attempt", "band at full width", "failed", "succeeded", "past window")
	for i, n := range m.ByAttempt() {
		t.Add(i+1, table.Num("%s", m.band(i+1)), n.Failed, n.Succeeded, n.PastWindow)
	}
	r := m.Run()
	t.Note("planned %d, minus %d after an early success, minus %d at or past the window: %d counted",
		r.Planned(), r.SkippedAfterSuccess, r.SkippedPastWindow, r.Total)
	t.Note("clients: %d recovered, %d cut off by the window, %d of %d (%.0f%%) still failing after their last attempt",
		r.Recovered, r.CutOff, r.Exhausted, r.Config.Clients, 100*float64(r.Exhausted)/float64(r.Config.Clients))
	return t
}

// Versus returns what b changes against a: the peak (per second, and how
// many times lower) and the attempts counted (and the share fewer).
func Versus(a, b Result) table.Table {
	pa, pb := a.Peak().PerSecond(), b.Peak().PerSecond()
	t := table.New("", a.Config.Label(), b.Config.Label(), "change")
	t.Add("peak (/s)", pa, pb, table.Num("%.2f times lower", pa/pb))
	t.Add("attempts", a.Total, b.Total, table.Num("%.1f%% fewer", 100*float64(a.Total-b.Total)/float64(a.Total)))
	return t
}

// ReturnTable returns what a service that comes back after the outage,
// able to serve capacity requests a second, meets in each run: the run's
// whole peak, its fullest slot from the end of the outage on (and how many
// times the capacity that is), and the attempts in the first second after
// the outage.
func (rs Results) ReturnTable(capacity float64) (table.Table, error) {
	if len(rs) == 0 {
		return table.Table{}, fmt.Errorf("waves: ReturnTable of no runs: want at least one")
	}
	if !(capacity > 0) {
		return table.Table{}, fmt.Errorf("waves: capacity %v out of range: want capacity > 0 requests per second", capacity)
	}
	t := table.New("run", "whole run's peak", "fullest slot after the outage", "× capacity", "attempts in its first second")
	for _, r := range rs {
		back := r.Config.Outage
		from := r.Histogram.PeakFrom(back)
		seconds, err := r.Histogram.Rebin(time.Second)
		if err != nil {
			return table.Table{}, err
		}
		first := 0
		if k := int(back / time.Second); k < len(seconds.Counts) {
			first = seconds.Counts[k]
		}
		t.Add(r.Config.Label(), r.Peak(), from, table.Num("%.2f×", from.PerSecond()/capacity), first)
	}
	t.Note("capacity %g/s; the first second after the outage is [%v, %v)", capacity, rs[0].Config.Outage, rs[0].Config.Outage+time.Second)
	return t, nil
}

// VersusFinest returns, for every width of the sweep but the first, the
// peak rate it reports and how many times below the first (finest)
// width's reading that is.
func (s SlotSweep) VersusFinest() table.Table {
	t := table.New("slot", "reports", "below the finest reading")
	if len(s.Peaks) == 0 {
		return t
	}
	finest := s.Peaks[0]
	for _, p := range s.Peaks[1:] {
		t.Add(p.Width, table.Num("%v/s", p.PerSecond()), table.Num("%.0f times below %v", finest.PerSecond()/p.PerSecond(), finest.Width))
	}
	return t
}

// FinestTable returns one line per sweep: its run, the peak at the finest
// width and the peak at width w.
func (ss SlotSweeps) FinestTable(w time.Duration) table.Table {
	t := table.New("run", "finest", "at "+w.String())
	for _, s := range ss {
		if len(s.Peaks) > 0 {
			t.Add(s.Config.Label(), s.Peaks[0], s.PeakAt(w))
		}
	}
	return t
}

// CVStreams returns, for each configuration, the times of the run's
// attempts as a whole and of its first attempts only, named after the run,
// for metrics.CVTable.
func CVStreams(cs ...Config) ([]metrics.Stream, error) {
	var out []metrics.Stream
	for _, c := range cs {
		m, err := New(c)
		if err != nil {
			return nil, err
		}
		var first []time.Duration
		for a := range m.Attempts() {
			if a.N == 1 {
				first = append(first, a.At)
			}
		}
		out = append(out, metrics.Stream{Name: c.Label() + ", whole run", Source: metrics.Times(m.Times())},
			metrics.Stream{Name: c.Label() + ", first attempts only", Source: metrics.Times(first)})
	}
	return out, nil
}

// bandOf returns the band [d(1 − w/2), d(1 + w/2)) attempt i is drawn from
// at width w.
func (m *Model) bandOf(i int, w float64) (lo, hi time.Duration) {
	d := float64(m.Nominal(i))
	return time.Duration(d * (1 - w/2)), time.Duration(d * (1 + w/2))
}

// BandTable returns one line per attempt: its number, its scheduled time
// and, for each width w, the band [d(1 − w/2), d(1 + w/2)) it is drawn from.
func (m *Model) BandTable(widths ...float64) table.Table {
	t := table.New("attempt", "scheduled")
	for _, w := range widths {
		t.Head = append(t.Head, fmt.Sprintf("w = %.0f%%", 100*w))
	}
	for i := 1; i <= m.cfg.Attempts; i++ {
		row := []any{i, m.Nominal(i)}
		for _, w := range widths {
			lo, hi := m.bandOf(i, w)
			row = append(row, table.Num("[%v, %v)", lo, hi))
		}
		t.Add(row...)
	}
	return t
}

// GapTable returns, for each width, what lies between the bands of
// neighbouring attempts: the gap [end of band i, start of band i+1), or
// "overlap" where the bands meet or overlap.
func (m *Model) GapTable(widths ...float64) table.Table {
	t := table.New("w")
	for i := 1; i < m.cfg.Attempts; i++ {
		t.Head = append(t.Head, fmt.Sprintf("attempts %d–%d", i, i+1))
	}
	for _, w := range widths {
		row := []any{table.Num("%.0f%%", 100*w)}
		for i := 1; i < m.cfg.Attempts; i++ {
			_, end := m.bandOf(i, w)
			next, _ := m.bandOf(i+1, w)
			if next <= end {
				row = append(row, "overlap")
				continue
			}
			row = append(row, table.Text("gap [%v, %v)", end, next))
		}
		t.Add(row...)
	}
	return t
}

// InGaps returns how many of the run's attempts land between the bands of
// neighbouring attempts: none, when the draws stay inside their bands.
func (m *Model) InGaps() int {
	n := 0
	for a := range m.Attempts() {
		for i := 1; i < m.cfg.Attempts; i++ {
			_, end := m.bandOf(i, m.cfg.Jitter)
			next, _ := m.bandOf(i+1, m.cfg.Jitter)
			if a.At >= end && a.At < next {
				n++
			}
		}
	}
	return n
}

// PeakDrops returns, for each run after the first, how its peak compares
// with the previous run's: the two peaks and the share lower.
func (rs Results) PeakDrops() table.Table {
	t := table.New("from → to", "peak", "lower")
	for i := 1; i < len(rs); i++ {
		prev, cur := rs[i-1].Peak().PerSecond(), rs[i].Peak().PerSecond()
		t.Add(table.Text("%s → %s", rs[i-1].Config.Label(), rs[i].Config.Label()), table.Num("%v/s → %v/s", prev, cur), table.Num("%.0f%%", 100*(prev-cur)/prev))
	}
	return t
}

// PeakMixTable returns, for the lesson run at each width, what fills its
// fullest slot (PeakByAttempt): the slot, the first attempts and the
// second ones in it, beside the average rate of the first wave alone
// (Clients spread over w × Base).
func PeakMixTable(c Config, widths ...float64) (table.Table, error) {
	t := table.New("w", "fullest slot", "first attempts", "second attempts", "first wave alone averages")
	for _, w := range widths {
		m, err := New(c.WithJitter(w))
		if err != nil {
			return table.Table{}, err
		}
		p, by := m.PeakByAttempt()
		second := 0
		if len(by) > 1 {
			second = by[1]
		}
		t.Add(table.Num("%.0f%%", 100*w), p, by[0], second, table.Num("%.0f/s", float64(c.Clients)/(w*c.Base.Seconds())))
	}
	return t, nil
}

// PredictionTable returns, for the lesson run at each width, the box model's
// prediction of the peak beside the first wave's measured peak and the whole
// run's: the first wave is Clients attempts spread evenly over a window of
// w × Base, so a slot holds Clients × Slot / window of them (all of them
// while the window is narrower than a slot).
func PredictionTable(c Config, widths ...float64) (table.Table, error) {
	t := table.New("w", "window", "window/slot", "predicted /s", "wave 1 alone /s", "whole run /s")
	for _, w := range widths {
		m, err := New(c.WithJitter(w))
		if err != nil {
			return table.Table{}, err
		}
		window := time.Duration(w * float64(m.Nominal(1)))
		spike := float64(c.Clients) / c.Slot.Seconds()   // the burst in one slot: 3000/s
		ratio := max(1, float64(window)/float64(c.Slot)) // a box narrower than a slot leaves the count in one slot
		t.Add(table.Num("%.0f%%", 100*w), window, table.Num("%.2f", ratio), table.Num("%.0f", spike/ratio), m.Wave(1).Peak().PerSecond(), m.Run().Peak().PerSecond())
	}
	return t, nil
}

// CapacityTable returns one line per run: its peak, the peak as a multiple
// of capacity (requests per second), and how many times lower it is than
// the first run's (the cut).
func (rs Results) CapacityTable(capacity float64) (table.Table, error) {
	if !(capacity > 0) {
		return table.Table{}, fmt.Errorf("waves: capacity %v out of range: want capacity > 0 requests per second", capacity)
	}
	t := table.New("run", "peak", fmt.Sprintf("× the %v/s capacity", capacity), "cut against the first run")
	for _, r := range rs {
		p := r.Peak().PerSecond()
		t.Add(r.Config.Label(), table.Num("%v/s", p), table.Num("%.4f", p/capacity), table.Num("×%.4f", rs[0].Peak().PerSecond()/p))
	}
	return t, nil
}

// BaseSpreadTable returns, for c at each base, the spread of its peak rate
// over seeds (OverSeeds).
func BaseSpreadTable(c Config, bases []time.Duration, seeds []int64) (table.Table, error) {
	t := table.New("base", fmt.Sprintf("peak over %d seeds (/s)", len(seeds)))
	for _, b := range bases {
		s, err := OverSeeds(c.WithBase(b), seeds)
		if err != nil {
			return table.Table{}, err
		}
		t.Add(b, s.Peak)
	}
	return t, nil
}

// Scheduled returns the scheduled (un-jittered) time of every attempt, in
// order.
func (m *Model) Scheduled() []time.Duration {
	out := make([]time.Duration, m.cfg.Attempts)
	for i := range out {
		out[i] = m.Nominal(i + 1)
	}
	return out
}

// FirstAfterOutage returns the scheduled time of the first attempt at or
// after the end of the outage, and false if every attempt is scheduled
// during it.
func (m *Model) FirstAfterOutage() (time.Duration, bool) {
	for _, d := range m.Scheduled() {
		if d >= m.cfg.Outage {
			return d, true
		}
	}
	return 0, false
}

// RefusalTable returns what a server able to serve capacity requests a
// second does with the run: the attempts it can serve per slot, what
// arrives, is served and is refused in the fullest slot and over the whole
// run, and the slot of the last refusal.
func (r Result) RefusalTable(capacity float64) (table.Table, error) {
	if !(capacity > 0) {
		return table.Table{}, fmt.Errorf("waves: capacity %v out of range: want capacity > 0 requests per second", capacity)
	}
	perSlot := int(capacity * r.Config.Slot.Seconds())
	served, refused, err := r.Histogram.Clip(perSlot)
	if err != nil {
		return table.Table{}, err
	}
	p := r.Peak()
	last := 0
	for k, n := range refused.Counts {
		if n > 0 {
			last = k
		}
	}
	t := table.New("", "arrive", "served", "refused")
	t.Add(table.Text("fullest slot (at %v)", p.At()), p.Count, served.Counts[p.Slot], refused.Counts[p.Slot])
	t.Add("whole run", r.Total, served.Total(), table.Num("%d (%.1f%%)", refused.Total(), 100*float64(refused.Total())/float64(r.Total)))
	t.Note("capacity per %v slot: %d; the last refusal comes in the slot at %v", r.Config.Slot, perSlot, refused.Start(last))
	return t, nil
}
