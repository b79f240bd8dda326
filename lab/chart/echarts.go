package chart

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

// Where the Jupyter server serves the echarts script. The set-up copies
// node_modules/echarts/dist/echarts.min.js (echarts v5, the major version
// go-echarts v2 targets) to notebooks/assets/; see [AssetPaths] and [LoaderJS].
const (
	// EChartsAssetName is the file name of the echarts script.
	EChartsAssetName = "echarts.min.js"
	// NotebookAssetsDir is the folder, beside the lessons in notebooks/,
	// that holds the script (notebooks/assets/echarts.min.js), served by
	// JupyterLab and Notebook 7 under files/.
	NotebookAssetsDir = "assets"
	// StartCommand is what the fragment tells the reader to run when the
	// script cannot be loaded.
	StartCommand = "scripts/start"
)

// AssetPaths returns the URL paths, relative to the Jupyter base URL, at
// which the fragment looks for the echarts script, in the order it tries
// them: the file server of JupyterLab / Notebook 7 rooted at the repository
// (as scripts/start runs it), then the same server rooted at notebooks/.
func AssetPaths() []string {
	return []string{
		"files/notebooks/" + NotebookAssetsDir + "/" + EChartsAssetName,
		"files/" + NotebookAssetsDir + "/" + EChartsAssetName,
	}
}

// SiteAssetPath is the path, relative to the page, at which the fragment
// looks for the echarts script last: where the static HTML edition of the
// course (scripts/build-site) puts it beside its pages, so that a page
// opened from disk or from any static file server finds it.
const SiteAssetPath = NotebookAssetsDir + "/" + EChartsAssetName

// LoaderJS returns the JavaScript source of the function
//
//	backofflabLoadECharts(done, fail)
//
// that every fragment embeds. It finds the Jupyter base URL (the "baseUrl"
// of <script id="jupyter-config-data"> in JupyterLab and Notebook 7, "/"
// otherwise) and the candidate URLs base + [AssetPaths], then
// [SiteAssetPath] relative to the page (that one first in a page without
// jupyter-config-data, such as the static site). Then it calls
// done(window.echarts) if echarts is already loaded; else it adds a <script>
// for the first candidate and, on error, for the next (hiding a stray AMD
// define meanwhile, so that echarts sets window.echarts), then calls done or
// fail(reason). Charts waiting at the same time share one load.
//
// done and fail are always called asynchronously.
func LoaderJS() string {
	var paths []string
	for _, p := range AssetPaths() {
		paths = append(paths, strconv.Quote(p))
	}
	return strings.NewReplacer("$PATHS", strings.Join(paths, ", "), "$SITE", strconv.Quote(SiteAssetPath)).Replace(loaderTemplate)
}

const loaderTemplate = `function backofflabLoadECharts(done, fail) {
  var w = window, d = document, base = "/";
  var cfg = d.getElementById("jupyter-config-data");
  try {
    if (cfg) {
      var conf = JSON.parse(cfg.textContent || "{}");
      if (conf.baseUrl) base = conf.baseUrl;
    }
  } catch (e) {}
  if (base.charAt(base.length - 1) !== "/") base += "/";
  var urls = [$PATHS].map(function (p) { return base + p; });
  // Outside Jupyter (a static page), the page's own assets folder first.
  urls = cfg ? urls.concat([$SITE]) : [$SITE].concat(urls);
  if (w.echarts && typeof w.echarts.init === "function") {
    setTimeout(function () { done(w.echarts); }, 0);
    return;
  }
  if (w.backofflabEChartsWaiting) {
    w.backofflabEChartsWaiting.push([done, fail]);
    return;
  }
  var waiting = w.backofflabEChartsWaiting = [[done, fail]];
  var i = 0;
  function finish(echarts, why) {
    w.backofflabEChartsWaiting = null;
    waiting.forEach(function (cb) { if (echarts) cb[0](echarts); else cb[1](why); });
  }
  (function next() {
    if (i >= urls.length) {
      finish(null, "could not load " + urls.join(" or "));
      return;
    }
    var s = d.createElement("script"), amd = w.define;
    var hide = !!(amd && amd.amd);
    if (hide) w.define = undefined;
    s.src = urls[i++];
    s.onload = function () {
      if (hide) w.define = amd;
      if (w.echarts && typeof w.echarts.init === "function") finish(w.echarts);
      else next();
    };
    s.onerror = function () {
      if (hide) w.define = amd;
      if (s.parentNode) s.parentNode.removeChild(s);
      next();
    };
    d.head.appendChild(s);
  })();
}`

// claimJS is the function claim(state, then) of every fragment's script:
// it finds the fragment's div, marks it with data-backofflab=state and
// calls then(div).
const claimJS = `// The fragment's div may be attached to the page after this script runs
  // (some front ends run it first), so look for it when echarts is
  // ready. Identical charts share an id: take the first one not yet claimed.
  function claim(state, then) {
    var tries = 0;
    (function look() {
      var all = document.querySelectorAll('div[id="' + id + '"]');
      for (var k = 0; k < all.length; k++) {
        if (!all[k].hasAttribute("data-backofflab")) {
          all[k].setAttribute("data-backofflab", state);
          then(all[k]);
          return;
        }
      }
      if (++tries < 200) setTimeout(look, 50);
    })();
  }`

// fragmentTemplate is the HTML of one interactive chart. $ID, $HEIGHT,
// $OPTION, $LOADER, $CLAIM and $HELP are replaced.
const fragmentTemplate = `<div id="$ID" class="backofflab-chart" style="width:100%;height:$HEIGHTpx;">` +
	`<p style="font:13px sans-serif;color:#666;margin:0;padding:8px;">Interactive chart loading. ` +
	`If this text stays, scripts are not running here: trust the notebook (File, Trust Notebook) and run the cell again.</p></div>
<script type="text/javascript">
(function () {
  "use strict";
  var id = "$ID";
  var option = $OPTION;
  $LOADER
  $CLAIM
  backofflabLoadECharts(function (echarts) {
    claim("drawn", function (el) {
      el.innerHTML = "";
      var chart = echarts.init(el, null, {renderer: "canvas"});
      chart.setOption(option);
      if (typeof ResizeObserver === "function") {
        new ResizeObserver(function () { chart.resize(); }).observe(el);
      }
    });
  }, function (why) {
    claim("failed", function (el) {
      el.style.height = "auto";
      el.innerHTML = "";
      var p = document.createElement("p");
      p.style.cssText = "font:14px sans-serif;color:#a00;border:1px solid #a00;padding:8px;margin:0;";
      p.textContent = "$HELP (" + why + ")";
      el.appendChild(p);
    });
  });
})();
</script>
`

const helpText = "Interactive chart not drawn: the echarts script is not served by this Jupyter server. " +
	"Run " + StartCommand + " in the Backoff Lab folder (it installs echarts where Jupyter serves it), " +
	"then reload this page. Static figures do not need it."

// EChart is what [ECharts] needs of a go-echarts chart: every chart type of
// github.com/go-echarts/go-echarts/v2/charts (*charts.Bar, *charts.Line,
// *charts.Scatter, …) has these methods.
type EChart interface {
	// Validate completes the chart's options before rendering.
	Validate()
	// JSON returns the chart's echarts option object.
	JSON() map[string]interface{}
}

// ECharts is an interactive figure built directly with go-echarts: the
// escape hatch for charts the figures of this package do not cover. Its
// HTML loads echarts like the other figures do (see [LoaderJS]); the asset
// settings of the go-echarts chart are ignored.
type ECharts struct {
	// Chart is the go-echarts chart to draw.
	Chart EChart
	// Height is the height of the chart in pixels; zero means 400.
	Height int
}

// HTML returns the chart's HTML fragment: a <div> with a deterministic id
// and a <script> that loads echarts from the Jupyter server and draws.
func (e ECharts) HTML() (string, error) {
	if e.Chart == nil {
		return "", errors.New("chart: ECharts.Chart is nil")
	}
	if e.Height < 0 {
		return "", fmt.Errorf("chart: ECharts.Height must be ≥ 0, got %d", e.Height)
	}
	e.Chart.Validate()
	return fragment(e.Chart.JSON(), e.Height)
}

// funcMarker matches the markers go-echarts puts around JavaScript
// functions in its JSON (types.FuncStr), which must end up unquoted.
var funcMarker = regexp.MustCompile(`(__f__")|("__f__)|(__f__)`)

// idCounts counts, per option hash, the fragments made by this process, so
// that identical charts in one notebook cell still get distinct ids while
// every id stays the same from run to run.
var idCounts = struct {
	sync.Mutex
	n map[string]int
}{n: map[string]int{}}

// fragment renders the echarts option obj into the HTML fragment.
func fragment(obj map[string]interface{}, height int) (string, error) {
	if height == 0 {
		height = 400
	}
	option, err := encodeOption(obj)
	if err != nil {
		return "", err
	}
	id := fragmentID("backofflab-chart-", strconv.Itoa(height)+"\n"+option)

	loader := strings.ReplaceAll(LoaderJS(), "\n", "\n  ")
	return strings.NewReplacer(
		"$ID", id,
		"$HEIGHT", strconv.Itoa(height),
		"$OPTION", option,
		"$LOADER", loader,
		"$CLAIM", claimJS,
		"$HELP", helpText,
	).Replace(fragmentTemplate), nil
}

// encodeOption returns v (an echarts option or a part of one) as the
// JavaScript source of its value: JSON with go-echarts' function markers
// removed and "</" escaped, so that it cannot close the script element.
func encodeOption(v interface{}) (string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", fmt.Errorf("chart: encoding echarts options: %w", err)
	}
	option := strings.TrimSpace(funcMarker.ReplaceAllString(buf.String(), ""))
	return strings.ReplaceAll(option, "</", `<\/`), nil
}

// fragmentID returns prefix + 12 hex digits of a hash of content + "-" +
// the number of fragments with that hash made so far by the process.
func fragmentID(prefix, content string) string {
	sum := sha256.Sum256([]byte(content))
	hash := hex.EncodeToString(sum[:6])
	idCounts.Lock()
	idCounts.n[hash]++
	n := idCounts.n[hash]
	idCounts.Unlock()
	return prefix + hash + "-" + strconv.Itoa(n)
}

// baseOptions sets what all interactive figures of this package share:
// title, tooltip, legend, zooming and the palette.
func baseOptions(title string, legend bool, trigger string) []charts.GlobalOpts {
	return []charts.GlobalOpts{
		charts.WithTitleOpts(opts.Title{Title: title, Left: "center"}),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: trigger}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(legend), Top: "28", Type: "scroll"}),
		charts.WithDataZoomOpts(opts.DataZoom{Type: "inside", XAxisIndex: 0}, opts.DataZoom{Type: "slider", XAxisIndex: 0}),
		charts.WithAnimation(false),
	}
}

// finishOptions adds to the option object what go-echarts does not express
// simply: the palette, room for title and legend, and the annotations as
// mark lines and areas of the first series. toX converts an annotation's x
// value to the x axis (an index on category axes).
func finishOptions(obj map[string]interface{}, a Annotations, toX func(float64) interface{}) (map[string]interface{}, error) {
	// Round-trip through JSON to work on plain maps and slices.
	raw, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("chart: encoding echarts options: %w", err)
	}
	var o map[string]interface{}
	if err := json.Unmarshal(raw, &o); err != nil {
		return nil, fmt.Errorf("chart: decoding echarts options: %w", err)
	}
	colors := make([]interface{}, len(Palette))
	for i, c := range Palette {
		colors[i] = hexColor(c)
	}
	o["color"] = colors
	o["grid"] = map[string]interface{}{"left": 64, "right": 40, "top": 64, "bottom": 84}
	if zooms, ok := o["dataZoom"].([]interface{}); ok {
		for _, z := range zooms {
			if z, ok := z.(map[string]interface{}); ok && z["type"] == "slider" {
				z["height"], z["bottom"] = 18, 8
			}
		}
	}
	if axes, ok := o["xAxis"].([]interface{}); ok {
		for _, a := range axes {
			if a, ok := a.(map[string]interface{}); ok {
				a["axisLabel"] = map[string]interface{}{"hideOverlap": true}
			}
		}
	}

	series, _ := o["series"].([]interface{})
	if len(series) == 0 {
		return o, nil
	}
	first, _ := series[0].(map[string]interface{})
	if first == nil {
		return o, nil
	}
	dashed := map[string]interface{}{"type": "dashed", "color": hexColor(annotationGray), "width": 1}
	var lines []interface{}
	for _, h := range a.HLines {
		lines = append(lines, map[string]interface{}{"yAxis": h.Y, "name": h.Label, "label": map[string]interface{}{"formatter": h.Label, "position": "insideEndTop"}})
	}
	for _, v := range a.VLines {
		lines = append(lines, map[string]interface{}{"xAxis": toX(v.X), "name": v.Label, "label": map[string]interface{}{"formatter": v.Label, "position": "insideEndTop"}})
	}
	if len(lines) > 0 {
		first["markLine"] = map[string]interface{}{"symbol": []interface{}{"none", "none"}, "silent": true, "lineStyle": dashed, "data": lines}
	}
	var areas []interface{}
	for _, s := range a.Spans {
		from := map[string]interface{}{"xAxis": toX(s.From), "name": s.Label}
		if s.Color != nil {
			from["itemStyle"] = map[string]interface{}{"color": rgbaColor(s.Color)}
		}
		areas = append(areas, []interface{}{from, map[string]interface{}{"xAxis": toX(s.To)}})
	}
	if len(areas) > 0 {
		first["markArea"] = map[string]interface{}{"silent": true, "itemStyle": map[string]interface{}{"color": "rgba(128,128,128,0.19)"},
			"label": map[string]interface{}{"position": "insideTopLeft", "color": hexColor(annotationGray)}, "data": areas}
	}
	var points []interface{}
	for _, n := range a.Notes {
		points = append(points, map[string]interface{}{"coord": []interface{}{toX(n.X), n.Y}, "value": n.Text})
	}
	if len(points) > 0 {
		first["markPoint"] = map[string]interface{}{"symbol": "circle", "symbolSize": 1, "silent": true,
			"label": map[string]interface{}{"show": true, "position": "top", "formatter": "{c}", "color": hexColor(annotationGray)}, "data": points}
	}
	return o, nil
}

// heightPixels is the height of an interactive figure: the static height
// plus room for the zoom slider.
func heightPixels(s Size) int {
	_, h := s.Pixels()
	return h + 64
}

// trimFloat formats x compactly for axis category labels.
func trimFloat(x float64) string {
	return strconv.FormatFloat(math.Round(x*1e6)/1e6, 'f', -1, 64)
}

// HTML returns the histogram as an interactive HTML fragment: bars per slot
// (stacked layers), a tooltip per slot, a legend for named layers, zooming
// on the time axis, the annotations as mark lines and areas.
func (h Histogram) HTML() (string, error) {
	o, err := h.Option()
	if err != nil {
		return "", err
	}
	return fragment(o, h.Height())
}

// Height returns the height in pixels of the figure's interactive form:
// the static height plus room for the zoom slider.
func (h Histogram) Height() int { return heightPixels(h.FigureSize()) }

// Option returns the echarts option object that [Histogram.HTML] draws,
// for an [Explorable] to switch between.
func (h Histogram) Option() (map[string]interface{}, error) {
	if _, err := h.Plot(); err != nil { // the same checks as the static figure
		return nil, err
	}
	layers, _ := h.layers()
	n := len(layers[0].Counts)
	start, slot := h.Start.Seconds(), h.Slot.Seconds()
	labels := make([]string, n)
	for i := range labels {
		labels[i] = trimFloat(start + float64(i)*slot)
	}
	xLabel := h.XLabel
	if xLabel == "" {
		xLabel = "slot start (s)"
	}
	named := false
	for _, l := range layers {
		named = named || l.Name != ""
	}
	bar := charts.NewBar()
	yAxis := opts.YAxis{Name: h.yLabel(), Min: 0}
	if h.YMax > 0 {
		yAxis.Max = h.YMax
	}
	bar.SetGlobalOptions(append(baseOptions(h.Title, named, "axis"),
		charts.WithXAxisOpts(opts.XAxis{Name: xLabel, NameLocation: "middle", NameGap: 28}),
		charts.WithYAxisOpts(yAxis),
	)...)
	bar.SetXAxis(labels)
	for _, l := range layers {
		data := make([]opts.BarData, n)
		for i, c := range l.Counts {
			data[i] = opts.BarData{Value: c}
		}
		bar.AddSeries(l.Name, data, charts.WithBarChartOpts(opts.BarChart{Stack: "slots", BarCategoryGap: "5%"}),
			charts.WithSeriesOpts(func(s *charts.SingleSeries) {
				if n > 2000 && len(layers) == 1 { // echarts' large mode: many bars, quickly (unstacked only)
					s.Large = opts.Bool(true)
				}
			}))
	}
	bar.Validate()
	toSlot := func(x float64) interface{} {
		i := math.Floor((x - start) / slot)
		return int(math.Max(0, math.Min(float64(n-1), i)))
	}
	return finishOptions(bar.JSON(), h.annotations(), toSlot)
}

// xyData returns the points of s as echarts [x, y] pairs.
func xyData(s Series) [][2]float64 {
	d := make([][2]float64, len(s.X))
	for i := range d {
		d[i] = [2]float64{s.X[i], s.Y[i]}
	}
	return d
}

// axisType returns the echarts type of a numeric axis.
func axisType(log bool) string {
	if log {
		return "log"
	}
	return "value"
}

func identity(x float64) interface{} { return x }

// HTML returns the lines as an interactive HTML fragment: one line per
// series with a legend to hide and show them, a tooltip, zooming on the x
// axis, the annotations as mark lines and areas.
func (l Lines) HTML() (string, error) {
	o, err := l.Option()
	if err != nil {
		return "", err
	}
	return fragment(o, l.Height())
}

// Height returns the height in pixels of the figure's interactive form:
// the static height plus room for the zoom slider.
func (l Lines) Height() int { return heightPixels(l.FigureSize()) }

// Option returns the echarts option object that [Lines.HTML] draws, for
// an [Explorable] to switch between.
func (l Lines) Option() (map[string]interface{}, error) {
	if _, err := l.Plot(); err != nil { // the same checks as the static figure
		return nil, err
	}
	line := charts.NewLine()
	yAxis := opts.YAxis{Name: l.YLabel, Type: axisType(l.LogY)}
	if l.YMax > 0 {
		yAxis.Max = l.YMax
	}
	line.SetGlobalOptions(append(baseOptions(l.Title, true, "axis"),
		charts.WithXAxisOpts(opts.XAxis{Name: l.XLabel, Type: axisType(l.LogX), NameLocation: "middle", NameGap: 28}),
		charts.WithYAxisOpts(yAxis),
	)...)
	for _, s := range l.Series {
		data := make([]opts.LineData, len(s.X))
		for i, p := range xyData(s) {
			data[i] = opts.LineData{Value: p}
		}
		lc := opts.LineChart{ShowSymbol: opts.Bool(l.Points), Symbol: "circle"}
		if l.Step {
			lc.Step = "end"
		}
		line.AddSeries(s.Name, data, charts.WithLineChartOpts(lc))
	}
	line.Validate()
	return finishOptions(line.JSON(), l.annotations(), identity)
}

// HTML returns the scatter plot as an interactive HTML fragment: one colour
// per series with a legend to hide and show them, a tooltip per mark,
// zooming on the x axis, the annotations as mark lines and areas.
func (s Scatter) HTML() (string, error) {
	o, err := s.Option()
	if err != nil {
		return "", err
	}
	return fragment(o, s.Height())
}

// Height returns the height in pixels of the figure's interactive form:
// the static height plus room for the zoom slider.
func (s Scatter) Height() int { return heightPixels(s.FigureSize()) }

// Option returns the echarts option object that [Scatter.HTML] draws, for
// an [Explorable] to switch between.
func (s Scatter) Option() (map[string]interface{}, error) {
	if _, err := s.Plot(); err != nil { // the same checks as the static figure
		return nil, err
	}
	sc := charts.NewScatter()
	yAxis := opts.YAxis{Name: s.YLabel, Type: "value"}
	if s.YMax > 0 {
		yAxis.Max = s.YMax
	}
	sc.SetGlobalOptions(append(baseOptions(s.Title, true, "item"),
		charts.WithXAxisOpts(opts.XAxis{Name: s.XLabel, Type: "value", NameLocation: "middle", NameGap: 28}),
		charts.WithYAxisOpts(yAxis),
	)...)
	size := s.markSize() * 2 * 96 / 72 // diameter in pixels
	for _, ser := range s.Series {
		data := make([]opts.ScatterData, len(ser.X))
		for i, p := range xyData(ser) {
			data[i] = opts.ScatterData{Value: p, SymbolSize: int(math.Max(2, math.Round(size)))}
		}
		sc.AddSeries(ser.Name, data)
	}
	sc.Validate()
	return finishOptions(sc.JSON(), s.annotations(), identity)
}
