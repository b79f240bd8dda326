package waves

import (
	"fmt"

	"github.com/backofflab/backofflab/lab/metrics"
	"github.com/backofflab/backofflab/lab/table"
)

// MaxSeeds is the most seeds Seeds returns.
const MaxSeeds = 1 << 20

// Seeds returns the seeds 0, 1, …, n−1, for a study over seeds. It
// returns nil when n is not positive and stops at MaxSeeds.
func Seeds(n int) []int64 {
	if n <= 0 {
		return nil
	}
	seeds := make([]int64, min(n, MaxSeeds))
	for i := range seeds {
		seeds[i] = int64(i)
	}
	return seeds
}

// SeedSpread is how much one configuration's run depends on its seed: the
// run at the configuration's own seed beside the spread of the same run
// over other seeds.
type SeedSpread struct {
	// Own is the run at the configuration's own seed.
	Own Result
	// Synced is the configuration's run without jitter: with no jitter the
	// draws do not matter, so one run serves every seed.
	Synced Result
	// Peak, Total and Cut spread the peak rate (per second, at the
	// configuration's slot), the attempts counted and the cut (Synced's
	// peak over the run's peak) over the other seeds.
	Peak, Total, Cut metrics.Spread
	// Lower is the number of other seeds whose peak is lower than Own's.
	Lower int
}

// OverSeeds runs c at its own seed, without jitter, and at every seed of
// seeds, and returns how the runs spread. It stops at the first invalid
// run, saying which it was; no seeds is an error.
func OverSeeds(c Config, seeds []int64) (SeedSpread, error) {
	if len(seeds) == 0 {
		return SeedSpread{}, fmt.Errorf("waves: no seeds to run over: want at least one")
	}
	var s SeedSpread
	var err error
	if s.Own, err = Run(c); err != nil {
		return SeedSpread{}, err
	}
	if s.Synced, err = Run(c.WithJitter(0)); err != nil {
		return SeedSpread{}, err
	}
	rs, err := RunEach(c.EachSeed(seeds...))
	if err != nil {
		return SeedSpread{}, err
	}
	own, synced := s.Own.Peak().PerSecond(), s.Synced.Peak().PerSecond()
	peaks, totals, cuts := make([]float64, len(rs)), make([]float64, len(rs)), make([]float64, len(rs))
	for i, r := range rs {
		peaks[i], totals[i] = r.Peak().PerSecond(), float64(r.Total)
		cuts[i] = synced / peaks[i]
		if peaks[i] < own {
			s.Lower++
		}
	}
	s.Peak, s.Total, s.Cut = metrics.SpreadOf(peaks), metrics.SpreadOf(totals), metrics.SpreadOf(cuts)
	return s, nil
}

// SeedTable returns each spread as three lines under the run's Label: the
// peak, attempts and cut at the run's own seed, then their spread over the
// other seeds, then how many of those seeds give a lower peak than the
// run's own.
func SeedTable(ss ...SeedSpread) table.Table {
	t := table.New("run", "seeds", "peak (per second)", "attempts", "cut")
	for _, s := range ss {
		c, own := s.Own.Config, s.Own.Peak().PerSecond()
		t.Add(c.Label(), table.Text("seed %d", c.Seed), own, s.Own.Total, table.Num("×%.2f", s.Synced.Peak().PerSecond()/own))
		t.Add("", table.Text("%d seeds", s.Peak.N), s.Peak, s.Total, s.Cut)
		t.Add("", table.Text("lower peak than seed %d", c.Seed), table.Num("%d of %d", s.Lower, s.Peak.N))
	}
	return t
}
