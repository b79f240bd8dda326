package browsercheck

import (
	"fmt"
	"net/http"
	"net/url"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/backofflab/backofflab/internal/jupytertest"
	"github.com/backofflab/backofflab/internal/notebook"
)

// courseLinks is the JavaScript list of the open notebook's links to other files on this server
// (the apps rewrite a relative link into one to the server, with the path in a data attribute).
// Only the notebook shown counts: in JupyterLab a linked notebook opens beside it, in a tab of
// its own.
const courseLinks = `Array.from((document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden)') || document).querySelectorAll('.jp-RenderedMarkdown a[href]')).filter(a =>
	a.href.startsWith(location.origin) && !a.getAttribute('href').startsWith('#'))`

// localLinks returns the paths, relative to the repository, that the open notebook links to.
const localLinks = courseLinks + `.map(a => {
	try { const p = JSON.parse(a.dataset.commandlinkerArgs || '{}').path; if (p) return p; } catch (e) {}
	return decodeURIComponent(new URL(a.href).pathname.replace(/^.*?\/files\//, ''));
})`

// checkLinks checks that every link the open notebook, nb, gives to another file of the course
// (the next lesson, an exercise, retry/COMPARISON.md) opens that file with one click, and
// returns how many it followed. In JupyterLab the file opens in a tab of the app, and the test
// goes back to the notebook's tab for the next link; Notebook 7 opens a new browser tab at the
// file's URL, which must serve it.
func checkLinks(t *testing.T, b *Browser, s *jupytertest.Server, nb string) int {
	t.Helper()
	want := linksInSource(t, nb)
	links := waitForLinks(t, b, len(want))
	if len(links) != len(want) {
		t.Errorf("%s: the page shows %d links to course files %q; its Markdown has %d %q", nb, len(links), links, len(want), want)
	}
	followed := 0
	for i, href := range links {
		target := path.Clean(href)
		if i > 0 && len(waitForLinks(t, b, len(links))) != len(links) {
			// The page moved away from the notebook (or lost its tab): open it again.
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
		if s.App == jupytertest.Notebook {
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
		} else {
			backToTab(t, b, path.Base(nb))
		}
		followed++
	}
	return followed
}

// waitForLinks returns the open notebook's course links once it shows n of them, or what it
// shows after 20 seconds.
func waitForLinks(t *testing.T, b *Browser, n int) []string {
	t.Helper()
	var links []string
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(300 * time.Millisecond) {
		var err error
		if links, err = Eval[[]string](b, localLinks); err != nil {
			t.Fatal(err)
		}
		if len(links) >= n || time.Now().After(deadline) {
			return links
		}
	}
}

// backToTab clicks, in JupyterLab, the tab labelled label (the notebook whose link opened
// another tab), as a learner goes back to the lesson.
func backToTab(t *testing.T, b *Browser, label string) {
	t.Helper()
	mark := fmt.Sprintf(`(() => {
		document.querySelectorAll('[data-probe-tab]').forEach(e => e.removeAttribute('data-probe-tab'));
		const tab = Array.from(document.querySelectorAll('.lm-DockPanel-tabBar .lm-TabBar-tab')).find(e => (e.querySelector('.lm-TabBar-tabLabel') || {}).textContent === %q);
		if (!tab) return false;
		tab.setAttribute('data-probe-tab', '1');
		return true;
	})()`, label)
	if ok, err := Eval[bool](b, mark); err != nil || !ok {
		t.Logf("no tab labelled %s to go back to (%v)", label, err)
		return
	}
	if err := b.Do(20*time.Second, chromedp.Click(`[data-probe-tab]`)); err != nil {
		t.Logf("clicking the tab of %s: %v", label, err)
	}
}

var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// linksInSource returns the targets of the Markdown links of a notebook that point at other files.
func linksInSource(t *testing.T, nb string) []string {
	n, err := notebook.Read(filepath.Join(jupytertest.Repo(), nb))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, c := range n.Cells {
		if c.CellType != "markdown" {
			continue
		}
		for _, m := range mdLink.FindAllStringSubmatch(string(c.Source), -1) {
			if h := m[1]; !strings.HasPrefix(h, "http:") && !strings.HasPrefix(h, "https:") && !strings.HasPrefix(h, "#") && !strings.HasPrefix(h, "mailto:") {
				out = append(out, h)
			}
		}
	}
	return out
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
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(300 * time.Millisecond) {
		n, err := Eval[int](b, "("+courseLinks+").length")
		if err != nil {
			t.Fatal(err)
		}
		if n > i {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the page shows %d links, not the %d-th", n, i+1)
		}
	}
	// Notebook 7 opens a link in a new window: record the URL instead (and forget the last one).
	if _, err := Eval[bool](b, `(window.__opened = '', window.open = (u) => { window.__opened = String(u); return null; }, true)`); err != nil {
		t.Fatal(err)
	}
	before, err := Eval[string](b, where)
	if err != nil {
		t.Fatal(err)
	}
	js := fmt.Sprintf(`(() => {
		const a = (`+courseLinks+`)[%d];
		a.scrollIntoView();
		a.click();
		return true;
	})()`, i)
	if _, err := Eval[bool](b, js); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(300 * time.Millisecond) {
		now, err := Eval[string](b, where)
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
