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

	"github.com/backofflab/backofflab/internal/jupytertest"
	"github.com/backofflab/backofflab/internal/notebook"
)

// courseLinks is the JavaScript list of the open notebook's links to other files on this server
// (the apps rewrite a relative link into one to the server, with the path in a data attribute).
const courseLinks = `Array.from(document.querySelectorAll('.jp-RenderedMarkdown a[href]')).filter(a =>
	a.href.startsWith(location.origin) && !a.getAttribute('href').startsWith('#'))`

// localLinks returns the paths, relative to the repository, that the open notebook links to.
const localLinks = courseLinks + `.map(a => {
	try { const p = JSON.parse(a.dataset.commandlinkerArgs || '{}').path; if (p) return p; } catch (e) {}
	return decodeURIComponent(new URL(a.href).pathname.replace(/^.*?\/files\//, ''));
})`

// Every link a lesson or exercise gives to another file of the course (the next lesson, an
// exercise, retry/COMPARISON.md) opens that file with one click, in JupyterLab and in Notebook 7.
func TestLessonLinksOpenWithOneClick(t *testing.T) {
	apps(t, func(t *testing.T, app jupytertest.App) {
		s := jupytertest.Start(t, app)
		b := NewBrowser(t)
		followed := 0
		for _, nb := range notebooks(t) {
			want := linksInSource(t, nb)
			open(t, b, s, nb)
			var links []string
			for deadline := time.Now().Add(20 * time.Second); len(links) < len(want) && time.Now().Before(deadline); time.Sleep(300 * time.Millisecond) {
				var err error
				if links, err = Eval[[]string](b, localLinks); err != nil {
					t.Fatal(err)
				}
			}
			if len(links) != len(want) {
				t.Errorf("%s: the page shows %d links to course files %q; its Markdown has %d %q", nb, len(links), links, len(want), want)
			}
			for i, href := range links {
				target := path.Clean(href)
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
	before, err := Eval[string](b, where)
	if err != nil {
		t.Fatal(err)
	}
	js := fmt.Sprintf(`(() => {
		window.__opened = '';
		window.open = (u) => { window.__opened = String(u); return null; };
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
