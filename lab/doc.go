// Package lab is the root of Backoff Lab's library: the seeded generator,
// retry schedules, simulators, metrics, tables and figures that the
// notebooks call. Each concept lives in its own sub-package:
//
//   - lcg: the seeded linear congruential generator every lesson draws from,
//     and the lessons' seed, lcg.DefaultSeed.
//   - schedule: retry delay policies and their names (exponential, full,
//     equal, decorrelated, uniform, constant, immediate).
//   - metrics: histograms, peaks and the spread of inter-arrival times.
//   - table and figure: the tables and figures the models return, as data.
//   - static and interactive: the renderers, gonum/plot (PNG, SVG) and
//     go-echarts (HTML); show: the notebook runtime that displays tables,
//     figures and progress bars inline in a GoNB notebook.
//
// The lessons' own models live beside them (waves, cohort, synchrony,
// contention, overload, deadline, storm, flaky), each with a Lesson config,
// With… modifiers and a Run; ARCHITECTURE.md says who may import what. Each
// simulator's rules are one short file, reference.go, which its Reference
// function returns as a Source for a lesson to print (storm and flaky
// simulate nothing: they run real clients and servers over sockets). This package itself
// holds Source, and Remember, which keeps a notebook's slow results across
// re-runs of a cell.
package lab
