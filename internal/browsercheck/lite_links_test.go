//go:build litebrowser

package browsercheck

import (
	"encoding/json"
	"net/http"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/backofflab/backofflab/internal/jupytertest"
)

// TestLiteLinksResolve: every link a lesson or an exercise gives to another
// file of the course (the next lesson, an exercise, retry/COMPARISON.md)
// names a file the browser edition has: listed where JupyterLite's contents
// look for it (api/contents/DIR/all.json, which a click on the link opens
// the file from) and served under files/. The apps suite clicks the same
// links in JupyterLab and Notebook 7.
func TestLiteLinksResolve(t *testing.T) {
	srv := serveLite(t)
	base := srv.URL + litePrefix
	listed := map[string]map[string]bool{} // folder -> the paths its listing holds
	list := func(dir string) map[string]bool {
		if l, ok := listed[dir]; ok {
			return l
		}
		l := map[string]bool{}
		listed[dir] = l
		resp, err := http.Get(base + "api/contents/" + dir + "/all.json")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var all struct{ Content []struct{ Path string } }
		if resp.StatusCode != 200 || json.NewDecoder(resp.Body).Decode(&all) != nil {
			t.Errorf("the site has no listing of %s/ (%s)", dir, resp.Status)
			return l
		}
		for _, c := range all.Content {
			l[c.Path] = true
		}
		return l
	}
	notebooks, err := filepath.Glob(filepath.Join(jupytertest.Repo(), "notebooks", "*.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	exercises, _ := filepath.Glob(filepath.Join(jupytertest.Repo(), "exercises", "notebooks", "*.ipynb"))
	links := 0
	for _, p := range append(notebooks, exercises...) {
		nb, _ := filepath.Rel(jupytertest.Repo(), p)
		nb = filepath.ToSlash(nb)
		for _, href := range linksInSource(t, nb) {
			href, _, _ = strings.Cut(href, "#")
			target := path.Clean(path.Join(path.Dir(nb), href))
			links++
			if !list(path.Dir(target))[target] {
				t.Errorf("%s links to %s: the site's contents do not list %s", nb, href, target)
			}
			resp, err := http.Get(base + "files/" + target)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Errorf("%s links to %s: files/%s answers %s", nb, href, target, resp.Status)
			}
		}
	}
	if links == 0 {
		t.Fatal("no lesson links to another file: the test checked nothing")
	}
	t.Logf("%d links, every target in the site", links)
}
