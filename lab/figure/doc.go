// Package figure describes the lessons' figures as plain data: what a
// figure shows, never how it is drawn. A model returns these values; a
// renderer draws them:
//
//   - lab/static draws a figure with gonum/plot, as PNG or SVG bytes that
//     depend only on the figure (a saved notebook does not change when it
//     runs again);
//   - lab/interactive draws it with go-echarts, as an HTML fragment with
//     tooltips, a legend and a zoom slider, echarts loaded from the server
//     that serves the page, never from a CDN.
//
// The package imports only the standard library, so a model and a cell that
// only prints numbers link neither renderer.
//
// The kinds of figure:
//
//   - [Histogram]: counts per time slot as bars (attempts per 200 ms, calls
//     per 100 ms bucket), optionally split into stacked layers;
//   - [Lines]: several named series as lines or steps (peak vs slot width,
//     in-flight calls over time), with optional logarithmic axes;
//   - [Scatter]: several named series as marks, one colour per series;
//   - [Stack]: several of those above each other on one shared x ruler;
//   - [Explorable]: a family of precomputed figures and the controls (a
//     slider, buttons, a playhead) that switch between them in the page.
//
// Every figure can carry dashed reference lines, shaded spans and notes
// ([HLine], [VLine], [Span], [Note]). Each kind has a Validate method that
// names the first field a renderer could not draw; the renderers call it.
//
// A zero field means "the renderer chooses": a zero Size is the default
// size, a zero YMax fits the data, an empty XLabel is the kind's default
// label.
package figure
