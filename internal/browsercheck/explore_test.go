package browsercheck

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/backofflab/backofflab/internal/jupytertest"
	"github.com/backofflab/backofflab/lab/schedule"
)

// exploreJS installs window.backofflabProbe in the page: functions that list the explorables
// (lab/figure.Explorable, drawn by lab/interactive) drawn in it, set a control as a learner does (the range input's input
// event, a button's click) and read back what the panels' echarts instances hold, and time
// many moves of one control.
const exploreJS = `(() => {
  const roots = () => Array.from(document.querySelectorAll('.backofflab-explorable[data-frame]'));
  const view = (root) => ({
    frame: +root.getAttribute('data-frame'),
    readout: root.querySelector('.backofflab-readout').textContent,
    values: Array.from(root.querySelectorAll('output.backofflab-value')).map(o => o.textContent),
    positions: Array.from(root.querySelectorAll('.backofflab-controls > div')).map(row => {
      const input = row.querySelector('input[type=range]');
      return input ? +input.value : Array.from(row.querySelectorAll('button')).findIndex(b => b.getAttribute('aria-pressed') === 'true');
    }),
    panels: Array.from(root.querySelectorAll('.backofflab-panel')).map(panel => {
      // The layer shown (lab/interactive/web/explorable.js), or the panel itself in a page saved before layers.
      const el = panel.querySelector('.backofflab-layer[data-shown]') || panel;
      const c = window.echarts.getInstanceByDom(el);
      const o = c.getOption();
      const painted = (() => {
        const cv = el.querySelector('canvas');
        if (!cv || !cv.width) return 0;
        const d = cv.getContext('2d').getImageData(0, 0, cv.width, cv.height).data;
        let n = 0;
        for (let i = 3; i < d.length; i += 4) if (d[i]) n++;
        return n;
      })();
      return {title: (o.title && o.title[0] && o.title[0].text) || '', painted,
        series: o.series.map(s => ({name: s.name || '', data: s.data.map(d => (d && typeof d === 'object' && !Array.isArray(d)) ? d.value : d)}))};
    }),
  });
  const controls = (root) => Array.from(root.querySelectorAll('.backofflab-controls > div')).map(row => {
    const input = row.querySelector('input[type=range]');
    const buttons = Array.from(row.querySelectorAll('button'));
    const label = row.querySelector('label');
    const labelled = input ? (label && label.htmlFor === input.id) : !!row.querySelector('[role=group][aria-labelledby]');
    return {label: label ? label.textContent : '', range: !!input, n: input ? +input.max + 1 : buttons.length, labelled};
  });
  const set = (root, k, pos) => {
    const row = root.querySelectorAll('.backofflab-controls > div')[k];
    const input = row.querySelector('input[type=range]');
    if (input) {
      input.value = pos;
      input.dispatchEvent(new Event('input', {bubbles: true}));
    } else {
      row.querySelectorAll('button')[pos].click();
    }
  };
  // playhead reads an explorable's playhead: position, value, the cursors over the panels, the
  // tallies printed on the buttons, and the redraw times of the slider's input events since the
  // last call (timed from an ancestor's capture listener to its bubble listener, around the
  // page's own handler on the slider).
  const playhead = (root) => {
    const box = root.querySelector('.backofflab-playhead');
    if (!box) return null;
    const input = box.querySelector('input[type=range]');
    if (!root.backofflabProbeTimes) {
      root.backofflabProbeTimes = [];
      let t0 = 0;
      root.addEventListener('input', (ev) => { if (ev.target === input) t0 = performance.now(); }, true);
      root.addEventListener('input', (ev) => { if (ev.target === input) root.backofflabProbeTimes.push(performance.now() - t0); });
    }
    const times = root.backofflabProbeTimes.splice(0);
    const label = box.querySelector('label');
    return {
      position: +input.value, positions: +input.max + 1, value: box.querySelector('output').textContent,
      time: root.getAttribute('data-time'), playing: root.getAttribute('data-playing') === 'true',
      labelled: !!label && label.htmlFor === input.id, label: label ? label.textContent : '',
      play: box.querySelector('button.backofflab-play').textContent,
      cursors: Array.from(root.querySelectorAll('.backofflab-cursor')).map(c => ({x: c.getAttribute('data-x') || '', left: parseFloat(c.style.left), shown: c.style.display !== 'none'})),
      tallies: Array.from(root.querySelectorAll('.backofflab-tally')).map(e => e.textContent),
      notes: Array.from(root.querySelectorAll('.backofflab-note')).map(e => e.textContent),
      times,
    };
  };
  window.backofflabProbe = {
    playhead: (i) => JSON.stringify(playhead(roots()[i])),
    list: () => JSON.stringify(roots().map(r => ({controls: controls(r), view: view(r)}))),
    set: (i, k, pos) => { const r = roots()[i]; set(r, k, pos); return JSON.stringify(view(r)); },
    // bench moves control k of explorable i n times over its positions, one move an animation
    // frame as a drag does, timing each redraw (the input handler redraws every panel, canvas
    // included, before it returns) and the time from the move to the end of the frame that
    // paints it (the page's style, layout and paint after the handler: a message posted from
    // the frame's animation callbacks is handled once that frame is rendered), then makes n
    // fast moves with no frame between them, and returns the times in ms and the frame and
    // value shown after the last move.
    bench: async (i, k, n) => {
      const r = roots()[i], m = controls(r)[k].n, times = [], painted = [];
      let pos = 0;
      for (let j = 0; j < n; j++) {
        pos = (pos + 1 + (j % 3)) % m;
        await new Promise(res => requestAnimationFrame(() => res()));
        const t0 = performance.now();
        set(r, k, pos);
        times.push(performance.now() - t0);
        await new Promise(res => { const ch = new MessageChannel(); ch.port1.onmessage = () => res(); ch.port2.postMessage(0); });
        painted.push(performance.now() - t0);
      }
      for (let j = 0; j < n; j++) {
        pos = (pos + 2 + (j % 5)) % m;
        set(r, k, pos);
      }
      return JSON.stringify({times, painted, last: pos, view: view(r)});
    },
  };
  return true;
})()`

type panelView struct {
	Title   string
	Painted int
	Series  []struct {
		Name string
		Data []json.RawMessage
	}
}

type exploreView struct {
	Frame     int
	Readout   string
	Values    []string
	Positions []int
	Panels    []panelView
}

type exploreControl struct {
	Label    string
	Range    bool
	N        int
	Labelled bool
}

type explorableOnPage struct {
	Controls []exploreControl
	View     exploreView
}

// A probe checks one explorable at one setting of its controls against the backofflab command.
type probe struct {
	pos   []int
	check func(t *testing.T, v exploreView, cli func(args ...string) map[string]any)
}

// explorableCase is one explorable of a lesson: which it is on the page (counted from the top),
// the labels of its controls, and the settings to compare with the lab; playhead, if set, checks
// its playhead.
type explorableCase struct {
	path     string
	index    int
	controls []string
	probes   []probe
	playhead func(t *testing.T, b *Browser, name string, i int, cli func(args ...string) map[string]any)
}

// jitterProbe compares lesson 03's frame at pos (the width control's index, 5 % a step) with
// backofflab waves --jitter.
func jitterProbe(pos int) probe {
	return probe{pos: []int{pos}, check: func(t *testing.T, v exploreView, cli func(args ...string) map[string]any) {
		w := fmt.Sprintf("%d%%", 5*pos)
		if v.Values[0] != w {
			t.Errorf("jitter at position %d prints %q beside the slider, want %q", pos, v.Values[0], w)
		}
		got := cli("waves", "--jitter", strconv.FormatFloat(float64(pos)/20, 'f', -1, 64), "--json")
		sameCounts(t, "jitter "+w+" histogram", v.Panels[0].Series[0].Data, got["histogram"])
		peak := fmt.Sprintf("peak %v/s", got["peak_per_second"])
		if !strings.Contains(v.Readout, peak) || !strings.Contains(v.Panels[0].Title, peak) {
			t.Errorf("jitter %s: readout %q, title %q; the lab says %s", w, v.Readout, v.Panels[0].Title, peak)
		}
		marked := v.Panels[1].Series[1].Data
		if len(marked) != 1 || !strings.Contains(string(marked[0]), fmt.Sprint(got["peak_per_second"])) {
			t.Errorf("jitter %s: the marked point is %s, want the peak %v", w, marked, got["peak_per_second"])
		}
	}}
}

// slotProbe compares lesson 02's frame at pos (an index of waves.SlotWidths) with backofflab
// waves --slot, without jitter and at full width.
func slotProbe(pos int) probe {
	return probe{pos: []int{pos}, check: func(t *testing.T, v exploreView, cli func(args ...string) map[string]any) {
		slot := v.Values[0]
		none, full := cli("waves", "--slot", slot, "--json"), cli("waves", "--slot", slot, "--jitter", "1", "--json")
		hist, _ := full["histogram"].([]any)
		shown := v.Panels[0].Series[0].Data
		if len(shown) > len(hist) {
			t.Fatalf("slot %s: the chart has %d slots, the lab %d", slot, len(shown), len(hist))
		}
		sameCounts(t, "slot "+slot+" histogram (first slots)", shown, hist[:len(shown)])
		for _, want := range []string{fmt.Sprintf("no jitter %v/s", none["peak_per_second"]), fmt.Sprintf("jitter 100%% %v/s", full["peak_per_second"]),
			fmt.Sprintf("(%v attempts in the fullest slot", full["peak_per_slot"])} {
			if !strings.Contains(v.Readout, want) {
				t.Errorf("slot %s: readout %q lacks the lab's %q", slot, v.Readout, want)
			}
		}
	}}
}

// capacityProbe compares lesson 04's frame at (base, clients) positions with backofflab waves
// for the exercise's run at that base and population: the two layers add up to the lab's counts.
func capacityProbe(base, clients int) probe {
	return probe{pos: []int{base, clients}, check: func(t *testing.T, v exploreView, cli func(args ...string) map[string]any) {
		b, n := v.Values[0], v.Values[1]
		got := cli("waves", "--base", b, "--clients", n, "--outage", "30s", "--jitter", "1", "--json")
		within, over := v.Panels[0].Series[0].Data, v.Panels[0].Series[1].Data
		sum := make([]json.RawMessage, len(within))
		for i := range within {
			var a, c float64
			_ = json.Unmarshal(within[i], &a)
			_ = json.Unmarshal(over[i], &c)
			sum[i] = json.RawMessage(strconv.FormatFloat(a+c, 'f', -1, 64))
		}
		sameCounts(t, "base "+b+", "+n+" clients", sum, got["histogram"])
		if want := fmt.Sprintf("peak %v/s", got["peak_per_second"]); !strings.Contains(v.Readout, want) {
			t.Errorf("base %s, %s clients: readout %q, the lab says %s", b, n, v.Readout, want)
		}
	}}
}

// strategyProbe compares lesson 07's frame at (policy, cap) positions with backofflab strategies.
func strategyProbe(policy, capPos int) probe {
	return probe{pos: []int{policy, capPos}, check: func(t *testing.T, v exploreView, cli func(args ...string) map[string]any) {
		p, c := v.Values[0], v.Values[1]
		name := p // the buttons show schedule.Label of the policy's name
		for _, n := range schedule.Names() {
			if schedule.Label(n) == p {
				name = n
			}
		}
		got := cli("strategies", "--policies", name, "--cap", c, "--json")
		row := got["cohort"].([]any)[0].(map[string]any)
		want := fmt.Sprintf("%s, cap %s: %v attempts, retry peak %v per 10ms", p, c, row["attempts"], row["retry_peak"])
		if !strings.HasPrefix(v.Readout, want) || !strings.Contains(v.Readout, fmt.Sprintf("%v recovered", row["recovered"])) {
			t.Errorf("%s, cap %s: readout %q; the lab says %q and %v recovered", p, c, v.Readout, want, row["recovered"])
		}
		if !strings.HasPrefix(v.Panels[0].Title, p+", cap "+c) {
			t.Errorf("%s, cap %s: the chart is titled %q", p, c, v.Panels[0].Title)
		}
	}}
}

// explorableCases lists every explorable of the course's saved lessons.
func explorableCases() []explorableCase {
	return []explorableCase{
		{path: "notebooks/02-bucket-width.ipynb", controls: []string{"slot width"},
			probes: []probe{slotProbe(0), slotProbe(3), slotProbe(7), slotProbe(9)}},
		{path: "notebooks/03-jitter-width.ipynb", controls: []string{"jitter width"},
			probes: []probe{jitterProbe(0), jitterProbe(5), jitterProbe(10), jitterProbe(17), jitterProbe(20)}},
		{path: "notebooks/04-two-thousand-clients.ipynb", controls: []string{"base delay", "clients"},
			probes: []probe{capacityProbe(1, 2), capacityProbe(0, 4), capacityProbe(4, 2), capacityProbe(7, 0)}},
		{path: "notebooks/06-in-phase-figures.ipynb", controls: []string{"policy"},
			probes: []probe{boardProbe(0), boardProbe(1), boardProbe(2), boardProbe(3), boardProbe(4)}, playhead: checkBoardPlayhead},
		{path: "notebooks/07-strategies.ipynb", controls: []string{"policy", "cap"},
			probes: []probe{strategyProbe(0, 4), strategyProbe(1, 4), strategyProbe(2, 1), strategyProbe(3, 5)}},
	}
}

// sameCounts reports whether the chart's data equal the lab's numbers (a JSON array).
func sameCounts(t *testing.T, what string, chart []json.RawMessage, lab any) {
	t.Helper()
	want, ok := lab.([]any)
	if !ok {
		t.Errorf("%s: the lab printed %v, not an array", what, lab)
		return
	}
	if len(chart) != len(want) {
		t.Errorf("%s: the chart has %d values, the lab %d", what, len(chart), len(want))
		return
	}
	for i := range want {
		if string(chart[i]) != fmt.Sprint(want[i]) {
			t.Errorf("%s: value %d is %s in the chart, %v in the lab", what, i, chart[i], want[i])
			return
		}
	}
}

// labCLI builds cmd/backofflab once and returns a function that runs it and decodes its JSON.
func labCLI(t *testing.T) func(args ...string) map[string]any {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "backofflab")
	build := exec.Command("go", "build", "-o", bin, "./cmd/backofflab")
	build.Dir = jupytertest.Repo()
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building backofflab: %v\n%s", err, out)
	}
	return func(args ...string) map[string]any {
		t.Helper()
		key := strings.Join(args, "\x00")
		if out, ok := cliAnswers.Load(key); ok { // the other app asked the same (the CLI is seeded)
			return decodeCLI(t, args, out.([]byte))
		}
		out, err := exec.Command(bin, args...).Output()
		if err != nil {
			t.Fatalf("backofflab %s: %v", strings.Join(args, " "), err)
		}
		cliAnswers.Store(key, out)
		return decodeCLI(t, args, out)
	}
}

// cliAnswers keeps what the lab's CLI printed for each list of arguments: both apps probe the
// same explorables, and the CLI prints the same for the same arguments (every model is seeded).
var cliAnswers sync.Map

// decodeCLI decodes the JSON the CLI printed for args; each caller gets a map of its own.
func decodeCLI(t *testing.T, args []string, out []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatalf("backofflab %s: %v", strings.Join(args, " "), err)
	}
	return m
}

func evalJSON[T any](t testing.TB, b *Browser, js string) T {
	t.Helper()
	s, err := chromedp.Run(b.Ctx, chromedp.Evaluate[string](js, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	var v T
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("%s: %v: %s", js, err, s)
	}
	return v
}

// percentile returns the p-th percentile (nearest rank) of xs.
func percentile(xs []float64, p float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	i := int(p/100*float64(len(s))+0.5) - 1
	return s[min(max(i, 0), len(s)-1)]
}

// moves is how many times a test moves each control, framed and then fast: enough to see that
// every move redraws and that the last of a fast run is what shows. How long a redraw takes (the
// goal: at most 50 ms at the 95th percentile) is BenchmarkExplorableRedraw's to measure, over
// many more moves (scripts/bench-explorables).
const moves = 12

// checkExplorables checks every explorable of the page open in b against its case: drawn, every
// control labelled, the value printed beside it, the numbers equal to the lab's at each probe,
// every control moved a dozen times, one move a frame and then with no frame between moves, the
// final value shown after the fast run, and a slider moved by the arrow keys.
func checkExplorables(t *testing.T, b *Browser, where string, cases []explorableCase, cli func(args ...string) map[string]any) {
	t.Helper()
	page := explorablesOnPage(t, b, where, len(cases))
	if len(page) != len(cases) {
		b.Screenshot(t, scroller, "explore-failed")
		t.Fatalf("%s: %d explorables drawn, want %d", where, len(page), len(cases))
	}
	for _, c := range cases {
		e := page[c.index]
		name := fmt.Sprintf("%s: explorable %d", where, c.index)
		if len(e.Controls) != len(c.controls) {
			t.Fatalf("%s: %d controls, want %d", name, len(e.Controls), len(c.controls))
		}
		for k, ctl := range e.Controls {
			if ctl.Label != c.controls[k] || !ctl.Labelled {
				t.Errorf("%s: control %d is labelled %q (tied to it: %v), want %q", name, k, ctl.Label, ctl.Labelled, c.controls[k])
			}
		}
		for j, p := range e.View.Panels {
			if p.Painted < 1000 {
				t.Errorf("%s: panel %d is not drawn (%d pixels)", name, j, p.Painted)
			}
		}
		for _, p := range c.probes {
			var v exploreView
			for k, pos := range p.pos {
				v = evalJSON[exploreView](t, b, fmt.Sprintf("window.backofflabProbe.set(%d, %d, %d)", c.index, k, pos))
			}
			p.check(t, v, cli)
		}
		for k, ctl := range e.Controls {
			r := evalJSON[struct {
				Times, Painted []float64
				Last           int
				View           exploreView
			}](t, b, fmt.Sprintf("window.backofflabProbe.bench(%d, %d, %d)", c.index, k, moves))
			if len(r.Times) != moves {
				t.Errorf("%s, control %q: %d of %d moves redrew", name, ctl.Label, len(r.Times), moves)
			} else {
				t.Logf("%s, control %q: %d moves redrew, the slowest in %.1f ms (BenchmarkExplorableRedraw measures)", name, ctl.Label, moves, slices.Max(r.Times))
			}
			final := evalJSON[exploreView](t, b, fmt.Sprintf("window.backofflabProbe.set(%d, %d, %d)", c.index, k, r.Last))
			if final.Frame != r.View.Frame || final.Readout != r.View.Readout || final.Panels[0].Title != r.View.Panels[0].Title {
				t.Errorf("%s, control %q: after the moves the page shows frame %d (%q); position %d is frame %d (%q)",
					name, ctl.Label, r.View.Frame, r.View.Readout, r.Last, final.Frame, final.Readout)
			}
			if ctl.Range {
				checkArrowKeys(t, b, name, c.index, k, ctl)
			}
		}
		if c.playhead != nil {
			c.playhead(t, b, name, c.index, cli)
		}
	}
}

// explorablesOnPage installs the probe (exploreJS) in the page b shows and lists the explorables
// drawn there, waiting up to 30 s for at least want of them.
func explorablesOnPage(t testing.TB, b *Browser, where string, want int) []explorableOnPage {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(500 * time.Millisecond) {
		if _, err := chromedp.Run(b.Ctx, chromedp.Evaluate[bool](exploreJS)); err != nil {
			t.Fatalf("%s: installing the probe: %v", where, err)
		}
		page := evalJSON[[]explorableOnPage](t, b, "window.backofflabProbe.list()")
		if len(page) >= want || time.Now().After(deadline) {
			return page
		}
	}
}

// checkArrowKeys clicks slider k of explorable i, as a learner does before using the keyboard,
// and presses the right arrow twice: the value beside it must move two positions, and the
// frame with it.
func checkArrowKeys(t *testing.T, b *Browser, name string, i, k int, ctl exploreControl) {
	t.Helper()
	if ctl.N < 3 {
		return
	}
	evalJSON[exploreView](t, b, fmt.Sprintf("window.backofflabProbe.set(%d, %d, 0)", i, k))
	sel := fmt.Sprintf(`document.querySelectorAll('.backofflab-explorable[data-frame]')[%d].querySelectorAll('.backofflab-controls > div')[%d].querySelector('input')`, i, k)
	mark := `document.querySelectorAll('[data-probe-target]').forEach(e => e.removeAttribute('data-probe-target')); ` + sel + `.setAttribute('data-probe-target', '1'); true`
	if _, err := chromedp.Run(b.Ctx, chromedp.Evaluate[bool](mark)); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(b.Ctx, chromedp.ScrollIntoView(`input[data-probe-target]`), chromedp.Click(`input[data-probe-target]`)); err != nil {
		t.Fatalf("%s: clicking the slider: %v", name, err)
	}
	read := "JSON.stringify(JSON.parse(window.backofflabProbe.list())[" + strconv.Itoa(i) + "].view)"
	time.Sleep(300 * time.Millisecond) // what the page does with the focus after a click
	if focused, _ := chromedp.Run(b.Ctx, chromedp.Evaluate[bool](`document.activeElement === document.querySelector('input[data-probe-target]')`)); !focused {
		t.Logf("%s, control %q: after a click the focus is not on the slider; focusing it as the Tab key does", name, ctl.Label)
		if _, err := chromedp.Run(b.Ctx, chromedp.Evaluate[bool](`document.querySelector('input[data-probe-target]').focus(), true`)); err != nil {
			t.Fatal(err)
		}
		time.Sleep(300 * time.Millisecond)
	}
	before := evalJSON[exploreView](t, b, read)
	if err := chromedp.Do(b.Ctx, chromedp.KeyEvent(kb.ArrowLeft), chromedp.KeyEvent(kb.ArrowLeft)); err != nil {
		t.Fatal(err)
	}
	after := evalJSON[exploreView](t, b, read)
	if after.Values[k] == before.Values[k] || after.Frame == before.Frame {
		active, _ := chromedp.Run(b.Ctx, chromedp.Evaluate[string]("document.activeElement ? document.activeElement.outerHTML.slice(0, 120) : ''"))
		t.Errorf("%s, control %q: two left arrows left the value at %q (frame %d); focus is on %s", name, ctl.Label, after.Values[k], after.Frame, active)
		return
	}
	want := evalJSON[exploreView](t, b, fmt.Sprintf("window.backofflabProbe.set(%d, %d, %d)", i, k, before.Positions[k]-2))
	if after.Values[k] != want.Values[k] || after.Frame != want.Frame {
		t.Errorf("%s, control %q: two left arrows from %q show %q (frame %d), want %q (frame %d)",
			name, ctl.Label, before.Values[k], after.Values[k], after.Frame, want.Values[k], want.Frame)
	}
}

// explorablesByPath returns explorableCases by the notebook that holds them.
func explorablesByPath() map[string][]explorableCase {
	byPath := map[string][]explorableCase{}
	for _, c := range explorableCases() {
		byPath[c.path] = append(byPath[c.path], c)
	}
	return byPath
}
