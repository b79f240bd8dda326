package cohort

import (
	"cmp"
	"slices"
	"time"
)

// Attempt is one call a client made.
type Attempt struct {
	// At is when the call was made.
	At time.Duration
	// Client is the client's index, in [0, Clients).
	Client int
	// Retry counts the client's earlier attempts: 0 for its first call.
	Retry int
	// Admitted reports whether the dependency admitted the call (which
	// finishes the client) rather than refusing it.
	Admitted bool
}

// Trace is every attempt of one run, in the order the simulator made them
// (by time, then client), with the settings needed to read them. Its methods
// derive the series the lesson draws: calls per bucket against capacity, in
// flight against the limit with the idle spans, and one lane per client.
type Trace struct {
	Clients, Limit       int
	Service, Outage, End time.Duration // End is Result.Finish
	Attempts             []Attempt

	// A tally keeps only the waves (see Waves), not the attempts: the
	// spread table's runs need nothing more, and it takes no memory per
	// attempt.
	tally bool
	waves []Wave
}

// add records an attempt; it does nothing on a nil Trace.
func (tr *Trace) add(t int64, client int32, retry int, admitted bool) {
	if tr == nil {
		return
	}
	a := Attempt{At: time.Duration(t) * time.Millisecond, Client: int(client), Retry: retry, Admitted: admitted}
	if tr.tally {
		tr.waves = addToWave(tr.waves, a)
		return
	}
	tr.Attempts = append(tr.Attempts, a)
}

// Count is the calls made in one time bucket.
type Count struct {
	// Start is the start of the bucket [Start, Start+width).
	Start time.Duration
	// Admitted and Refused count the calls made in the bucket.
	Admitted, Refused int
	// Capacity is the most calls the dependency could admit in the bucket:
	// Limit for every started Service period of the bucket after the
	// outage (8 per 100 ms for a limit of 8 and 120 ms calls), 0 during the
	// outage.
	Capacity int
}

// Calls returns Admitted + Refused.
func (c Count) Calls() int { return c.Admitted + c.Refused }

// Buckets counts the calls in consecutive buckets of the given width from 0
// to End. The width is floored to whole milliseconds; a width under 1 ms
// means Bucket (100 ms).
func (tr *Trace) Buckets(width time.Duration) []Count {
	w := msec(width)
	if w < 1 {
		w = msec(Bucket)
	}
	end := msec(tr.End)
	for _, a := range tr.Attempts {
		end = max(end, msec(a.At)+1)
	}
	out := make([]Count, (end+w-1)/w)
	outage, service := msec(tr.Outage), max(msec(tr.Service), 1)
	for i := range out {
		start := int64(i) * w
		out[i].Start = time.Duration(start) * time.Millisecond
		if open := start + w - max(start, outage); open > 0 {
			out[i].Capacity = tr.Limit * int((open+service-1)/service)
		}
	}
	for _, a := range tr.Attempts {
		c := &out[msec(a.At)/w]
		if a.Admitted {
			c.Admitted++
		} else {
			c.Refused++
		}
	}
	return out
}

// Step says that from At on, InFlight calls are in flight (until the next
// Step).
type Step struct {
	At       time.Duration
	InFlight int
}

// InFlight returns the number of calls in flight as a step function starting
// at 0 with 0 in flight, one Step per millisecond in which it changed (the
// value after that millisecond's completions and admissions).
func (tr *Trace) InFlight() []Step {
	type change struct{ at, delta int64 }
	var ch []change
	for _, a := range tr.Attempts {
		if a.Admitted {
			t := msec(a.At)
			ch = append(ch, change{t, 1}, change{t + msec(tr.Service), -1})
		}
	}
	slices.SortStableFunc(ch, func(x, y change) int { return cmp.Compare(x.at, y.at) })
	steps := []Step{{0, 0}}
	n := 0
	for _, c := range ch {
		n += int(c.delta)
		at := time.Duration(c.at) * time.Millisecond
		if last := &steps[len(steps)-1]; last.At == at {
			last.InFlight = n
		} else {
			steps = append(steps, Step{at, n})
		}
	}
	return steps
}

// Span is the time interval [From, To).
type Span struct{ From, To time.Duration }

// Len returns To − From.
func (s Span) Len() time.Duration { return s.To - s.From }

// IdleSpans returns the intervals between the end of the outage and End with
// nothing in flight: the capacity that stood unused while work was
// outstanding. Their lengths add up to Result.Idle.
func (tr *Trace) IdleSpans() []Span {
	var spans []Span
	steps := tr.InFlight()
	for i, s := range steps {
		if s.InFlight != 0 {
			continue
		}
		from, to := max(s.At, tr.Outage), tr.End
		if i+1 < len(steps) {
			to = min(steps[i+1].At, tr.End)
		}
		if from < to {
			spans = append(spans, Span{from, to})
		}
	}
	return spans
}

// Lanes returns each client's attempts in time order, indexed by client:
// one lane per client, ending with its admitted call if it finished.
func (tr *Trace) Lanes() [][]Attempt {
	lanes := make([][]Attempt, tr.Clients)
	for _, a := range tr.Attempts {
		lanes[a.Client] = append(lanes[a.Client], a)
	}
	return lanes
}

// Wave is every client's attempt with the same Retry number: the cohort's
// k-th burst.
type Wave struct {
	// Retry is the attempt number shared by the wave, 0 for first calls.
	Retry int
	// Calls counts the wave's attempts and Admitted those admitted.
	Calls, Admitted int
	// First and Last are the times of the wave's earliest and latest
	// attempt.
	First, Last time.Duration
}

// Width returns Last − First + 1 ms: how many milliseconds the wave's calls
// are spread over.
func (w Wave) Width() time.Duration { return w.Last - w.First + time.Millisecond }

// Waves groups the attempts by retry number, in order of retry number.
func (tr *Trace) Waves() []Wave {
	if tr.tally {
		return slices.Clone(tr.waves)
	}
	var waves []Wave
	for _, a := range tr.Attempts {
		waves = addToWave(waves, a)
	}
	return waves
}

// addToWave counts attempt a into its wave and returns the waves.
func addToWave(waves []Wave, a Attempt) []Wave {
	for len(waves) <= a.Retry {
		waves = append(waves, Wave{Retry: len(waves), First: -1})
	}
	w := &waves[a.Retry]
	if w.Calls == 0 || a.At < w.First {
		w.First = a.At
	}
	w.Last = max(w.Last, a.At)
	w.Calls++
	if a.Admitted {
		w.Admitted++
	}
	return waves
}
