package browsercheck

import (
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/backofflab/backofflab/internal/jupytertest"
)

// BenchmarkExplorableRedraw measures how long each explorable takes to
// redraw when a learner drags one of its controls: in the static site's
// page of each lesson with explorables (scripts/build-site; the same
// script and charts as in the apps, without Jupyter around them), one
// sub-benchmark per control, one move an animation frame as a drag makes
// them. ns/op is a move with the frame it waits for; the metrics are the
// redraw's own time (the input handler, which redraws every panel, canvas
// included, before it returns) at the 50th and 95th percentiles, and the
// 95th of the time to the end of the frame that paints the move. The goal:
// at most 50 ms at the 95th percentile. Run it on a quiet machine, with
// enough moves for a percentile: scripts/bench-explorables (120 moves).
func BenchmarkExplorableRedraw(b *testing.B) {
	dir := b.TempDir()
	if out, err := exec.Command(filepath.Join(jupytertest.Repo(), "scripts", "build-site"), dir).CombinedOutput(); err != nil {
		b.Fatalf("scripts/build-site: %v\n%s", err, out)
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer srv.Close()
	br := NewBrowser(b)
	pages := map[string][]explorableCase{}
	for _, c := range explorableCases() {
		name := strings.TrimSuffix(path.Base(c.path), ".ipynb")
		pages[name] = append(pages[name], c)
	}
	for _, name := range slices.Sorted(maps.Keys(pages)) {
		if err := chromedp.Do(br.Ctx, chromedp.Navigate(srv.URL+"/"+name+".html")); err != nil {
			b.Fatal(err)
		}
		page := explorablesOnPage(b, br, name, len(pages[name]))
		if len(page) < len(pages[name]) {
			b.Fatalf("%s: %d explorables drawn, want %d", name, len(page), len(pages[name]))
		}
		for _, c := range pages[name] {
			for k, ctl := range page[c.index].Controls {
				b.Run(fmt.Sprintf("%s/%d/%s", name, c.index, strings.ReplaceAll(ctl.Label, " ", "-")), func(b *testing.B) {
					r := evalJSON[struct{ Times, Painted []float64 }](b, br, fmt.Sprintf("window.backofflabProbe.bench(%d, %d, %d)", c.index, k, b.N))
					if len(r.Times) != b.N {
						b.Fatalf("%d of %d moves redrew", len(r.Times), b.N)
					}
					b.ReportMetric(percentile(r.Times, 50), "p50-ms")
					b.ReportMetric(percentile(r.Times, 95), "p95-ms")
					b.ReportMetric(percentile(r.Painted, 95), "painted-p95-ms")
				})
			}
		}
	}
	for _, p := range br.Problems() {
		b.Errorf("%s", p)
	}
}
