// Package static draws the lessons' figures (package lab/figure) with
// gonum.org/v1/plot, as PNG or SVG bytes that depend only on the figure, so
// a saved notebook does not change when it runs again.
//
// [Show] displays a figure inline in a GoNB notebook as a PNG (through
// lab/show) and does nothing elsewhere; [PNG], [SVG] and [Save] make the
// bytes and files, as the backofflab figures command does.
//
// A figure the kinds of lab/figure do not cover is a gonum/plot plot of its
// own: start from [NewPlot] for the house style, or from [Plot] of a
// figure, add plotters and [AddAnnotations], and wrap the result in a
// [PlotFunc], which is a figure.Figure this package draws (alone or as a
// panel of a figure.Stack).
package static
