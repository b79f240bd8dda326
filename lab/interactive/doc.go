// Package interactive draws the lessons' figures (package lab/figure) with
// go-echarts, as HTML fragments drawn by echarts in the browser: tooltips, a
// legend that hides and shows series, and a zoom slider under the x axis.
// The mouse wheel over a chart scrolls the page; it never zooms.
//
// Each figure kind becomes one of go-echarts' own chart types (a
// figure.Histogram a *charts.Bar, Lines a *charts.Line, a Scatter a
// *charts.Scatter) with its options; [ECharts] draws a go-echarts chart of
// your own the same way. The fragment loads echarts from the server that
// serves the page (JupyterLab, Notebook 7 or the static site), never from a
// CDN: see [LoaderJS] for the contract. Its HTML and scripts are the files
// of the folder web/ beside this package's source, filled in by
// html/template.
//
// A figure.Explorable becomes a family of precomputed charts and the
// controls that switch between them in the page, with no kernel involved:
// it works in a saved notebook and in the static site.
//
// [Show] displays a figure inline in a GoNB notebook (through lab/show) and
// does nothing elsewhere; [HTML] returns the fragment.
package interactive
