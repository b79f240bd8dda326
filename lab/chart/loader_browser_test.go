//go:build browser

// The loader test drives headless Chromium against pages shaped like
// JupyterLab and Notebook 7 (base URL in jupyter-config-data, a stray AMD
// define), with the echarts script at one, the other or neither of the two
// asset paths. The real apps are driven by internal/browsercheck.
// It needs the build tag: go test -tags browser ./lab/chart

package chart

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
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

func TestLoaderDrawsInLabShapedPages(t *testing.T) {
	browser, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatal("no chromium on PATH: the test command installs it (apt-get install chromium)")
	}
	echarts, err := os.ReadFile("../../node_modules/echarts/dist/" + EChartsAssetName)
	if err != nil {
		t.Fatal("echarts not fetched yet (run scripts/setup):", err)
	}
	h := sampleHistogram()
	a, _ := h.HTML()
	b, _ := h.HTML() // same figure again: same hash, next id
	l, _ := sampleLines().HTML()

	// Base URLs: /root/ serves the assets as seen from the repository root
	// (as scripts/start runs Jupyter), /nb/ as seen from notebooks/, /none/
	// nothing.
	pages := map[string]string{
		"/root/lab": labPage("/root/", false, a, b, l),
		"/nb/lab":   labPage("/nb/", false, a),
		"/root/amd": labPage("/root/", true, a),
		"/none/lab": labPage("/none/", false, a),
	}
	assets := map[string]bool{}
	for _, p := range []string{"/root/" + AssetPaths()[0], "/nb/" + AssetPaths()[1]} {
		assets[p] = true
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch p := r.URL.Path; {
		case pages[p] != "":
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte(pages[p]))
		case assets[p]:
			w.Header().Set("Content-Type", "application/javascript")
			w.Write(echarts)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()

	actx, cancel := chromedp.NewExecAllocator(context.Background(), append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(browser), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.UserDataDir(t.TempDir()))...)
	defer cancel()

	const settled = `(() => { const a = document.querySelectorAll(".backofflab-chart");
		return a.length > 0 && Array.from(a).every(e => e.hasAttribute("data-backofflab")); })()`
	const states = `Array.from(document.querySelectorAll(".backofflab-chart")).map(e => {
		const c = e.querySelector("canvas");
		let n = 0;
		if (c) { const d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data; for (let i = 3; i < d.length; i += 4) if (d[i]) n++; }
		return e.getAttribute("data-backofflab") + (n > 1000 ? "+pixels" : "") + (e.innerText.includes(StartCommand) ? "+help" : "");
	}).join(" ")`
	want := map[string]string{
		"/root/lab": "drawn+pixels drawn+pixels drawn+pixels",
		"/nb/lab":   "drawn+pixels",
		"/root/amd": "drawn+pixels",
		"/none/lab": "failed+help",
	}
	for page, w := range want {
		var errs []string
		ctx, cancel := chromedp.NewContext(actx, chromedp.WithListener(func(ev any) {
			if e, ok := ev.(*runtime.EventExceptionThrown); ok {
				msg := e.ExceptionDetails.Text
				if e.ExceptionDetails.Exception != nil {
					msg += " " + e.ExceptionDetails.Exception.Description
				}
				errs = append(errs, msg)
			}
		}))
		err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+page))
		if err == nil {
			_, err = chromedp.Run(ctx, chromedp.Poll[bool](settled, chromedp.WithPollingTimeout(15*time.Second)))
		}
		time.Sleep(500 * time.Millisecond) // let echarts paint
		got, err2 := chromedp.Run(ctx, chromedp.Evaluate[string](strings.ReplaceAll(states, "StartCommand", `"`+StartCommand+`"`)))
		cancel()
		if err != nil || err2 != nil {
			t.Errorf("%s: %v %v", page, err, err2)
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
