package synchrony

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/backofflab/backofflab/lab/chart"
	"github.com/backofflab/backofflab/lab/lcg"
	"github.com/backofflab/backofflab/lab/schedule"
)

// The lesson's setting for jitter at the cap, used by CapLesson: a short
// base and a low cap, so that the cohort spends almost the whole run at the
// cap.
const (
	// CapBase is the first window of the cap section's policies.
	CapBase = 100 * time.Millisecond
	// CapCap is their cap, reached at the fifth retry.
	CapCap = time.Second
	// CapWindow is the width of the windows whose peaks the section follows.
	CapWindow = 2 * time.Second
)

// CapLesson returns the lesson's cohort for jitter at the cap: Lesson's
// thousand clients against a dependency that stays down for the whole
// minute, so that every client keeps retrying, at the cap from its fifth
// retry on, under plain exponential backoff from CapBase to CapCap. Choose
// another policy with WithPolicy (see CapLineup).
func CapLesson() Cohort {
	c := Lesson().WithPolicy(schedule.Exponential{Base: CapBase, Cap: CapCap})
	c.Outage = c.Horizon
	return c
}

// CapLineup returns Lineup(CapBase, CapCap): the lesson's policies for the
// cap section.
func CapLineup() ([]schedule.Named, error) { return Lineup(CapBase, CapCap) }

// FixedFirst is a retry policy that waits exactly First before the first
// retry and lets Then choose every later wait (with n counted as usual, so
// Then's window for the second retry is its window for n = 1): jitter that
// starts one retry too late, as in a library that retries once after a fixed
// pause "to ride out blips" before backing off. A cohort under it returns in
// step at First. It draws from r only when Then does.
type FixedFirst struct {
	First time.Duration
	Then  schedule.Policy
}

// Delay returns First for n <= 0 and Then's wait otherwise; a nil Then
// waits First every time.
func (p FixedFirst) Delay(n int, prev time.Duration, r schedule.Uniform) time.Duration {
	if n <= 0 || p.Then == nil {
		return max(p.First, 0)
	}
	return p.Then.Delay(n, prev, r)
}

// LostJitter returns the retries of the lesson's cohort under full jitter
// (LessonBase, LessonCap) done right, and in the two ways of losing its
// effect after the first attempts: a plain first retry (FixedFirst after
// LessonBase) and one seed for every client (Cohort.SameSeed).
func LostJitter() []Stream {
	full := Lesson().WithPolicy(schedule.FullJitter{Base: LessonBase, Cap: LessonCap})
	return []Stream{
		{Name: "full jitter", Source: Retries{full}},
		{Name: "full jitter, plain first retry", Source: Retries{full.WithPolicy(FixedFirst{First: LessonBase, Then: full.Policy})}},
		{Name: "full jitter, one seed for all", Source: Retries{full.WithSameSeed()}},
	}
}

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
	With func(offset float64) Source
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
		{Name: "cron", Interval: time.Minute, Slot: time.Second, Span: 10 * time.Minute, With: func(f float64) Source {
			return Cron{Instances: 500, Period: time.Minute, Runs: 10, Offset: f, Seed: seed}
		}},
		{Name: "ttl", Interval: 5 * time.Minute, Slot: time.Second, Span: time.Hour, With: func(f float64) Source {
			return TTL{Keys: 500, TTL: 5 * time.Minute, Offset: f, Horizon: time.Hour, Seed: seed}
		}},
		{Name: "restart", Interval: 30 * time.Second, Slot: 10 * time.Millisecond, Span: 5 * time.Minute, With: func(f float64) Source {
			return RollingRestart{Instances: 100, Batch: 10, Step: 30 * time.Second, Connections: 20, Offset: f, Seed: seed}
		}},
		{Name: "heal", Interval: time.Second, Slot: 10 * time.Millisecond, Span: 33 * time.Second, With: func(f float64) Source {
			return PartitionHeal{Nodes: 1000, Interval: time.Second, Heal: 30*time.Second + 500*time.Millisecond, Offset: f, Seed: seed}
		}},
	}
}

// Panels draws the synchroniser's events over its Span at each offset,
// one panel per offset on one y scale (see the package-level Panels).
func (s Synchroniser) Panels(offsets ...float64) (chart.Stack, error) {
	var streams []Stream
	for _, f := range offsets {
		name := s.Name + ", no offset"
		if f > 0 {
			name = fmt.Sprintf("%s, offset up to %g %% of %s", s.Name, 100*f, interval(s.Interval))
		}
		streams = append(streams, Stream{Name: name, Source: s.With(f)})
	}
	return Panels(streams, s.Slot, s.Span)
}

// LessonOffsets are the offsets the lesson's synchroniser table compares:
// none, 1 % of the interval (a token offset), 20 % (a ±10 % jitter's width)
// and the whole interval.
var LessonOffsets = []float64{0, 0.01, 0.2, 1}

// A SyncRow is one synchroniser at one offset, measured.
type SyncRow struct {
	Name   string
	Offset float64
	Reading
}

// SyncTable measures every synchroniser at every offset, at the
// synchroniser's slot width.
func SyncTable(ss []Synchroniser, offsets []float64) ([]SyncRow, error) {
	var rows []SyncRow
	for _, s := range ss {
		for _, f := range offsets {
			r, err := Measure(s.With(f), s.Slot)
			if err != nil {
				return nil, fmt.Errorf("%s, offset %g: %w", s.Name, f, err)
			}
			rows = append(rows, SyncRow{Name: s.Name, Offset: f, Reading: r})
		}
	}
	return rows, nil
}

// WriteSyncRows prints rows as an aligned table, each peak with its slot
// width.
func WriteSyncRows(w io.Writer, rows []SyncRow) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "source\toffset\tevents\tpeak\tCV")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%.0f%%\t%d\t%d in %v\t%s\n", r.Name, 100*r.Offset, r.Events, r.Peak.Count, r.Peak.Width, formatCV(r.CV))
	}
	return tw.Flush()
}

// FixedDraw is a schedule.Uniform that returns the same "random" draw every
// time, in [0, 1), so that a policy's wait can be checked by hand against
// its formula: FullJitter{Base: time.Second}.Delay(3, 0, FixedDraw(0.25))
// is 0.25 · 8 s = 2 s.
type FixedDraw float64

// Float64 returns d.
func (d FixedDraw) Float64() float64 { return float64(d) }

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
