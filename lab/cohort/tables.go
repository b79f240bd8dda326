package cohort

import (
	"time"

	"github.com/backofflab/backofflab/lab"
	"github.com/backofflab/backofflab/lab/schedule"
)

// The lesson's seed counts and table settings.
const (
	// DefaultSeeds is how many seeds the lesson averages over.
	DefaultSeeds = 40
	// OverloadSeeds is how many seeds the overload table averages over.
	OverloadSeeds = 20
)

// DefaultCaps are the caps of the lesson's cap table, and DefaultSpreads the
// windows of its spread table.
var (
	DefaultCaps    = []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond, 1600 * time.Millisecond, 3200 * time.Millisecond}
	DefaultSpreads = []time.Duration{10 * time.Millisecond, 25 * time.Millisecond, 50 * time.Millisecond, 100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond}
)

// Row is one line of a policy table: a policy's means over the seeds.
type Row struct {
	// Policy is the policy's name, one of schedule.Names for the lesson's
	// lineups; schedule.Label gives its display label.
	Policy string `json:"policy"`
	Summary
}

// Rows is a policy table, one Row per policy in the lineup's order.
type Rows []Row

// Of returns the row of the named policy (schedule.NameFull, say), or the
// zero Row if no row has that name.
func (rs Rows) Of(name string) Row { return lab.Of(rs, func(r Row) string { return r.Policy }, name) }

// Table runs c under each policy (c.Policy is ignored) and averages each
// over seeds seeds from c.Seed on.
func Table(c Config, policies []schedule.Named, seeds int) (Rows, error) {
	return policyTable(events(), c, policies, seeds)
}

func policyTable(a *averager, c Config, policies []schedule.Named, seeds int) (Rows, error) {
	rows := make(Rows, len(policies))
	for i, p := range policies {
		c.Policy = p.Policy
		s, _, err := a.average(c, seeds, false)
		if err != nil {
			return nil, err
		}
		rows[i] = Row{p.Name, s}
	}
	return rows, nil
}

// CapRow is one line of the cap table: a policy under one cap.
type CapRow struct {
	Cap time.Duration `json:"-"`
	// CapMs is Cap in milliseconds, for JSON.
	CapMs float64 `json:"cap_ms"`
	Row
}

// CapTable runs c under the four backoff policies of the lineup (the
// constant wait has no cap) with base DefaultBase and each cap in turn.
func CapTable(c Config, caps []time.Duration, seeds int) (CapRows, error) {
	return capTable(events(), c, caps, seeds)
}

func capTable(a *averager, c Config, caps []time.Duration, seeds int) (CapRows, error) {
	var out CapRows
	for _, cp := range caps {
		l, err := NewLineup(DefaultBase, cp, DefaultWait)
		if err != nil {
			return nil, err
		}
		var backoff []schedule.Named
		for _, p := range l {
			if p.Name != schedule.NameConstant {
				backoff = append(backoff, p)
			}
		}
		rows, err := policyTable(a, c, backoff, seeds)
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			out = append(out, CapRow{cp, ms(cp), r})
		}
	}
	return out, nil
}

// SpreadRow is one line of the spread table: the cohort's first attempts
// spread over a window, and how wide each burst of retries stays.
type SpreadRow struct {
	// Spread is the window over which the first attempts were drawn.
	Spread time.Duration `json:"-"`
	// SpreadMs is Spread in milliseconds, for JSON.
	SpreadMs float64 `json:"spread_ms"`
	// Initial is the mean width (ms) of the first attempts' burst, wave 0.
	Initial float64 `json:"initial_ms"`
	// Held is the mean width (ms) of the last wave that still holds every
	// client: the burst after every wait the whole cohort slept through.
	Held float64 `json:"held_ms"`
	// HeldWaves is the fewest waves holding every client in any seed.
	HeldWaves int `json:"held_waves"`
	// Widths is the mean width (ms) of each wave, by retry number, over
	// the seeds in which that wave exists.
	Widths []float64 `json:"widths_ms"`
	Summary
}

// SpreadTable runs c (with its own policy, exponential in the lesson) with
// the first attempts spread over each window in turn, and measures the width
// of every wave (see Trace.Waves).
func SpreadTable(c Config, spreads []time.Duration, seeds int) ([]SpreadRow, error) {
	return spreadTable(events(), c, spreads, seeds)
}

func spreadTable(a *averager, c Config, spreads []time.Duration, seeds int) ([]SpreadRow, error) {
	out := make([]SpreadRow, len(spreads))
	for i, w := range spreads {
		c.Spread = w
		s, traces, err := a.average(c, seeds, true)
		if err != nil {
			return nil, err
		}
		row := SpreadRow{Spread: w, SpreadMs: ms(w), Summary: s, HeldWaves: -1}
		var counts []int
		for _, tr := range traces {
			waves := tr.Waves()
			held := 0
			for held < len(waves) && waves[held].Calls == c.Clients {
				held++
			}
			if row.HeldWaves < 0 || held < row.HeldWaves {
				row.HeldWaves = held
			}
			if held > 0 {
				row.Held += ms(waves[held-1].Width())
			}
			for k, wv := range waves {
				if k == len(row.Widths) {
					row.Widths = append(row.Widths, 0)
					counts = append(counts, 0)
				}
				row.Widths[k] += ms(wv.Width())
				counts[k]++
			}
		}
		for k := range row.Widths {
			row.Widths[k] /= float64(counts[k])
		}
		if len(row.Widths) > 0 {
			row.Initial = row.Widths[0]
		}
		row.Held /= float64(seeds)
		out[i] = row
	}
	return out, nil
}

// Tables holds every table of the lesson.
type Tables struct {
	// Main is the five policies in the main setting (Lesson).
	Main Rows `json:"main"`
	// Caps is the cap table in the main setting (DefaultCaps).
	Caps CapRows `json:"caps"`
	// Spread is exponential backoff with the first attempts spread
	// (DefaultSpreads).
	Spread []SpreadRow `json:"spread"`
	// NoOutage is the five policies without the outage
	// (Lesson().WithoutOutage()).
	NoOutage Rows `json:"no_outage"`
	// Overload is the five policies in the overload setting
	// (Lesson().WithOverload()).
	Overload Rows `json:"overload"`
}

// LessonTables computes every table of the lesson, averaging over seeds
// seeds (overloadSeeds for the overload table) from lcg.DefaultSeed on.
// The lesson uses DefaultSeeds and OverloadSeeds. No run is made twice:
// a run that draws nothing (see Average) is made once for all its seeds,
// and the cap table's rows at DefaultCap are the main table's.
func LessonTables(seeds, overloadSeeds int) (Tables, error) {
	return lessonTables(events(), seeds, overloadSeeds)
}

func lessonTables(a *averager, seeds, overloadSeeds int) (t Tables, err error) {
	lineup := Lineup()
	if t.Main, err = policyTable(a, Lesson(), lineup, seeds); err != nil {
		return Tables{}, err
	}
	if t.Caps, err = capTable(a, Lesson(), DefaultCaps, seeds); err != nil {
		return Tables{}, err
	}
	if t.Spread, err = spreadTable(a, Lesson(), DefaultSpreads, seeds); err != nil {
		return Tables{}, err
	}
	if t.NoOutage, err = policyTable(a, Lesson().WithoutOutage(), lineup, seeds); err != nil {
		return Tables{}, err
	}
	if t.Overload, err = policyTable(a, Lesson().WithOverload(), lineup, overloadSeeds); err != nil {
		return Tables{}, err
	}
	return t, nil
}
