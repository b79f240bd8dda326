package schedule

import "time"

// Waits returns, for each of clients clients, the wait p chooses before
// retry n (n = 0 before the first retry) when it is the client's first
// call of p (prev = 0): the spread of one retry across a cohort that failed
// together. Every client draws from r in turn. It returns nil when clients
// <= 0.
func Waits(p Policy, n, clients int, r Uniform) []time.Duration {
	if clients <= 0 {
		return nil
	}
	out := make([]time.Duration, clients)
	for i := range out {
		out[i] = p.Delay(n, 0, r)
	}
	return out
}
