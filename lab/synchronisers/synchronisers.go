package synchronisers

import (
	"fmt"
	"slices"
	"time"

	"github.com/backofflab/backofflab/lab/figure"
	"github.com/backofflab/backofflab/lab/lcg"
	"github.com/backofflab/backofflab/lab/metrics"
	"github.com/backofflab/backofflab/lab/table"
)

// A Synchroniser is one of the lesson's other sources of synchronisation:
// a setting whose events can be generated with any offset, and the slot
// width and time span at which the lesson measures and draws them.
type Synchroniser struct {
	// Name says what lines up.
	Name string
	// Interval is the setting's natural interval, of which an offset is a
	// fraction.
	Interval time.Duration
	// Slot is the width at which the peak is reported.
	Slot time.Duration
	// Span is the time the lesson's figures draw, from 0.
	Span time.Duration
	// With returns the setting's events with the given offset, a fraction
	// of its natural interval in [0, 1].
	With func(offset float64) metrics.Source
}

// Synchronisers returns the lesson's four settings, each seeded with
// lcg.DefaultSeed:
//
//   - cron: 500 instances run a job every minute, for 10 minutes, measured in
//     1 s slots;
//   - ttl: 500 keys written together with a 5 minute TTL, reloaded on every
//     expiry, for an hour, in 1 s slots;
//   - restart: 100 instances restarted 10 at a time every 30 s, each opening a
//     pool of 20 connections, in 10 ms slots;
//   - heal: 1000 nodes reconnecting every second through a partition that
//     heals at 30.5 s, in 10 ms slots.
func Synchronisers() []Synchroniser {
	seed := int64(lcg.DefaultSeed)
	return []Synchroniser{
		{Name: "cron", Interval: time.Minute, Slot: time.Second, Span: 10 * time.Minute, With: func(f float64) metrics.Source {
			return Cron{Instances: 500, Period: time.Minute, Runs: 10, Offset: f, Seed: seed}
		}},
		{Name: "ttl", Interval: 5 * time.Minute, Slot: time.Second, Span: time.Hour, With: func(f float64) metrics.Source {
			return TTL{Keys: 500, TTL: 5 * time.Minute, Offset: f, Horizon: time.Hour, Seed: seed}
		}},
		{Name: "restart", Interval: 30 * time.Second, Slot: 10 * time.Millisecond, Span: 5 * time.Minute, With: func(f float64) metrics.Source {
			return RollingRestart{Instances: 100, Batch: 10, Step: 30 * time.Second, Connections: 20, Offset: f, Seed: seed}
		}},
		{Name: "heal", Interval: time.Second, Slot: 10 * time.Millisecond, Span: 33 * time.Second, With: func(f float64) metrics.Source {
			return PartitionHeal{Nodes: 1000, Interval: time.Second, Heal: 30*time.Second + 500*time.Millisecond, Offset: f, Seed: seed}
		}},
	}
}

// Panels draws the synchroniser's events over its Span at each offset,
// one panel per offset on one y scale (see metrics.Panels).
func (s Synchroniser) Panels(offsets ...float64) (figure.Stack, error) {
	var streams []metrics.Stream
	for _, f := range offsets {
		name := s.Name + ", no offset"
		if f > 0 {
			name = fmt.Sprintf("%s, offset up to %g %% of %s", s.Name, 100*f, interval(s.Interval))
		}
		streams = append(streams, metrics.Stream{Name: name, Source: s.With(f)})
	}
	return metrics.Panels(streams, s.Slot, s.Span)
}

// LessonOffsets are the offsets the lesson's synchroniser table compares:
// none, 1 % of the interval (a token offset), 20 % (a ±10 % jitter's width)
// and the whole interval.
var LessonOffsets = []float64{0, 0.01, 0.2, 1}

// A Row is one synchroniser at one offset, measured.
type Row struct {
	Name   string
	Offset float64
	metrics.Reading
}

// Table measures every synchroniser at every offset, at the
// synchroniser's slot width.
func Table(ss []Synchroniser, offsets []float64) (Rows, error) {
	var rows Rows
	for _, s := range ss {
		for _, f := range offsets {
			r, err := metrics.Measure(s.With(f), s.Slot)
			if err != nil {
				return nil, fmt.Errorf("%s, offset %g: %w", s.Name, f, err)
			}
			rows = append(rows, Row{Name: s.Name, Offset: f, Reading: r})
		}
	}
	return rows, nil
}

// Rows are the rows of Table.
type Rows []Row

// Table returns the rows as a table, each peak with its slot width.
func (rs Rows) Table() table.Table {
	t := table.New("source", "offset", "events", "peak", "CV")
	for _, r := range rs {
		t.Add(r.Name, table.Num("%.0f%%", 100*r.Offset), r.Events, table.Num("%d in %v", r.Peak.Count, r.Peak.Width), table.Num("%s", metrics.FormatCV(r.CV)))
	}
	return t
}

// interval writes a whole number of minutes or seconds as "5 min" or "30 s",
// and anything else as time.Duration does.
func interval(d time.Duration) string {
	switch {
	case d > 0 && d%time.Minute == 0:
		return fmt.Sprintf("%d min", d/time.Minute)
	case d > 0 && d%time.Second == 0:
		return fmt.Sprintf("%d s", d/time.Second)
	}
	return d.String()
}

// OffsetTable measures the cron job c, in slots of slot, with its
// instances all on the minute, at random offsets over the whole period, and
// at offsets spread evenly over it: one line each.
func (c Cron) OffsetTable(slot time.Duration) (table.Table, error) {
	var streams []metrics.Stream
	for _, v := range []struct {
		name   string
		offset float64
		even   bool
	}{{"all on the minute", 0, false}, {"random offsets", 1, false}, {"even offsets", 1, true}} {
		c.Offset, c.Even = v.offset, v.even
		streams = append(streams, metrics.Stream{Name: v.name, Source: c})
	}
	t, err := metrics.MeasureTable(streams, slot)
	if err != nil {
		return table.Table{}, err
	}
	t.Note("%d instances, a job every %v, %d runs each, peaks in %v slots", c.Instances, c.Period, c.Runs, slot)
	return t, nil
}

// IntervalTable returns, per synchroniser, its natural interval, 1 % and
// 20 % of it (the lesson's token offset and a ±10 % jitter's width), and the
// slot its peak is reported at.
func IntervalTable(ss []Synchroniser) table.Table {
	t := table.New("source", "interval", "1 %", "20 %", "slot")
	for _, s := range ss {
		t.Add(s.Name, s.Interval, s.Interval/100, s.Interval/5, s.Slot)
	}
	return t
}

// Find returns the lesson's synchroniser called name, or an error listing
// the names.
func Find(name string) (Synchroniser, error) {
	var names []string
	for _, s := range Synchronisers() {
		if s.Name == name {
			return s, nil
		}
		names = append(names, s.Name)
	}
	return Synchroniser{}, fmt.Errorf("synchronisers: no synchroniser %q: want one of %v", name, names)
}

// HealTable runs the partition p healing at each time of heals and returns,
// per heal, how far apart its reconnections fall and the peak at each slot
// width of slots.
func HealTable(p PartitionHeal, heals, slots []time.Duration) (table.Table, error) {
	t := table.New("heals at", "reconnections spread over")
	for _, s := range slots {
		t.Head = append(t.Head, "peak per "+s.String())
	}
	for _, heal := range heals {
		p.Heal = heal
		ts, err := p.Events()
		if err != nil {
			return table.Table{}, err
		}
		row := []any{heal, (slices.Max(ts) - slices.Min(ts)).Round(time.Millisecond)}
		for _, slot := range slots {
			r, err := metrics.Measure(p, slot)
			if err != nil {
				return table.Table{}, err
			}
			row = append(row, r.Peak.Count)
		}
		t.Add(row...)
	}
	return t, nil
}
