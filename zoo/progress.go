package zoo

import (
	"fmt"
	"sync"

	"github.com/backofflab/backofflab/lab/show"
)

// The progress bar of the real-socket runs. Each RunHTTP takes the outage and then some in real
// time (a few seconds), and a notebook cell runs one for every client of HTTPClients, about half
// a minute in all: RunHTTP shows one bar (show.Progress) over that whole list, however the cell
// loops over it, and names the library running now. A run of a client that is not in the list
// has a bar of its own. Outside a notebook the bar shows nothing.

// progressBar is what RunHTTP draws on: a *show.Progress.
type progressBar interface {
	Add(n int) error
	Doing(note string)
}

// newProgressBar makes a bar; tests replace it.
var newProgressBar = func(title string, total int, unit string) (progressBar, error) {
	return show.NewProgress(title, total, unit)
}

// httpRuns is the bar of the current sequence of runs through HTTPClients. A notebook cell is a
// program of its own, so a sequence never outlives its cell.
var httpRuns struct {
	mu   sync.Mutex
	bar  progressBar
	next int // the index in HTTPClients of the run that continues the sequence
	left int // the runs the bar still counts
}

// httpRunsTitle heads the bar of RunHTTP's runs through HTTPClients.
const httpRunsTitle = "HTTP clients over real sockets"

// indexOf returns c's index in HTTPClients, or -1.
func indexOf(c HTTPClient, list []HTTPClient) int {
	for i, x := range list {
		if x.Name == c.Name && x.Module == c.Module && x.Settings == c.Settings && x.Fix == c.Fix {
			return i
		}
	}
	return -1
}

// startHTTPRun shows that RunHTTP is about to run c, on the bar of the sequence it continues or
// begins, and returns what RunHTTP calls when the run ends. A run of c that does not continue the
// sequence (the first of a cell's loop, or one out of order) begins a new bar, counting the runs
// from c to the end of HTTPClients. The bar only informs: an error drawing it is ignored.
func startHTTPRun(c HTTPClient) (done func()) {
	list := HTTPClients()
	i := indexOf(c, list)
	note := fmt.Sprintf("running %s (%s)", c.Name, c.Settings)
	httpRuns.mu.Lock()
	defer httpRuns.mu.Unlock()
	if i < 0 {
		bar, err := newProgressBar(httpRunsTitle+": "+c.Name, 1, "runs")
		if err != nil {
			return func() {}
		}
		bar.Doing(note)
		return func() { _ = bar.Add(1) }
	}
	if httpRuns.bar == nil || i != httpRuns.next || httpRuns.left == 0 {
		bar, err := newProgressBar(httpRunsTitle, len(list)-i, "runs")
		if err != nil {
			httpRuns.bar = nil
			return func() {}
		}
		httpRuns.bar, httpRuns.left = bar, len(list)-i
	}
	bar := httpRuns.bar
	bar.Doing(note)
	httpRuns.next = i + 1
	return func() {
		httpRuns.mu.Lock()
		defer httpRuns.mu.Unlock()
		_ = bar.Add(1)
		if bar == httpRuns.bar {
			httpRuns.left--
		}
	}
}
