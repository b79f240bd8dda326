package show

import (
	"errors"
	"fmt"
	"html"
	"sync"

	"github.com/janpfeifer/gonb/gonbui"
)

// Progress is a progress bar for a long notebook cell: a sweep of many
// runs, or storms that run in real time. In a GoNB notebook it is one
// output block that every change redraws in place (a display with an id,
// which GoNB sends as update_display_data); outside a notebook it shows
// nothing. Make one with [NewProgress].
//
// The block appears at the first call to [Progress.Add] or
// [Progress.Doing], so a cell whose result was remembered shows no bar.
// The saved notebook keeps the block's last state, such as "Brooker's
// sweep: 9500 of 9500 runs done": it holds no time and no id, so a re-run
// saves the same text. A Progress is safe for concurrent use; it redraws
// when the whole percentage or the note changes, at most about a hundred
// times however many units there are.
type Progress struct {
	title, unit string
	total       int

	mu      sync.Mutex
	id      string // GoNB display id, made at the first redraw
	done    int
	note    string
	percent int // the percentage last drawn; -1 before the first redraw
}

// displayProgress draws a progress block: the notebook's UpdateHTML (which
// creates the block under id the first time, and redraws it after), then
// a Sync when first shows the block or final is its last state, so that
// the block keeps its place before the cell's later output. Tests replace
// it.
var displayProgress = func(id, htmlText string, sync bool) {
	if !gonbui.IsNotebook {
		return
	}
	gonbui.UpdateHTML(id, htmlText)
	if sync {
		gonbui.Sync()
	}
}

// NewProgress returns a progress bar for total units of work, named in
// the plural by unit ("runs", "storms"), under title (may be empty). It
// shows nothing until the first Add or Doing.
func NewProgress(title string, total int, unit string) (*Progress, error) {
	if total < 1 {
		return nil, fmt.Errorf("show: progress total must be at least 1, got %d", total)
	}
	if unit == "" {
		return nil, errors.New("show: progress unit must name the units of work, such as \"runs\"; got \"\"")
	}
	return &Progress{title: title, unit: unit, total: total, percent: -1}, nil
}

// Add counts n more units done and redraws the bar if that moved it by a
// whole percent. The last unit clears the note and draws the final state,
// "N of N <unit> done". n must be at least 0, and the count may not pass
// the total.
func (p *Progress) Add(n int) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n < 0 || n > p.total-p.done {
		return fmt.Errorf("show: progress Add(%d) with %d of %d %s done: want 0 <= n <= %d", n, p.done, p.total, p.unit, p.total-p.done)
	}
	p.done += n
	if p.done == p.total {
		p.note = ""
	}
	p.redraw(false)
	return nil
}

// Doing sets the note shown after the count, what runs now (such as
// `running "tuned"`), and redraws the bar. An empty note removes it.
func (p *Progress) Doing(note string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if note == p.note && p.percent >= 0 {
		return
	}
	p.note = note
	p.redraw(true)
}

// redraw draws the bar when it has not been drawn, when force is set, when
// the percentage changed, or when the work is done. p.mu is held.
func (p *Progress) redraw(force bool) {
	percent := 100 * p.done / p.total
	first, final := p.percent < 0, p.done == p.total
	if !first && !force && !final && percent == p.percent {
		return
	}
	if first {
		p.id = "backofflab-progress-" + gonbui.UniqueId()
	}
	p.percent = percent
	displayProgress(p.id, p.htmlLocked(), first || final)
}

// HTML returns the bar's current state as the HTML fragment the notebook
// shows: a <progress> element and the text "[title: ]done of total unit
// done[; note]".
func (p *Progress) HTML() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.htmlLocked()
}

// Text returns the bar's text, without the bar: "Brooker's sweep: 950 of
// 9500 runs done; running exponential".
func (p *Progress) Text() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.textLocked()
}

func (p *Progress) textLocked() string {
	s := fmt.Sprintf("%d of %d %s done", p.done, p.total, p.unit)
	if p.title != "" {
		s = p.title + ": " + s
	}
	if p.note != "" {
		s += "; " + p.note
	}
	return s
}

func (p *Progress) htmlLocked() string {
	return fmt.Sprintf(`<div class="backofflab-progress" style="font-family: sans-serif; font-size: 13px; margin: 4px 0">`+
		`<progress max="%d" value="%d" style="width: 16em; vertical-align: middle"></progress> %s</div>`,
		p.total, p.done, html.EscapeString(p.textLocked()))
}
