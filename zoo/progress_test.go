package zoo

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// barRecorder records what RunHTTP's runs draw on their progress bars.
type barRecorder struct {
	mu     sync.Mutex
	events []string
}

type recordedBar struct {
	r     *barRecorder
	title string
	total int
	done  int
}

func (b *recordedBar) Add(n int) error {
	b.r.mu.Lock()
	defer b.r.mu.Unlock()
	b.done += n
	b.r.events = append(b.r.events, fmt.Sprintf("%s: %d of %d", b.title, b.done, b.total))
	return nil
}

func (b *recordedBar) Doing(note string) {
	b.r.mu.Lock()
	defer b.r.mu.Unlock()
	b.r.events = append(b.r.events, fmt.Sprintf("%s: %s", b.title, note))
}

func recordBars(t *testing.T) *barRecorder {
	r := &barRecorder{}
	old := newProgressBar
	newProgressBar = func(title string, total int, unit string) (progressBar, error) {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.events = append(r.events, fmt.Sprintf("new %q, %d %s", title, total, unit))
		return &recordedBar{r: r, title: title, total: total}, nil
	}
	t.Cleanup(func() {
		newProgressBar = old
		httpRuns.bar, httpRuns.next, httpRuns.left = nil, 0, 0
	})
	return r
}

// Lesson 13's cell runs every HTTP client, one RunHTTP after another: one bar counts them all
// and names the library running; a loop that starts again begins a new bar, and so does a
// client that is not one of HTTPClients.
func TestHTTPRunsShareOneProgressBar(t *testing.T) {
	r := recordBars(t)
	list := HTTPClients()
	for _, c := range list {
		startHTTPRun(c)()
	}
	if got := r.events[0]; got != fmt.Sprintf(`new %q, %d runs`, httpRunsTitle, len(list)) {
		t.Errorf("first event %q, want one bar for the %d runs", got, len(list))
	}
	if news := strings.Count(strings.Join(r.events, "\n"), "new "); news != 1 {
		t.Errorf("%d bars for one loop over the clients, want 1:\n%s", news, strings.Join(r.events, "\n"))
	}
	if got, want := r.events[1], httpRunsTitle+": running "+list[0].Name+" ("+list[0].Settings+")"; got != want {
		t.Errorf("second event %q, want %q", got, want)
	}
	if got, want := r.events[len(r.events)-1], fmt.Sprintf("%s: %d of %d", httpRunsTitle, len(list), len(list)); got != want {
		t.Errorf("last event %q, want %q", got, want)
	}

	// The loop again: a new bar. Then from the third client on: a bar for the runs left.
	n := len(r.events)
	startHTTPRun(list[0])()
	if !strings.HasPrefix(r.events[n], "new ") {
		t.Errorf("a second loop drew on the first loop's bar: %q", r.events[n:])
	}
	n = len(r.events)
	startHTTPRun(list[2])()
	if want := fmt.Sprintf(`new %q, %d runs`, httpRunsTitle, len(list)-2); r.events[n] != want {
		t.Errorf("a loop from the third client: %q, want %q", r.events[n], want)
	}

	other := list[0]
	other.Settings = "a setting of the learner's own"
	n = len(r.events)
	startHTTPRun(other)()
	if want := fmt.Sprintf(`new %q, 1 runs`, httpRunsTitle+": "+other.Name); r.events[n] != want {
		t.Errorf("a client of the learner's own: %q, want a bar of its own, %q", r.events[n], want)
	}
}
