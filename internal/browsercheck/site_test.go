package browsercheck

import (
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/backofflab/backofflab/internal/jupytertest"
)

// sitePage reads what a page of the static site shows: its charts (drawn when their canvas
// has paint), its images, its formulas typeset by MathJax.
const sitePage = `(() => JSON.stringify({
  charts: document.querySelectorAll('.backofflab-chart').length,
  painted: Array.from(document.querySelectorAll('.backofflab-chart')).filter(el => {
    const c = el.querySelector('canvas');
    if (!c || !c.width || !c.height) return false;
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 3; i < d.length; i += 4) if (d[i]) n++;
    return n > 1000;
  }).length,
  images: document.querySelectorAll('img').length,
  imagesLoaded: Array.from(document.querySelectorAll('img')).filter(i => i.complete && i.naturalWidth > 0).length,
  math: document.querySelectorAll('mjx-container').length,
  failed: Array.from(document.querySelectorAll('[data-backofflab="failed"]')).map(e => e.innerText.slice(0, 200)),
}))()`

type siteState struct {
	Charts, Painted, Images, ImagesLoaded, Math int
	Failed                                      []string
}

// scripts/build-site writes a static site that a plain file server serves with every chart and
// control working, nothing requested off this machine and no file missing; its index lists the
// lessons in order; a lesson opened from disk draws its explorable too.
func TestStaticSite(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the site and starts Chromium; run without -short")
	}
	t.Parallel() // a file server and a browser of its own
	dir := t.TempDir()
	build := exec.Command(filepath.Join(jupytertest.Repo(), "scripts", "build-site"), dir)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("scripts/build-site: %v\n%s", err, out)
	} else {
		t.Logf("%s", strings.TrimSpace(string(out[strings.LastIndex(string(out[:len(out)-1]), "\n")+1:])))
	}
	var mu sync.Mutex
	var missing []string
	files := http.FileServer(http.Dir(dir))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &statusWriter{ResponseWriter: w, status: 200}
		files.ServeHTTP(rec, r)
		if rec.status == 404 && r.URL.Path != "/favicon.ico" { // browsers ask for it unprompted
			mu.Lock()
			missing = append(missing, r.URL.Path)
			mu.Unlock()
		}
	}))
	defer srv.Close()
	b := NewBrowser(t)
	if err := chromedp.Do(b.Ctx, chromedp.Navigate(srv.URL+"/index.html")); err != nil {
		t.Fatal(err)
	}
	links, err := chromedp.Run(b.Ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('ol a:not(.backofflab-run)')).map(a => a.getAttribute('href'))`))
	if err != nil {
		t.Fatal(err)
	}
	runLinks, err := chromedp.Run(b.Ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('ol a.backofflab-run')).map(a => a.getAttribute('href'))`))
	if err != nil {
		t.Fatal(err)
	}
	lessons, _ := filepath.Glob(filepath.Join(jupytertest.Repo(), "notebooks", "[0-9][0-9]-*.ipynb"))
	if len(links) != len(lessons) {
		t.Fatalf("the index lists %d pages, there are %d lessons", len(links), len(lessons))
	}
	cases := map[string][]explorableCase{}
	for _, c := range explorableCases() {
		cases[strings.TrimSuffix(path.Base(c.path), ".ipynb")] = append(cases[strings.TrimSuffix(path.Base(c.path), ".ipynb")], c)
	}
	cli := labCLI(t)
	for i, href := range links {
		name := strings.TrimSuffix(href, ".html")
		if want := strings.TrimSuffix(filepath.Base(lessons[i]), ".ipynb"); name != want {
			t.Errorf("index entry %d is %s, want %s", i, href, want)
		}
		// Each lesson links to itself in the browser edition, by default built beside the pages
		// (scripts/build-lite DIR/lite), from the index and from its page.
		run := siteLiteURL + "lab/index.html?path=notebooks/" + name + ".ipynb"
		if i >= len(runLinks) || runLinks[i] != run {
			t.Errorf("index entry %d does not link to the browser edition's %q (the index's links there: %q)", i, run, runLinks)
		}
		images, interactive := savedCharts(t, "notebooks/"+name+".ipynb")
		if err := chromedp.Do(b.Ctx, chromedp.Navigate(srv.URL+"/"+href)); err != nil {
			t.Fatal(err)
		}
		if got, err := chromedp.Run(b.Ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('main a.backofflab-run')).map(a => a.getAttribute('href'))`)); err != nil || len(got) != 1 || got[0] != run {
			t.Errorf("%s links to the browser edition with %q (%v), want one link, %q", href, got, err, run)
		}
		var st siteState
		deadline := time.Now().Add(30 * time.Second)
		for {
			st = evalJSON[siteState](t, b, sitePage)
			if (st.Painted >= interactive && st.ImagesLoaded >= images) || time.Now().After(deadline) || len(st.Failed) > 0 {
				break
			}
			time.Sleep(300 * time.Millisecond)
		}
		if st.Charts != interactive || st.Painted != interactive || st.ImagesLoaded != images || len(st.Failed) > 0 {
			t.Errorf("%s: %d of %d interactive charts drawn (%d on the page), %d of %d images shown; failed: %v", href, st.Painted, interactive, st.Charts, st.ImagesLoaded, images, st.Failed)
		}
		if c := cases[name]; len(c) > 0 {
			checkExplorables(t, b, "site "+href, c, cli)
		}
		for _, p := range b.Problems() {
			t.Errorf("%s: %s", href, p)
		}
	}
	mu.Lock()
	for _, m := range missing {
		t.Errorf("the site has no %s", m)
	}
	mu.Unlock()

	// From disk: the page's own folder holds everything.
	if err := chromedp.Do(b.Ctx, chromedp.Navigate("file://"+filepath.Join(dir, "03-jitter-width.html"))); err != nil {
		t.Fatal(err)
	}
	checkExplorables(t, b, "file 03-jitter-width.html", cases["03-jitter-width"][:1], cli)
	if st := evalJSON[siteState](t, b, sitePage); st.Math == 0 {
		t.Errorf("03-jitter-width.html from disk: no formula typeset by MathJax")
	}
	for _, p := range b.Problems() {
		t.Errorf("file 03-jitter-width.html: %s", p)
	}
	b.Screenshot(t, "body", "site-03-jitter-width")
}

// siteLiteURL is where scripts/build-site's pages look for the browser edition by default:
// lite/, beside them.
const siteLiteURL = "lite/"

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) { w.status = code; w.ResponseWriter.WriteHeader(code) }
