package contention

import (
	"testing"
	"time"

	"github.com/backofflab/backofflab/lab/lcg"
)

// TestCalendarMatchesHeap drives the calendar and the heap with the same
// messages, as the simulation does (deliver the earliest, send the next a
// random delay later, sometimes much later, sometimes at the same instant,
// sometimes not at all), and checks that they deliver in the same order.
func TestCalendarMatchesHeap(t *testing.T) {
	g := lcg.MustNew(3)
	for trial := range 40 {
		clients := 1 + int(g.Float64()*300)
		net := time.Duration(g.Float64() * float64(20*time.Millisecond))
		sd := time.Duration(g.Float64() * float64(net) / 2)
		if trial%5 == 0 {
			sd = 0 // every hop alike: ties everywhere
		}
		var c calendar
		var h eventQueue
		c.reset(clients, net, sd, []time.Duration{3 * time.Second, 0}[trial%2]) // 0: waits go to the heap
		delay := func() time.Duration {
			switch u := g.Float64(); {
			case u < 0.1:
				return 0
			case u < 0.3:
				return time.Duration(g.Float64() * float64(3*time.Second)) // a backoff wait
			case sd == 0:
				return net
			default:
				return time.Duration(g.Float64() * float64(net+4*sd))
			}
		}
		for i := range clients {
			d := delay()
			c.push(int32(i), d)
			h.push(event{at: d, client: int32(i)})
		}
		for n := 0; ; n++ {
			id, at, ok := c.pop()
			if !ok {
				if h.len() != 0 {
					t.Fatalf("trial %d: calendar empty after %d, heap holds %d", trial, n, h.len())
				}
				break
			}
			e := h.min()
			if e.client != id || e.at != at {
				t.Fatalf("trial %d, delivery %d: calendar %d at %v, heap %d at %v", trial, n, id, at, e.client, e.at)
			}
			if n > 20*clients || g.Float64() < 0.05 {
				h.dropMin()
				continue
			}
			d := at + delay()
			c.push(id, d)
			h.replaceMin(event{at: d, client: id})
		}
	}
}
