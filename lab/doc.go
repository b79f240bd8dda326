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

// DefaultSeed is the seed the lessons use unless a cell says otherwise. With
// it, the waves model reproduces the source lesson's figures exactly (3000/s
// without jitter, 925/s with full-width jitter, for 600 clients).
const DefaultSeed = 1513241
