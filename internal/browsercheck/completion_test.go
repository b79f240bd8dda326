package browsercheck

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// checkCompletion checks completion and hover help in the open lesson 00, whose kernel is the
// one a self-paced learner gets (with gopls): Tab right after "lcg." offers the package's names
// (GoNB asks gopls), MustNew among them, and Shift-Tab in MustNew then shows its documentation.
// The test puts the cursor after "lcg." in the lesson's first cell that calls lcg.MustNew
// (nothing is saved: the test servers do not autosave).
func checkCompletion(t *testing.T, b *Browser, app string) {
	t.Helper()
	waitFor(t, b, 90*time.Second, "the kernel to be ready", func(st state) bool { return st.Kernel == "idle" })
	// CodeMirror 6 keeps its view on the editor's content element.
	const cursorAfterLcg = `(() => {
		for (const el of document.querySelectorAll('.jp-CodeCell .cm-content')) {
			const view = el.cmView && el.cmView.view;
			if (!view) continue;
			const i = view.state.doc.toString().indexOf('lcg.MustNew');
			if (i < 0) continue;
			view.focus();
			view.dispatch({selection: {anchor: i + 4}});
			return true;
		}
		return false;
	})()`
	// An item's name is its match element (a kernel that gives types has a type letter before it).
	const items = `Array.from(document.querySelectorAll('.jp-Completer-item')).map(e => (e.querySelector('.jp-Completer-match') || e).innerText.trim().split(/\s+/)[0])`
	// The first answers wait for the kernel's gopls to load the workspace, and GoNB gives each
	// request 8 s: ask, wait for the list, and ask again until gopls is ready (4 minutes at most).
	var offered []string
	for try := 0; try < 12 && len(offered) == 0; try++ {
		ok, err := Eval[bool](b, cursorAfterLcg)
		for deadline := time.Now().Add(30 * time.Second); err == nil && !ok && time.Now().Before(deadline); time.Sleep(time.Second) {
			ok, err = Eval[bool](b, cursorAfterLcg) // the editors appear after the cells
		}
		if err != nil || !ok {
			t.Fatalf("no cell with lcg.MustNew whose editor could take the cursor (%v)", err)
		}
		if err := b.Do(10*time.Second, chromedp.KeyEvent(kb.Tab)); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline) && len(offered) == 0; time.Sleep(time.Second) {
			if offered, err = Eval[[]string](b, items); err != nil {
				t.Fatal(err)
			}
		}
		if len(offered) == 0 {
			_ = b.Do(10*time.Second, chromedp.KeyEvent(kb.Escape))
			t.Logf("no completion yet (try %d)", try+1)
		}
	}
	b.Screenshot(t, scroller, app+"-completion")
	if !strings.Contains(strings.Join(offered, " "), "MustNew") {
		t.Fatalf("Tab after lcg. offered %q, want MustNew among them", offered)
	}
	t.Logf("Tab after lcg. offered %d names: %v", len(offered), offered)

	// Hover help: Shift-Tab with the cursor in MustNew shows its signature and doc comment.
	_ = b.Do(10*time.Second, chromedp.KeyEvent(kb.Escape))
	if ok, err := Eval[bool](b, strings.Replace(cursorAfterLcg, "i + 4", "i + 6", 1)); err != nil || !ok {
		t.Fatalf("could not put the cursor in MustNew (%v)", err)
	}
	var help string
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline) && !strings.Contains(help, "MustNew(seed int64)"); {
		if err := b.Do(10*time.Second, chromedp.KeyEvent(kb.Tab, chromedp.KeyModifiers(chromedp.ModifierShift))); err != nil {
			t.Fatal(err)
		}
		time.Sleep(3 * time.Second)
		var err error
		if help, err = Eval[string](b, `Array.from(document.querySelectorAll('.jp-Tooltip')).map(e => e.innerText).join('\n')`); err != nil {
			t.Fatal(err)
		}
	}
	b.Screenshot(t, scroller, app+"-hover")
	if !strings.Contains(help, "MustNew(seed int64)") {
		t.Fatalf("Shift-Tab in MustNew showed %q, want its signature, MustNew(seed int64)", help)
	}
	t.Logf("Shift-Tab in MustNew: %.120q", help)
}
