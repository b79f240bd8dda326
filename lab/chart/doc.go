// Package chart draws the figures of the Backoff Lab lessons.
//
// Every lesson shows the same few kinds of figure, so this package gives
// each kind a small struct that reads like a description of the figure:
//
//   - [Histogram]: counts per time slot as bars (attempts per 200 ms, calls
//     per 100 ms bucket), optionally split into stacked layers, with dashed
//     reference lines such as a capacity and shaded spans such as an outage.
//   - [Lines]: several named series as lines or steps (peak vs slot width,
//     in-flight calls over time), with an optional logarithmic x axis.
//   - [Scatter]: several named series as marks, one colour per series (one
//     lane per client, one mark per attempt, coloured by outcome).
//
// Each of them renders in two ways:
//
//   - statically with gonum.org/v1/plot, to PNG or SVG bytes ([Histogram.PNG],
//     [Histogram.SVG]); the bytes depend only on the figure, so a saved
//     notebook does not change when it is run again;
//   - interactively with echarts, to an HTML fragment ([Histogram.HTML]) with
//     tooltips, a legend and zooming. The fragment loads the echarts script from
//     the Jupyter server itself, never from a CDN; see [LoaderJS] for the
//     contract. Its HTML and scripts are the files of the folder web/ beside
//     this package's source, filled in by html/template; the echarts option
//     object is built from typed Go structs and sent as JSON.
//
// [Show], [ShowSVG] and [ShowInteractive] display a figure inline in a GoNB
// notebook and do nothing elsewhere, so lesson code can also run in tests and
// on the command line. [Save] writes the PNG and SVG files of a figure.
// [Progress] is the progress bar of a long cell (a sweep, a storm in real
// time): one output block redrawn in place, saved in its final state.
//
// Lessons that need something the three kinds do not cover build their own
// *plot.Plot (start from [NewPlot] for the house style, decorate it with
// [Annotations]) and wrap it with [PlotOf] or [PlotFunc]; [Stack] draws several
// panels above each other on one shared x ruler. [ECharts] is the same escape
// hatch for interactive figures built directly with go-echarts.
package chart
