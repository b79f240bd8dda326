package crashloop

// This file is the whole model of lesson 08's crash loop, written to be
// read: one instance that restarts cold, the cohort retrying against it,
// and the readiness gate, in the order the lesson states them.

import (
	"slices"
	"time"

	"github.com/backofflab/backofflab/lab/lcg"
	"github.com/backofflab/backofflab/lab/synchrony"
)

// Run runs the instance and the clients of w until the horizon.
func Run(w Config) (Result, error) {
	if err := w.Validate(); err != nil {
		return Result{}, err
	}
	c := w.Cohort
	g := lcg.MustNew(c.Seed) // the waits, in the order the refusals happen
	type client struct {
		n        int
		prev, at time.Duration
	}
	// The clients are a synchrony.Cohort's: each makes its first attempt at t = 0
	// (or within Spread).
	clients := make([]client, c.Clients)
	slots := make([][]int, (c.Horizon-1)/w.Slot+1) // the clients due in each slot
	for i := range clients {
		if c.Spread > 0 {
			clients[i].at = synchrony.Within(c.Spread, g.Float64())
		}
		s := clients[i].at / w.Slot
		slots[s] = append(slots[s], i)
	}
	// The instance restarts at t = 0: it is down for Restart, then up cold.
	var r Result
	up := w.Restart // when the instance last came up
	for s, due := range slots {
		// Within a slot it takes the requests in the order of their times.
		start := time.Duration(s) * w.Slot
		slices.SortStableFunc(due, func(a, b int) int { return int(clients[a].at - clients[b].at) })
		r.Attempts += len(due)
		served := 0
		switch warm := start >= up+w.WarmUp; {
		case start < up, w.Gate && !warm:
			// Down, or kept out of traffic by the gate until warm.
		case warm:
			// Warm (after WarmUp of uptime): it serves Warm a slot and
			// refuses the rest at once, without falling over.
			if r.Warm == 0 {
				r.Warm = up + w.WarmUp
			}
			served = min(len(due), w.Warm)
		case len(due) > w.Cold:
			// Cold, a slot bringing more than Cold fails its readiness
			// probe: it is restarted, and comes up cold again.
			r.Restarts++
			up = start + w.Slot + w.Restart
		default:
			served = len(due)
		}
		// Every refused client waits as its policy says and tries again.
		for k, i := range due {
			cl := &clients[i]
			if k < served {
				r.Served++
				r.Last = cl.at
				continue
			}
			cl.prev = max(c.Policy.Delay(cl.n, cl.prev, g), 0)
			cl.n++
			// A retry due within the slot of its refusal comes in the next one.
			cl.at = max(synchrony.Later(cl.at, cl.prev), start+w.Slot)
			if cl.at < c.Horizon {
				slots[cl.at/w.Slot] = append(slots[cl.at/w.Slot], i)
			}
		}
		slots[s] = nil
	}
	return r, nil
}
