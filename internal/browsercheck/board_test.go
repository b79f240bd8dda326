package browsercheck

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/backofflab/backofflab/lab/cohort"
	"github.com/backofflab/backofflab/lab/schedule"
)

// boardPolicies are the In Phase board's policies, in the order of its buttons.
func boardPolicies() []string {
	var names []string
	for _, p := range cohort.Lineup() {
		names = append(names, p.Name)
	}
	return names
}

// boardCLI runs backofflab cohort for one policy in the lesson's setting, one seed.
func boardCLI(cli func(args ...string) map[string]any, policy string) map[string]any {
	return cli("cohort", "--policy", policy, "--seeds", "1", "--seed", strconv.FormatInt(int64(cohort.Lesson().Seed), 10), "--json")
}

// sumData adds up numeric chart data, returning the sum and the largest value.
func sumData(data []json.RawMessage) (sum, most float64) {
	for _, d := range data {
		var x float64
		_ = json.Unmarshal(d, &x)
		sum += x
		most = max(most, x)
	}
	return sum, most
}

// boardProbe clicks policy pos of lesson 06's In Phase board: all three panels switch to its
// run, and their data equal backofflab cohort's for that policy: the calls (the calls panel's
// bars and the lanes' marks), the worst 100 ms, the idle time, the finish.
func boardProbe(pos int) probe {
	return probe{pos: []int{pos}, check: func(t *testing.T, v exploreView, cli func(args ...string) map[string]any) {
		p := boardPolicies()[pos]
		label := schedule.Label(p)
		if v.Values[0] != label {
			t.Errorf("board at %d prints %q, want %q", pos, v.Values[0], label)
		}
		if len(v.Panels) != 3 {
			t.Fatalf("board %s: %d panels, want 3", p, len(v.Panels))
		}
		for j, pn := range v.Panels {
			if !strings.HasPrefix(pn.Title, label+":") {
				t.Errorf("board %s: panel %d is titled %q, want the policy's", p, j, pn.Title)
			}
		}
		got := boardCLI(cli, p)
		calls := got["calls"].(float64)
		admitted, _ := sumData(v.Panels[0].Series[0].Data)
		refused, _ := sumData(v.Panels[0].Series[1].Data)
		worst := 0.0
		for k := range v.Panels[0].Series[0].Data {
			a, _ := sumData(v.Panels[0].Series[0].Data[k : k+1])
			r, _ := sumData(v.Panels[0].Series[1].Data[k : k+1])
			worst = max(worst, a+r)
		}
		if admitted+refused != calls || admitted != got["admitted"].(float64) || worst != got["peak_per_100ms"].(float64) {
			t.Errorf("board %s: the calls panel holds %v admitted + %v refused, worst 100 ms %v; the lab says %v calls, %v admitted, worst %v",
				p, admitted, refused, worst, calls, got["admitted"], got["peak_per_100ms"])
		}
		marks := 0
		for _, s := range v.Panels[2].Series {
			marks += len(s.Data)
		}
		if float64(marks) != calls {
			t.Errorf("board %s: the lanes hold %d marks, the lab made %v calls", p, marks, calls)
		}
		if idle := fmt.Sprintf("%.1f s in all", got["idle_ms"].(float64)/1000); !strings.Contains(v.Panels[1].Title, idle) {
			t.Errorf("board %s: the in-flight panel is titled %q, the lab's idle time is %v ms", p, v.Panels[1].Title, got["idle_ms"])
		}
		finish := time.Duration(got["finish_ms"].(float64)) * time.Millisecond
		if want := fmt.Sprintf("finished at %v after %v calls", finish, calls); !strings.Contains(v.Readout, want) {
			t.Errorf("board %s: readout %q, want %q", p, v.Readout, want)
		}
	}}
}

type playheadView struct {
	Position, Positions int
	Value, Time, Label  string
	Play                string
	Playing, Labelled   bool
	Cursors             []struct {
		X     string
		Left  float64
		Shown bool
	}
	Tallies, Notes []string
	Times          []float64
}

// checkBoardPlayhead checks the board's playhead in the page: labelled; the slider scrubbed with
// the keyboard over 130 moves (the redraw percentiles logged), after which the value, the three
// cursors and the tallies on every button show the final position; at the end the tallies are
// the lab's totals; play moves the cursor on, pause stops it.
func checkBoardPlayhead(t *testing.T, b *Browser, name string, i int, cli func(args ...string) map[string]any) {
	t.Helper()
	read := func() playheadView {
		return evalJSON[playheadView](t, b, fmt.Sprintf("window.backofflabProbe.playhead(%d)", i))
	}
	ph := read()
	if !ph.Labelled || ph.Label != "time" || ph.Positions < 100 || len(ph.Cursors) != 3 || len(ph.Tallies) != 5 || len(ph.Notes) != 5 {
		t.Fatalf("%s: playhead %+v, want a labelled time slider of at least 100 positions, 3 cursors, tallies and notes on 5 buttons", name, ph)
	}
	root := fmt.Sprintf(`document.querySelectorAll('.backofflab-explorable[data-frame]')[%d]`, i)
	mark := `document.querySelectorAll('[data-probe-target]').forEach(e => e.removeAttribute('data-probe-target')); ` + root + `.querySelector('.backofflab-playhead input').setAttribute('data-probe-target', '1'); ` +
		root + `.querySelector('.backofflab-playhead button').setAttribute('data-probe-target', 'play'); ` + root + `.setAttribute('data-probe-target', 'board'); true`
	if _, err := chromedp.Run(b.Ctx, chromedp.Evaluate[bool](mark)); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(b.Ctx, chromedp.ScrollIntoView(`input[data-probe-target]`), chromedp.Click(`input[data-probe-target]`)); err != nil {
		t.Fatalf("%s: clicking the time slider: %v", name, err)
	}
	time.Sleep(300 * time.Millisecond)
	if focused, _ := chromedp.Run(b.Ctx, chromedp.Evaluate[bool](`document.activeElement === document.querySelector('input[data-probe-target]')`)); !focused {
		t.Logf("%s: after a click the focus is not on the time slider; focusing it as the Tab key does", name)
		if _, err := chromedp.Run(b.Ctx, chromedp.Evaluate[bool](`document.querySelector('input[data-probe-target]').focus(), true`)); err != nil {
			t.Fatal(err)
		}
	}
	keys := func(k string, n int) {
		for range n {
			if err := chromedp.Do(b.Ctx, chromedp.KeyEvent(k)); err != nil {
				t.Fatal(err)
			}
		}
	}
	keys(kb.Home, 1)
	start := read()
	if start.Position != 0 {
		t.Fatalf("%s: Home put the playhead at %d (%q), want 0", name, start.Position, start.Value)
	}
	keys(kb.ArrowRight, 120)
	keys(kb.ArrowLeft, 10)
	ph = read()
	if len(ph.Times) >= 100 {
		t.Logf("%s, playhead: redraw over %d key moves: p50 %.2f ms, p95 %.2f ms, max %.2f ms", name, len(ph.Times), percentile(ph.Times, 50), percentile(ph.Times, 95), slices.Max(ph.Times))
	} else {
		t.Errorf("%s: 130 arrow keys made %d input events on the time slider", name, len(ph.Times))
	}
	value := strings.TrimSuffix(ph.Value, " s")
	if ph.Position != 110 || value != "11.0" || ph.Time != value {
		t.Errorf("%s: after 120 right and 10 left arrows from 0 the playhead is at %d, printing %q (data-time %q); want 110, 11.0 s", name, ph.Position, ph.Value, ph.Time)
	}
	for j, c := range ph.Cursors {
		if !c.Shown || c.X != ph.Time || !(c.Left > start.Cursors[j].Left) {
			t.Errorf("%s: cursor %d at x %q, %v px (shown %v); want x %s, right of its %v px at 0", name, j, c.X, c.Left, c.Shown, ph.Time, start.Cursors[j].Left)
		}
	}
	for k, tl := range ph.Tallies {
		if !strings.HasPrefix(tl, "at "+ph.Value+": ") {
			t.Errorf("%s: button %d reads %q at %s", name, k, tl, ph.Value)
		}
	}
	board := filepath.Join(ScreenshotDir(t), strings.NewReplacer(" ", "-", "/", "-", ":", "").Replace(name)+"-board.png")
	// A viewport as tall as the page, so that the notebook's scroller does not cut the board.
	if h, err := Eval[int](b, `Math.max(900, ...Array.from(document.querySelectorAll('.jp-WindowedPanel-outer, body')).map(e => e.scrollHeight))`); err == nil &&
		b.Do(30*time.Second, chromedp.EmulateViewport(1280, int64(min(h+200, 16000))), chromedp.Sleep(700*time.Millisecond)) == nil {
		if png, err := chromedp.Run(b.Ctx, chromedp.Screenshot(`[data-probe-target=board]`)); err == nil && os.WriteFile(board, png, 0o644) == nil {
			t.Logf("screenshot: %s", board)
		}
		_ = b.Do(30*time.Second, chromedp.EmulateViewport(1280, 900), chromedp.Sleep(300*time.Millisecond))
	}
	keys(kb.End, 1)
	ph = read()
	if ph.Position != ph.Positions-1 {
		t.Errorf("%s: End put the playhead at %d of %d", name, ph.Position, ph.Positions)
	}
	for k, p := range boardPolicies() {
		got := boardCLI(cli, p)
		want := fmt.Sprintf("at %s: %v calls, %v answered, 0 in flight", ph.Value, got["calls"], got["admitted"])
		if ph.Tallies[k] != want {
			t.Errorf("%s: at the end button %s reads %q, the lab: %q", name, p, ph.Tallies[k], want)
		}
		finish := time.Duration(got["finish_ms"].(float64)) * time.Millisecond
		if !strings.HasPrefix(ph.Notes[k], fmt.Sprintf("%v · %v calls", finish, got["calls"])) {
			t.Errorf("%s: button %s notes %q; the lab: finish %v, %v calls", name, p, ph.Notes[k], finish, got["calls"])
		}
	}
	keys(kb.Home, 1)
	if err := chromedp.Do(b.Ctx, chromedp.Click(`button[data-probe-target=play]`)); err != nil {
		t.Fatalf("%s: clicking play: %v", name, err)
	}
	time.Sleep(1500 * time.Millisecond)
	playing := read()
	if err := chromedp.Do(b.Ctx, chromedp.Click(`button[data-probe-target=play]`)); err != nil {
		t.Fatalf("%s: clicking pause: %v", name, err)
	}
	paused := read()
	time.Sleep(800 * time.Millisecond)
	later := read()
	if !playing.Playing || playing.Position == 0 || !strings.Contains(playing.Play, "pause") {
		t.Errorf("%s: 1.5 s after play the playhead is at %d (playing %v, button %q); want it moving", name, playing.Position, playing.Playing, playing.Play)
	}
	if paused.Playing || later.Position != paused.Position || paused.Position < playing.Position || later.Cursors[0].X != paused.Cursors[0].X {
		t.Errorf("%s: after pause the playhead went from %d to %d (playing %v); want it stopped", name, paused.Position, later.Position, paused.Playing)
	}
	t.Logf("%s: play moved the playhead to %s in 1.5 s; paused at %s, still %s 0.8 s later", name, playing.Value, paused.Value, later.Value)
}
