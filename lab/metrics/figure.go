package metrics

import (
	"github.com/backofflab/backofflab/lab/figure"
	"github.com/backofflab/backofflab/lab/table"
)

// Figure returns the histogram as a figure: one bar per slot from t = 0,
// its x axis in seconds. Give it a title, labels or reference lines before
// drawing it with lab/static or lab/interactive.
func (h Histogram) Figure() figure.Histogram {
	return figure.Histogram{Slot: h.Slot, Counts: figure.Float64s(h.Counts)}
}

// BusyTable returns one line per slot that holds any events: its start
// and its count, and a note of how many slots of all are busy.
func (h Histogram) BusyTable() table.Table {
	t := table.New("slot at", "count")
	busy := 0
	for k, n := range h.Counts {
		if n > 0 {
			t.Add(h.Start(k), n)
			busy++
		}
	}
	t.Note("slots with events: %d of %d", busy, len(h.Counts))
	return t
}
