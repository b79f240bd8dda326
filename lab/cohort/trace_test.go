package cohort

import (
	"reflect"
	"testing"
	"time"
)

// TestTraceSeries checks the series the figures draw against the Result of
// the same run, for every policy and setting of the lesson.
func TestTraceSeries(t *testing.T) {
	for _, p := range Lineup() {
		for _, c := range []Config{Lesson().WithPolicy(p.Policy), Lesson().WithoutOutage().WithPolicy(p.Policy), Lesson().WithOverload().WithPolicy(p.Policy)} {
			r, tr, err := RunTraced(c)
			if err != nil {
				t.Fatal(err)
			}
			label := p.Name
			if len(tr.Attempts) != r.Calls || tr.End != r.Finish {
				t.Fatalf("%s: %d attempts, end %v; result %d calls, finish %v", label, len(tr.Attempts), tr.End, r.Calls, r.Finish)
			}

			// Buckets: every call counted once, the peak is PeakPer100ms,
			// capacity is 0 during the outage and Limit per started
			// service period after it.
			var admitted, refused, peak int
			for _, b := range tr.Buckets(Bucket) {
				admitted += b.Admitted
				refused += b.Refused
				peak = max(peak, b.Calls())
				want := c.Limit // 100 ms buckets, 120 ms service: one period
				if b.Start < c.Outage {
					want = 0
				}
				if b.Capacity != want {
					t.Fatalf("%s: bucket at %v capacity %d, want %d", label, b.Start, b.Capacity, want)
				}
			}
			if admitted != r.Admitted || refused != r.Calls-r.Admitted || peak != r.PeakPer100ms {
				t.Errorf("%s: buckets hold %d admitted, %d refused, peak %d; result %+v", label, admitted, refused, peak, r)
			}

			// In flight never exceeds the limit and ends at 0 when all
			// finished; the idle spans add up to Result.Idle.
			steps := tr.InFlight()
			for _, s := range steps {
				if s.InFlight < 0 || s.InFlight > c.Limit {
					t.Fatalf("%s: %d in flight at %v", label, s.InFlight, s.At)
				}
			}
			if r.Unfinished == 0 && steps[len(steps)-1] != (Step{r.Finish, 0}) {
				t.Errorf("%s: last step %+v, want 0 in flight at the finish %v", label, steps[len(steps)-1], r.Finish)
			}
			var idle time.Duration
			for _, s := range tr.IdleSpans() {
				if s.From < c.Outage || s.To > r.Finish || s.Len() <= 0 {
					t.Fatalf("%s: idle span %+v outside [%v, %v)", label, s, c.Outage, r.Finish)
				}
				idle += s.Len()
			}
			if idle != r.Idle {
				t.Errorf("%s: idle spans add up to %v, result says %v", label, idle, r.Idle)
			}

			// Lanes: one per client, in time order, retry numbers counting
			// up from 0, ending with the admitted call if any.
			lanes := tr.Lanes()
			finished := 0
			for i, lane := range lanes {
				for k, a := range lane {
					if a.Client != i || a.Retry != k || (k > 0 && a.At <= lane[k-1].At) || (a.Admitted && k != len(lane)-1) {
						t.Fatalf("%s: lane %d attempt %d = %+v", label, i, k, a)
					}
				}
				if len(lane) > 0 && lane[len(lane)-1].Admitted {
					finished++
				}
			}
			if finished != r.Admitted {
				t.Errorf("%s: %d lanes end admitted, result admitted %d", label, finished, r.Admitted)
			}

			// Waves: the calls of all waves add up.
			n := 0
			for k, w := range tr.Waves() {
				if w.Retry != k || w.First > w.Last || w.Calls == 0 {
					t.Errorf("%s: wave %d = %+v", label, k, w)
				}
				n += w.Calls
			}
			if n != r.Calls {
				t.Errorf("%s: waves hold %d calls, want %d", label, n, r.Calls)
			}
		}
	}
}

func TestBucketsWidth(t *testing.T) {
	tr := &Trace{Clients: 1, Limit: 4, Service: 30 * time.Millisecond, Outage: 50 * time.Millisecond, End: 250 * time.Millisecond,
		Attempts: []Attempt{{At: 0}, {At: 60 * time.Millisecond, Admitted: true}}}
	got := tr.Buckets(0) // 0 means Bucket
	want := []Count{
		{Start: 0, Refused: 1, Admitted: 1, Capacity: 4 * 2}, // 50 ms open: two 30 ms periods started
		{Start: 100 * time.Millisecond, Capacity: 4 * 4},     // 100 ms open: four periods started
		{Start: 200 * time.Millisecond, Capacity: 4 * 4},
	}
	if len(got) != len(want) {
		t.Fatalf("Buckets(0) = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("bucket %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	if n := len(tr.Buckets(50 * time.Millisecond)); n != 5 {
		t.Errorf("Buckets(50ms) has %d buckets, want 5", n)
	}
}

// The event-driven runner's traces only tally the waves; the spread table
// must come out exactly as from full traces.
func TestTallyGivesTheSpreadTableOfFullTraces(t *testing.T) {
	full := func(c Config, traced bool) (Result, *Trace, error) {
		if !traced {
			r, err := Run(c)
			return r, nil, err
		}
		return RunTraced(c)
	}
	for _, p := range Lineup() {
		c := Lesson().WithPolicy(p.Policy)
		got, err := spreadTable(events(), c, DefaultSpreads, 5)
		if err != nil {
			t.Fatal(err)
		}
		want, err := spreadTable(&averager{run: full}, c, DefaultSpreads, 5)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: spread table from tallies\n%+v\nfrom full traces\n%+v", p.Name, got, want)
		}
	}
}
