package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/backofflab/backofflab/lab/table"
	"github.com/backofflab/backofflab/lab/waves"
)

func init() {
	register("waves", "retry waves of N clients after a shared failure, with and without jitter", runWaves)
}

// wavesReport is the --json output of the waves subcommand.
type wavesReport struct {
	Clients        int      `json:"clients"`
	Attempts       int      `json:"attempts"`
	BaseMS         float64  `json:"base_ms"`
	OutageMS       float64  `json:"outage_ms"`
	WindowMS       float64  `json:"window_ms"`
	Jitter         float64  `json:"jitter"`
	Seed           int64    `json:"seed"`
	SlotMS         float64  `json:"slot_ms"`
	Total          int      `json:"total"`
	Planned        int      `json:"planned"`
	SucceededEarly int      `json:"succeeded_early"`
	PastWindow     int      `json:"past_window"`
	Recovered      int      `json:"recovered"`
	CutOff         int      `json:"cut_off"`
	Exhausted      int      `json:"exhausted"`
	PeakPerSlot    int      `json:"peak_per_slot"`
	PeakPerSecond  float64  `json:"peak_per_second"`
	PeakAtMS       float64  `json:"peak_at_ms"`
	CV             *float64 `json:"cv,omitempty"` // estimated at 1 ms; absent with fewer than 2 attempts
	Histogram      []int    `json:"histogram"`
}

func wavesMS(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func runWaves(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("waves", wavesHelp, stderr)
	c := waves.Lesson()
	fs.IntVar(&c.Clients, "clients", c.Clients, fmt.Sprintf("clients that fail together at t=0 (1..%d)", waves.MaxClients))
	fs.IntVar(&c.Attempts, "attempts", c.Attempts, fmt.Sprintf("attempts per client at most (1..%d)", waves.MaxAttempts))
	fs.DurationVar(&c.Base, "base", c.Base, "nominal time of the first attempt; attempt i at base·2^(i−1) (> 0)")
	fs.DurationVar(&c.Outage, "outage", c.Outage, "outage length: attempts at or after it succeed (>= 0)")
	fs.DurationVar(&c.Window, "window", c.Window, "observation window: attempts at or after it are not counted (> 0)")
	fs.Float64Var(&c.Jitter, "jitter", c.Jitter, "jitter width w: attempt at d·(1 − w/2 + w·u) (0..2; 1 = full width)")
	fs.DurationVar(&c.Slot, "slot", c.Slot, "histogram slot width; the peak rate is reported at this width (> 0)")
	fs.Int64Var(&c.Seed, "seed", c.Seed, "seed of the lessons' LCG (0 <= seed < 2^31)")
	asJSON := fs.Bool("json", false, "print one JSON object instead of a table and a text histogram")
	if status, ok := parseFlags(fs, args, stdout); !ok {
		return status
	}
	m, err := waves.New(c)
	if err != nil {
		return usageError(stderr, "waves", "%s", withDashes(strings.TrimPrefix(err.Error(), "waves: "),
			"clients", "attempts", "base", "outage", "window", "jitter", "slot", "seed"))
	}
	r := m.Run()
	cv, cvErr := m.InterArrivalCV()
	p := r.Peak()
	if *asJSON {
		rep := wavesReport{
			Clients: c.Clients, Attempts: c.Attempts, BaseMS: wavesMS(c.Base), OutageMS: wavesMS(c.Outage),
			WindowMS: wavesMS(c.Window), Jitter: c.Jitter, Seed: c.Seed, SlotMS: wavesMS(c.Slot),
			Total: r.Total, Planned: r.Planned(), SucceededEarly: r.SkippedAfterSuccess, PastWindow: r.SkippedPastWindow,
			Recovered: r.Recovered, CutOff: r.CutOff, Exhausted: r.Exhausted,
			PeakPerSlot: p.Count, PeakPerSecond: p.PerSecond(), PeakAtMS: wavesMS(p.At()),
			Histogram: r.Histogram.Counts,
		}
		if cvErr == nil {
			rep.CV = &cv
		}
		enc := json.NewEncoder(stdout)
		if err := enc.Encode(rep); err != nil {
			return runError(stderr, "waves", err)
		}
		return 0
	}
	fmt.Fprintf(stdout, "%d clients, %d attempts from %v (×2 each), outage %v, window %v, jitter %g, seed %d\n\n",
		c.Clients, c.Attempts, c.Base, c.Outage, c.Window, c.Jitter, c.Seed)
	rows := [][2]string{
		{"attempts planned", fmt.Sprint(r.Planned())},
		{"  not made: client had succeeded", fmt.Sprint(r.SkippedAfterSuccess)},
		{"  not counted: past the window", fmt.Sprint(r.SkippedPastWindow)},
		{"attempts counted", fmt.Sprint(r.Total)},
		{"clients recovered / cut off / exhausted", fmt.Sprintf("%d / %d / %d", r.Recovered, r.CutOff, r.Exhausted)},
		{"peak (slot " + c.Slot.String() + ")", p.String()},
	}
	if cvErr == nil {
		rows = append(rows, [2]string{"inter-arrival CV (1 ms estimate)", fmt.Sprintf("%.2f", cv)})
	}
	var t table.Table
	for _, row := range rows {
		t.Add(row[0], row[1])
	}
	fmt.Fprint(stdout, t)
	fmt.Fprintf(stdout, "\nattempts per %v slot (empty slots folded):\n", c.Slot)
	writeWavesHistogram(stdout, r.Histogram.Counts, c.Slot, 50)
	return 0
}

// writeWavesHistogram prints one bar per non-empty slot, scaled so the
// fullest slot is width characters wide, and folds runs of empty slots into
// one line.
func writeWavesHistogram(w io.Writer, counts []int, slot time.Duration, width int) {
	peak := 0
	for _, n := range counts {
		peak = max(peak, n)
	}
	empty := 0
	flush := func() {
		if empty > 0 {
			fmt.Fprintf(w, "%12s  (%d empty)\n", "⋮", empty)
			empty = 0
		}
	}
	for k, n := range counts {
		if n == 0 {
			empty++
			continue
		}
		flush()
		bar := (n*width + peak - 1) / peak
		fmt.Fprintf(w, "%12v %6d %s\n", time.Duration(k)*slot, n, strings.Repeat("█", bar))
	}
	flush()
}

const wavesHelp = `usage: backofflab waves [flags]

Simulates the Waves lesson's model and reports the total, the peak at the slot
width and the histogram. Durations take a unit: 1s, 200ms, 1m30s.
`
