// Package lab is the root of Backoff Lab's library: the seeded generator,
// retry schedules, simulators, metrics and chart helpers that the notebooks
// call. Each concept lives in its own sub-package:
//
//   - lcg: the seeded linear congruential generator every lesson draws from.
//   - schedule: retry delay policies (exponential, full, equal, decorrelated,
//     width-w uniform jitter, constant).
//   - chart: static (gonum/plot) and interactive (go-echarts) figures, shown
//     inline in a GoNB notebook.
//
// The lessons' own models live beside them (waves, cohort, ...).
package lab

import "github.com/backofflab/backofflab/lab/lcg"

// DefaultSeed is lcg.DefaultSeed.
//
// Deprecated: use lcg.DefaultSeed.
const DefaultSeed = lcg.DefaultSeed
