package browsercheck

import (
	"fmt"
	"net/http"
	"net/url"
	"path"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/backofflab/backofflab/internal/jupytertest"
)

// localLinks returns the relative links of the open notebook's rendered Markdown.
const localLinks = `Array.from(document.querySelectorAll('.jp-RenderedMarkdown a[href]'))
	.map(a => a.getAttribute('href'))
	.filter(h => h && !/^(https?:|mailto:|#)/.test(h))`

// Every link a lesson or exercise gives to another file of the course (the next lesson, an
// exercise, retry/COMPARISON.md) opens that file with one click, in JupyterLab and in Notebook 7.
func TestLessonLinksOpenWithOneClick(t *testing.T) {
	apps(t, func(t *testing.T, app jupytertest.App) {
		s := jupytertest.Start(t, app)
		b := NewBrowser(t)
		followed := 0
		for _, nb := range notebooks(t) {
			open(t, b, s, nb)
			links, err := chromedp.Run(b.Ctx, chromedp.Evaluate[[]string](localLinks))
			if err != nil {
				t.Fatal(err)
			}
			for i, href := range links {
				target := path.Clean(path.Join(path.Dir(nb), strings.SplitN(href, "#", 2)[0]))
				if i > 0 {
					open(t, b, s, nb)
				}
				opened := click(t, b, i)
				if opened == "" {
					t.Errorf("%s: clicking the link to %s opened nothing", nb, href)
					continue
				}
				if !strings.HasSuffix(strings.TrimSuffix(opened, "/"), path.Base(target)) {
					t.Errorf("%s: the link to %s opened %q", nb, href, opened)
					continue
				}
				if app == jupytertest.Notebook {
					// Notebook 7 opens a new browser tab at that URL: it must serve the file.
					u, err := url.Parse(opened)
					if err != nil {
						t.Fatal(err)
					}
					if !u.IsAbs() {
						u, _ = url.Parse(s.Base + strings.TrimPrefix(opened, "/"))
					}
					q := u.Query()
					q.Set("token", s.Token)
					u.RawQuery = q.Encode()
					resp, err := http.Get(u.String())
					if err != nil || resp.StatusCode != 200 {
						t.Errorf("%s: the link to %s opens %s, which answers %v %v", nb, href, opened, resp.Status, err)
					}
					if resp != nil {
						resp.Body.Close()
					}
				}
				followed++
			}
		}
		t.Logf("followed %d links", followed)
		if followed < 12 {
			t.Errorf("followed only %d links; the lessons give at least 12", followed)
		}
		for _, p := range b.Problems() {
			t.Errorf("%s", p)
		}
	})
}

// click clicks the i-th local link of the open notebook and returns what it opened: the label
// of the tab that became current (JupyterLab), the URL of the new window (Notebook 7), or the
// path the page moved to.
func click(t *testing.T, b *Browser, i int) string {
	t.Helper()
	const where = `(() => {
		if (window.__opened) return 'window ' + window.__opened;
		const tab = document.querySelector('.lm-DockPanel-tabBar .lm-TabBar-tab.lm-mod-current .lm-TabBar-tabLabel');
		return 'tab ' + (tab ? tab.textContent : '') + ' ' + location.pathname;
	})()`
	before, err := chromedp.Run(b.Ctx, chromedp.Evaluate[string](where))
	if err != nil {
		t.Fatal(err)
	}
	js := fmt.Sprintf(`(() => {
		window.__opened = '';
		window.open = (u) => { window.__opened = String(u); return null; };
		const a = Array.from(document.querySelectorAll('.jp-RenderedMarkdown a[href]')).filter(a => !/^(https?:|mailto:|#)/.test(a.getAttribute('href')))[%d];
		a.scrollIntoView();
		a.click();
		return true;
	})()`, i)
	if _, err := chromedp.Run(b.Ctx, chromedp.Evaluate[bool](js)); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(300 * time.Millisecond) {
		now, err := chromedp.Run(b.Ctx, chromedp.Evaluate[string](where))
		if err != nil || now == before {
			continue
		}
		if u, ok := strings.CutPrefix(now, "window "); ok {
			return u
		}
		f := strings.Fields(now) // "tab", label, path
		if len(f) == 3 && f[1] != strings.Fields(before)[1] {
			return f[1]
		}
		return f[len(f)-1]
	}
	return ""
}
