//go:build litebrowser

package browsercheck

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// liteCompletion checks completion and hover help in the browser edition,
// from the symbol table scripts/build-wasm writes (no gopls in the
// browser): in lesson 00, Tab right after "lcg." offers lcg's names,
// MustNew among them, and Shift-Tab in MustNew shows its signature and doc
// comment, as the server edition's test checks with gopls
// (checkCompletion). Then, asked through the kernel's protocol: a
// standard-library package's names, a package name from a prefix, a
// method's documentation on a value, and nothing for a name no package has.
//
// TestLiteLessonRunsInBrowser runs it on its page once lesson 00 has run
// (the apps' test, too, asks after lesson 00's Run All): as a test of its
// own, with a Chromium, a JupyterLite load and a kernel start for it, it
// took 22 s.
func liteCompletion(t *testing.T, b *Browser) {
	checkCompletion(t, b, "lite-00")

	complete := func(code string) []string {
		t.Helper()
		raw, err := liteAwait[string](b, time.Minute, fmt.Sprintf(`(async () => {
  const k = (%s).sessionContext.session.kernel;
  const r = await k.requestComplete({code: %q, cursor_pos: %d});
  return JSON.stringify(r.content.matches);
})()`, liteNotebookJS, code, len(code)))
		if err != nil {
			t.Fatalf("complete_request %q: %v", code, err)
		}
		var m []string
		if err := json.Unmarshal([]byte(raw), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	inspect := func(code string, pos int) string {
		t.Helper()
		raw, err := liteAwait[string](b, time.Minute, fmt.Sprintf(`(async () => {
  const k = (%s).sessionContext.session.kernel;
  const r = await k.requestInspect({code: %q, cursor_pos: %d, detail_level: 0});
  return r.content.found ? r.content.data['text/plain'] : '';
})()`, liteNotebookJS, code, pos))
		if err != nil {
			t.Fatalf("inspect_request %q: %v", code, err)
		}
		return raw
	}

	if m := complete("import \"strings\"\n%%\nstrings.Cont"); !slices.Contains(m, "Contains") || slices.ContainsFunc(m, func(s string) bool { return !strings.HasPrefix(s, "Cont") }) {
		t.Errorf("strings.Cont + Tab offered %q, want Contains and only names starting Cont", m)
	}
	if m := complete("import \"github.com/backofflab/backofflab/lab/schedule\"\n%%\nsch"); !slices.Contains(m, "schedule") {
		t.Errorf("sch + Tab offered %q, want the package schedule", m)
	}
	if m := complete("%%\nnosuchpkg.F"); len(m) != 0 {
		t.Errorf("nosuchpkg.F + Tab offered %q, want nothing", m)
	}
	code := "import \"github.com/backofflab/backofflab/lab/lcg\"\n%%\ng := lcg.MustNew(1)\nfmt.Println(g.Float64())"
	if help := inspect(code, strings.Index(code, "Float64")+2); !strings.Contains(help, "Float64() float64") {
		t.Errorf("Shift-Tab in g.Float64 showed %q, want lcg's LCG.Float64 method", help)
	}
	if help := inspect(code, strings.Index(code, "lcg.M")+1); !strings.Contains(help, "package lcg") {
		t.Errorf("Shift-Tab in lcg showed %q, want the package's doc", help)
	}
	for _, p := range b.Problems() {
		t.Errorf("page problem: %s", p)
	}
}
