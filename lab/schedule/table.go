package schedule

import (
	"fmt"
	"time"

	"github.com/backofflab/backofflab/lab/lcg"
	"github.com/backofflab/backofflab/lab/table"
)

// DelayTable returns the first retries waits of each named policy (every
// policy of Names if names is empty), one line each under its Label,
// rounded to the millisecond: each policy built by New with base, cap and a
// full width (1), and drawing from its own generator seeded with seed, as
// one client would.
func DelayTable(base, cap time.Duration, retries int, seed int64, names ...string) (table.Table, error) {
	if len(names) == 0 {
		names = Names()
	}
	t := table.New("retry n")
	for n := range retries {
		t.Head = append(t.Head, fmt.Sprint(n))
	}
	for _, name := range names {
		p, err := New(Config{Name: name, Base: base, Cap: cap, Width: 1})
		if err != nil {
			return table.Table{}, err
		}
		g, err := lcg.New(seed)
		if err != nil {
			return table.Table{}, err
		}
		row := []any{Label(name)}
		for _, d := range Delays(p, retries, g) {
			row = append(row, d.Round(time.Millisecond))
		}
		t.Add(row...)
	}
	return t, nil
}

// LineupTable returns one line per policy of a lineup: its name and the
// policy with its parameters.
func LineupTable(lineup []Named) table.Table {
	t := table.New("policy", "parameters")
	for _, p := range lineup {
		t.Add(p.Name, fmt.Sprint(p.Policy))
	}
	return t
}
