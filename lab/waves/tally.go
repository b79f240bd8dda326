package waves

import "github.com/backofflab/backofflab/lab/metrics"

// Tally counts what became of one attempt number across all clients.
// Clients that stopped before reaching the attempt are in none of the
// counts.
type Tally struct {
	// Failed attempts came during the outage.
	Failed int
	// Succeeded attempts came after it; their clients stopped.
	Succeeded int
	// PastWindow attempts would have come at or after the end of the
	// window; their clients stopped uncounted.
	PastWindow int
}

// Made returns how many clients reached this attempt.
func (t Tally) Made() int { return t.Failed + t.Succeeded + t.PastWindow }

// ByAttempt returns one Tally per attempt number: element i−1 for attempt
// i. It shows where the clients stop: without jitter every client
// succeeds at the first attempt after the outage; with jitter some
// succeed one attempt early and some last attempts fall past the window.
func (m *Model) ByAttempt() []Tally {
	ts := make([]Tally, m.cfg.Attempts)
	for a := range m.Attempts() {
		t := &ts[a.N-1]
		switch a.Outcome {
		case Failed:
			t.Failed++
		case Succeeded:
			t.Succeeded++
		case PastWindow:
			t.PastWindow++
		}
	}
	return ts
}

// PeakByAttempt returns the run's fullest slot (Run().Peak()) and what
// fills it: element i−1 counts the attempts in that slot that were their
// client's attempt i. It shows whether the peak is one wave or neighbouring
// waves overlapping: at full width the lesson's fullest slot holds 122
// first attempts and 63 second ones.
func (m *Model) PeakByAttempt() (metrics.Peak, []int) {
	p := m.Run().Peak()
	n := make([]int, m.cfg.Attempts)
	from, to := p.At(), p.At()+p.Width
	for a := range m.Attempts() {
		if a.Outcome.Counted() && a.At >= from && a.At < to {
			n[a.N-1]++
		}
	}
	return p, n
}
