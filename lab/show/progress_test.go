package show

import (
	"strings"
	"sync"
	"testing"
)

// recordProgress replaces the notebook display for the test and returns
// what it receives.
func recordProgress(t *testing.T) *[]progressDraw {
	t.Helper()
	var (
		mu    sync.Mutex
		draws []progressDraw
	)
	old := displayProgress
	displayProgress = func(id, htmlText string, sync bool) {
		mu.Lock()
		defer mu.Unlock()
		draws = append(draws, progressDraw{id, htmlText, sync})
	}
	t.Cleanup(func() { displayProgress = old })
	return &draws
}

type progressDraw struct {
	id, html string
	sync     bool
}

func TestNewProgressRejectsBadInput(t *testing.T) {
	for _, tc := range []struct {
		name  string
		total int
		unit  string
		want  string
	}{
		{"zero total", 0, "runs", "total must be at least 1, got 0"},
		{"negative total", -3, "runs", "total must be at least 1, got -3"},
		{"no unit", 4, "", "unit must name the units"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := NewProgress("sweep", tc.total, tc.unit)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("NewProgress(%d, %q) = %v, %v; want an error with %q", tc.total, tc.unit, p, err, tc.want)
			}
		})
	}
}

func TestProgressAddRejectsBadCounts(t *testing.T) {
	draws := recordProgress(t)
	p, err := NewProgress("", 4, "storms")
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Add(-1); err == nil || !strings.Contains(err.Error(), "want 0 <= n <= 4") {
		t.Errorf("Add(-1) = %v, want an error naming the range", err)
	}
	if err := p.Add(3); err != nil {
		t.Fatal(err)
	}
	if err := p.Add(2); err == nil || !strings.Contains(err.Error(), "Add(2) with 3 of 4 storms done: want 0 <= n <= 1") {
		t.Errorf("Add(2) past the total = %v, want an error naming the range", err)
	}
	if got := p.Text(); got != "3 of 4 storms done" {
		t.Errorf("after the refused Add: %q, want the count unchanged", got)
	}
	if len(*draws) != 1 {
		t.Errorf("%d draws, want 1 (the refused calls draw nothing)", len(*draws))
	}
}

// The bar redraws in place under one id, about once per percent, syncs
// when it first appears and when it is done, and ends on a state that
// holds nothing that changes from run to run.
func TestProgressRedrawsInPlaceAndEndsStable(t *testing.T) {
	draws := recordProgress(t)
	p, err := NewProgress("Brooker's sweep", 9500, "runs")
	if err != nil {
		t.Fatal(err)
	}
	p.Doing("starting")
	for range 9500 {
		if err := p.Add(1); err != nil {
			t.Fatal(err)
		}
	}
	d := *draws
	if len(d) < 100 || len(d) > 102 {
		t.Errorf("%d redraws for 9500 units, want about one per percent (100 to 102)", len(d))
	}
	for i, x := range d {
		if x.id != d[0].id || !strings.HasPrefix(x.id, "backofflab-progress-") {
			t.Fatalf("draw %d has id %q, the first %q: want one block, redrawn in place", i, x.id, d[0].id)
		}
		if want := i == 0 || i == len(d)-1; x.sync != want {
			t.Errorf("draw %d: sync %v, want %v (only the first and the last)", i, x.sync, want)
		}
	}
	want := `<progress max="9500" value="9500" style="width: 16em; vertical-align: middle"></progress> Brooker&#39;s sweep: 9500 of 9500 runs done</div>`
	if last := d[len(d)-1].html; !strings.HasSuffix(last, want) {
		t.Errorf("final state\n%s\nwant it to end with\n%s", last, want)
	}
	if strings.Contains(d[len(d)-1].html, d[0].id) {
		t.Error("the saved HTML holds the display id, which changes from run to run")
	}
	if !strings.Contains(d[0].html, "0 of 9500 runs done; starting") {
		t.Errorf("first state %q, want the note after the count", d[0].html)
	}
}

func TestProgressConcurrentAdds(t *testing.T) {
	draws := recordProgress(t)
	p, err := NewProgress("", 800, "runs")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				if err := p.Add(1); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if got := p.Text(); got != "800 of 800 runs done" {
		t.Errorf("after 8 × 100 concurrent Adds: %q", got)
	}
	d := *draws
	if !strings.Contains(d[len(d)-1].html, "800 of 800 runs done") {
		t.Errorf("last draw %q, want the final state last", d[len(d)-1].html)
	}
}

// A note with HTML in it is shown as text.
func TestProgressEscapesText(t *testing.T) {
	recordProgress(t)
	p, err := NewProgress("<b>", 2, "runs")
	if err != nil {
		t.Fatal(err)
	}
	p.Doing(`running "a<b"`)
	if h := p.HTML(); strings.Contains(h, "<b>") || !strings.Contains(h, "&lt;b&gt;: 0 of 2 runs done; running &#34;a&lt;b&#34;") {
		t.Errorf("HTML() = %s, want the title and note escaped", h)
	}
}
