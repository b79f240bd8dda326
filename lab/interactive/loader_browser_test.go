//go:build browser

// The loader test drives headless Chromium against pages shaped like
// JupyterLab and Notebook 7 (base URL in jupyter-config-data, a stray AMD
// define), with the echarts script at one, the other or neither of the two
// asset paths. The real apps are driven by internal/browsercheck.
// It needs the build tag: go test -tags browser ./lab/interactive

package interactive

import (
	"context"
	"encoding/json"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/backofflab/backofflab/lab/figure"
	"github.com/backofflab/backofflab/lab/figure/figuretest"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

// labPage imitates JupyterLab: no require.js, the base URL in
// jupyter-config-data, fragments inserted as HTML. With amd, a stray AMD
// define is on the page and throws when echarts calls it.
func labPage(base string, amd bool, frags ...string) string {
	head := `<script id="jupyter-config-data" type="application/json">{"baseUrl": "` + base + `"}</script>`
	if amd {
		head += `<script>window.define = function () { throw new Error("anonymous define"); }; window.define.amd = {};</script>`
	}
	return `<html><head>` + head + `</head><body><div id="out">` + strings.Join(frags, "") + `</div></body></html>`
}

// serve serves pages by path, and the echarts script at each of assets.
func serve(t *testing.T, pages map[string]string, assets ...string) *httptest.Server {
	t.Helper()
	echarts, err := os.ReadFile("../../node_modules/echarts/dist/" + EChartsAssetName)
	if err != nil {
		t.Fatal("echarts not fetched yet (run scripts/setup):", err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		if pages[p] != "" {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write([]byte(pages[p]))
			return
		}
		for _, a := range assets {
			if p == a {
				w.Header().Set("Content-Type", "application/javascript")
				w.Write(echarts)
				return
			}
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// browser starts headless Chromium for the test.
func browser(t *testing.T) context.Context {
	t.Helper()
	path, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatal("no chromium on PATH: the test command installs it (apt-get install chromium)")
	}
	actx, cancel := chromedp.NewExecAllocator(context.Background(), append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.UserDataDir(t.TempDir()))...)
	t.Cleanup(cancel)
	return actx
}

// settled is true once every chart of the page has drawn or failed.
const settled = `(() => { const a = document.querySelectorAll(".backofflab-chart");
	return a.length > 0 && Array.from(a).every(e => e.hasAttribute("data-backofflab")); })()`

// visit opens url in a new tab, waits until its charts have settled and
// echarts has painted, evaluates expr and returns its value with the
// script errors the page threw. A page without charts is not waited for.
func visit[T any](actx context.Context, url, expr string) (got T, errs []string, err error) {
	ctx, cancel := chromedp.NewContext(actx, chromedp.WithListener(func(ev any) {
		if e, ok := ev.(*runtime.EventExceptionThrown); ok {
			msg := e.ExceptionDetails.Text
			if e.ExceptionDetails.Exception != nil {
				msg += " " + e.ExceptionDetails.Exception.Description
			}
			errs = append(errs, msg)
		}
	}))
	defer cancel()
	err = chromedp.Do(ctx, chromedp.Navigate(url))
	if err == nil && !strings.HasSuffix(url, "/blank") {
		_, err = chromedp.Run(ctx, chromedp.Poll[bool](settled, chromedp.WithPollingTimeout(15*time.Second)))
	}
	time.Sleep(500 * time.Millisecond) // let echarts paint
	got, err2 := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err == nil {
		err = err2
	}
	return got, errs, err
}

// states lists, per chart of the page, its data-backofflab state, with
// "+pixels" if its first canvas shows a chart and "+help" if it tells how
// to install echarts.
var states = strings.ReplaceAll(`Array.from(document.querySelectorAll(".backofflab-chart")).map(e => {
	const c = e.querySelector("canvas");
	let n = 0;
	if (c) { const d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data; for (let i = 3; i < d.length; i += 4) if (d[i]) n++; }
	return e.getAttribute("data-backofflab") + (n > 1000 ? "+pixels" : "") + (e.innerText.includes(StartCommand) ? "+help" : "");
}).join(" ")`, "StartCommand", `"`+StartCommand+`"`)

func TestLoaderDrawsInLabShapedPages(t *testing.T) {
	actx := browser(t)
	h := figuretest.Histogram()
	a, _ := HTML(h)
	b, _ := HTML(h) // same figure again: same hash, next id
	l, _ := HTML(figuretest.Lines())

	// Base URLs: /root/ serves the assets as seen from the repository root
	// (as scripts/start runs Jupyter), /nb/ as seen from notebooks/, /none/
	// nothing.
	srv := serve(t, map[string]string{
		"/root/lab": labPage("/root/", false, a, b, l),
		"/nb/lab":   labPage("/nb/", false, a),
		"/root/amd": labPage("/root/", true, a),
		"/none/lab": labPage("/none/", false, a),
	}, "/root/"+AssetPaths()[0], "/nb/"+AssetPaths()[1])

	want := map[string]string{
		"/root/lab": "drawn+pixels drawn+pixels drawn+pixels",
		"/nb/lab":   "drawn+pixels",
		"/root/amd": "drawn+pixels",
		"/none/lab": "failed+help",
	}
	for page, w := range want {
		got, errs, err := visit[string](actx, srv.URL+page, states)
		if err != nil {
			t.Errorf("%s: %v", page, err)
			continue
		}
		if got != w {
			t.Errorf("%s: charts ended %q, want %q", page, got, w)
		}
		if len(errs) > 0 {
			t.Errorf("%s: script errors %q", page, errs)
		}
	}
}

// Every script of web/ parses as JavaScript, and charts whose titles and
// labels are hostile (see hostile) draw with them as text, run no script
// of theirs, and keep go-echarts functions working.
func TestLoaderScriptsParseAndHostileTitlesStayText(t *testing.T) {
	actx := browser(t)
	scripts, err := fs.Glob(web, "web/*.js")
	if err != nil || len(scripts) == 0 {
		t.Fatal("no web/*.js:", err)
	}
	var frags []string
	titles := []string{}
	for _, title := range hostile {
		h := figuretest.Histogram()
		h.Title = title
		html, err := HTML(h)
		if err != nil {
			t.Fatal(err)
		}
		frags = append(frags, html)
		titles = append(titles, title)
	}
	e := twoFrames()
	e.Controls[0].Label = hostile[1]
	explorable, err := HTML(e)
	if err != nil {
		t.Fatal(err)
	}
	line := titled("functions")
	line.SetGlobalOptions(charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true),
		Formatter: opts.FuncOpts(`function (p) { return p.value < 2 ? "low" : "high"; }`)}))
	withFunc, err := HTML(ECharts{Chart: line})
	if err != nil {
		t.Fatal(err)
	}
	srv := serve(t, map[string]string{"/root/lab": labPage("/root/", false, append(frags, explorable, withFunc)...),
		"/blank": labPage("/root/", false)},
		"/root/"+AssetPaths()[0])

	// Parse each file alone, without running it.
	var sources []string
	for _, s := range scripts {
		src, _ := web.ReadFile(s)
		sources = append(sources, string(src))
	}
	js, _ := json.Marshal(sources)
	parse := `(` + string(js) + `).map(src => { try { new Function(src); return "ok"; } catch (e) { return e.name + ": " + e.message; } })`
	parsed, errs, err := visit[[]string](actx, srv.URL+"/blank", parse)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range scripts {
		if parsed[i] != "ok" {
			t.Errorf("%s does not parse: %s", s, parsed[i])
		}
	}
	if len(errs) > 0 {
		t.Errorf("script errors %q", errs)
	}

	wantStates := strings.TrimSpace(strings.Repeat("drawn+pixels ", len(frags)+2))
	if drawn, _, err := visit[string](actx, srv.URL+"/root/lab", states); err != nil || drawn != wantStates {
		t.Errorf("charts ended %q (%v), want %q", drawn, err, wantStates)
	}
	const seen = `({pwned: window.pwned === undefined ? "" : String(window.pwned),
		titles: Array.from(document.querySelectorAll(".backofflab-chart:not(.backofflab-explorable)")).map(e => echarts.getInstanceByDom(e).getOption().title[0].text),
		label: document.querySelector(".backofflab-controls label").textContent,
		tooltip: typeof echarts.getInstanceByDom(document.querySelectorAll(".backofflab-chart")[document.querySelectorAll(".backofflab-chart").length - 1]).getOption().tooltip[0].formatter})`
	got, _, err := visit[struct {
		Pwned, Label, Tooltip string
		Titles                []string
	}](actx, srv.URL+"/root/lab", seen)
	if err != nil {
		t.Fatal(err)
	}
	if got.Pwned != "" {
		t.Errorf("a title ran a script: window.pwned = %s", got.Pwned)
	}
	if want := strings.Join(append(titles, "functions"), "|"); strings.Join(got.Titles, "|") != want {
		t.Errorf("titles drawn %q, want %q", got.Titles, append(titles, "functions"))
	}
	if got.Label != hostile[1] {
		t.Errorf("control label %q, want %q", got.Label, hostile[1])
	}
	if got.Tooltip != "function" {
		t.Errorf("the go-echarts formatter is a %s, want a function", got.Tooltip)
	}
}

// An explorable of at most MaxLayers frames draws every frame in a layer of
// its own, and a move shows the layer of the control's frame; a larger one
// draws every frame in its one layer. Either way exactly one layer shows,
// and it shows the frame the control selects.
func TestExplorableLayers(t *testing.T) {
	actx := browser(t)
	many := figure.Explorable{Controls: []figure.Control{{Label: "n", Values: make([]string, MaxLayers+1)}}}
	for i := range many.Controls[0].Values {
		many.Controls[0].Values[i] = strconv.Itoa(i)
		h := figure.Histogram{Title: "f" + strconv.Itoa(i), Slot: time.Second, Counts: []float64{1, float64(i), 3}}
		many.Frames = append(many.Frames, figure.Frame{Panels: []figure.Figure{h}})
	}
	var frags []string
	for _, e := range []figure.Explorable{twoFrames(), many} {
		html, err := HTML(e)
		if err != nil {
			t.Fatal(err)
		}
		frags = append(frags, html)
	}
	srv := serve(t, map[string]string{"/root/lab": labPage("/root/", false, frags...)}, "/root/"+AssetPaths()[0])
	const moves = `JSON.stringify(Array.from(document.querySelectorAll(".backofflab-explorable[data-frame]")).map(root => {
		const input = root.querySelector(".backofflab-controls input[type=range]"), titles = [];
		const move = (v) => { input.value = v; input.dispatchEvent(new Event("input", {bubbles: true})); };
		for (let v = +input.max; v >= 0; v--) {
			move(v);
			const shown = Array.from(root.querySelectorAll(".backofflab-layer")).filter(l => l.style.visibility === "visible");
			const marked = root.querySelectorAll(".backofflab-layer[data-shown]");
			titles.unshift(shown.length === 1 && marked.length === 1 && marked[0] === shown[0] ?
				echarts.getInstanceByDom(shown[0]).getOption().title[0].text : shown.length + " layers show");
		}
		return {layers: root.querySelectorAll(".backofflab-layer").length, titles};
	}))`
	got, errs, err := visit[string](actx, srv.URL+"/root/lab", moves)
	if err != nil || len(errs) > 0 {
		t.Fatalf("%v %q", err, errs)
	}
	var pages []struct {
		Layers int
		Titles []string
	}
	if err := json.Unmarshal([]byte(got), &pages); err != nil || len(pages) != 2 {
		t.Fatalf("%v: %s", err, got)
	}
	if p := pages[0]; p.Layers != 2 || strings.Join(p.Titles, " ") != "a b" {
		t.Errorf("two frames: %d layers showing %q, want 2 showing a b", p.Layers, p.Titles)
	}
	want := strings.Fields("f0 f1 f2 f3 f4 f5 f6 f7 f8")
	if p := pages[1]; p.Layers != 1 || strings.Join(p.Titles, " ") != strings.Join(want, " ") {
		t.Errorf("%d frames: %d layers showing %q, want 1 showing %q", MaxLayers+1, p.Layers, p.Titles, want)
	}
}

// The mouse wheel over a chart scrolls the page (a chart that zoomed on the
// wheel would trap the reader, who could scroll past it no more), and a
// zoomed value axis does not label the edges of its window.
func TestLoaderPageScrollsUnderTheWheelAndZoomKeepsRoundLabels(t *testing.T) {
	actx := browser(t)
	lines, err := HTML(figure.Lines{XLabel: "time (s)", Series: []figure.Series{{Name: "s", X: []float64{0, 10, 20, 30, 40}, Y: []float64{1, 5, 2, 4, 3}}}})
	if err != nil {
		t.Fatal(err)
	}
	histogram, _ := HTML(figuretest.Histogram())
	explorable, _ := HTML(twoFrames())
	tall := `<div style="height:1500px"></div>`
	page := `<html><body>` + tall + lines + tall + histogram + tall + explorable + tall + `</body></html>`
	srv := serve(t, map[string]string{"/site/page.html": page}, "/site/"+SiteAssetPath)
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/site/page.html")); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](settled, chromedp.WithPollingTimeout(15*time.Second))); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		// The middle of the chart's canvas, on screen.
		at := `(() => { const c = document.querySelectorAll(".backofflab-chart")[` + strconv.Itoa(i) + `].querySelector("canvas");
			c.scrollIntoView({block: "center"}); const r = c.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()`
		xy, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](at))
		if err != nil {
			t.Fatal(err)
		}
		before, _ := chromedp.Run(ctx, chromedp.Evaluate[float64](`window.scrollY`))
		wheel := chromedp.MouseEvent(chromedp.MouseWheel, xy[0], xy[1], func(p *input.DispatchMouseEventParams) { p.DeltaX, p.DeltaY = 1e-9, 200 })
		if err := chromedp.Do(ctx, wheel, chromedp.Sleep(300*time.Millisecond)); err != nil {
			t.Fatal(err)
		}
		after, _ := chromedp.Run(ctx, chromedp.Evaluate[float64](`window.scrollY`))
		if after-before < 150 {
			t.Errorf("chart %d: the wheel over it scrolled the page from %v to %v; want about 200 px", i, before, after)
		}
	}
	const zoomed = `(() => { const e = echarts.getInstanceByDom(document.querySelectorAll(".backofflab-chart")[0]);
		e.dispatchAction({type: "dataZoom", start: 10.3, end: 47.2});
		const l = e.getOption().xAxis[0].axisLabel; return [l.showMinLabel, l.showMaxLabel].join(" ");
	})()`
	if got, err := chromedp.Run(ctx, chromedp.Evaluate[string](zoomed)); err != nil || got != "false false" {
		t.Errorf("zoomed to 10.3–47.2 %%: show the end labels %q (%v), want \"false false\"", got, err)
	}
	const whole = `(() => { const e = echarts.getInstanceByDom(document.querySelectorAll(".backofflab-chart")[0]);
		e.dispatchAction({type: "dataZoom", start: 0, end: 100});
		const l = e.getOption().xAxis[0].axisLabel; return [l.showMinLabel, l.showMaxLabel].join(" ");
	})()`
	if got, err := chromedp.Run(ctx, chromedp.Evaluate[string](whole)); err != nil || got != " " {
		t.Errorf("zoomed out again: show the end labels %q (%v), want echarts' choice (null null)", got, err)
	}
}
