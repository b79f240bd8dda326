package waves

import "testing"

func TestByAttemptAddsUpToTheResult(t *testing.T) {
	for _, w := range []float64{0, 0.5, 0.75, 1, 2} {
		c := Lesson()
		c.Jitter = w
		m, err := New(c)
		if err != nil {
			t.Fatal(err)
		}
		r := m.Run()
		ts := m.ByAttempt()
		if len(ts) != c.Attempts {
			t.Fatalf("w=%g: %d tallies, want %d", w, len(ts), c.Attempts)
		}
		failed, succeeded, past := 0, 0, 0
		for i, tl := range ts {
			failed += tl.Failed
			succeeded += tl.Succeeded
			past += tl.PastWindow
			if i > 0 && tl.Made() != ts[i-1].Failed {
				t.Errorf("w=%g attempt %d made by %d clients, but %d failed attempt %d", w, i+1, tl.Made(), ts[i-1].Failed, i)
			}
		}
		if ts[0].Made() != c.Clients || failed+succeeded != r.Total || succeeded != r.Recovered ||
			past != r.CutOff || ts[c.Attempts-1].Failed != r.Exhausted {
			t.Errorf("w=%g: tallies %+v do not add up to the result %+v", w, ts, r)
		}
	}
}

func TestByAttemptWithoutJitterSucceedsAtTheSixthAttempt(t *testing.T) {
	m, _ := New(Lesson())
	ts := m.ByAttempt()
	for i, tl := range ts[:5] {
		if tl != (Tally{Failed: 600}) {
			t.Errorf("attempt %d: %+v, want all 600 failed during the outage", i+1, tl)
		}
	}
	if ts[5] != (Tally{Succeeded: 600}) {
		t.Errorf("attempt 6: %+v, want all 600 succeeded at 32 s", ts[5])
	}
}
