package cohort

import (
	"math"
	"testing"
	"time"
)

// TestDecorrelatedAgainstFull pins lesson 05's comparison of decorrelated
// and full jitter ("Full or decorrelated?"), over LessonTables(40, 20):
// full jitter finishes first in every setting with an outage (main,
// overload, caps from 200 ms to 3.2 s) and decorrelated first without one;
// decorrelated makes fewer calls everywhere, its worst 100 ms is the first
// burst alone (60 calls, 240 under overload) and full jitter's is more than
// twice that. With an outage decorrelated is at most 12.2 % behind, under
// the 100 ms cap, where its draws have no room between the base and the cap
// and it is the constant wait run for run; in every other setting with an
// outage at most 8 % (7.6 % under overload). It also pins the 800 ms cap sentence: full jitter 70 ms ahead of the
// constant wait, 30 ms being two standard errors away.
func TestDecorrelatedAgainstFull(t *testing.T) {
	tb := lessonTablesForTest(t)
	type pair struct {
		name       string
		full, dec  Summary
		outage     bool
		firstBurst float64
		lag        float64 // the most decorrelated may be behind full jitter on time, with an outage
	}
	pairs := []pair{
		{"main", row(t, tb.Main, "full"), row(t, tb.Main, "decorrelated"), true, 60, 0.08},
		{"no outage", row(t, tb.NoOutage, "full"), row(t, tb.NoOutage, "decorrelated"), false, 60, 0},
		{"overload", row(t, tb.Overload, "full"), row(t, tb.Overload, "decorrelated"), true, 240, 0.08},
	}
	for _, cp := range []time.Duration{200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond, 1600 * time.Millisecond, 3200 * time.Millisecond} {
		pairs = append(pairs, pair{"cap " + cp.String(), capRow(t, tb.Caps, "full", cp), capRow(t, tb.Caps, "decorrelated", cp), true, 60, 0.08})
	}
	// Under the 100 ms cap decorrelated jitter is the constant wait (below):
	// its worst 100 ms is the constant wait's 60, and it is 12.2 % behind.
	pairs = append(pairs, pair{"cap 100ms", capRow(t, tb.Caps, "full", 100*time.Millisecond), capRow(t, tb.Caps, "decorrelated", 100*time.Millisecond), true, 60, 0.125})
	for _, p := range pairs {
		t.Run(p.name, func(t *testing.T) {
			if fullFirst := p.full.FinishMs < p.dec.FinishMs; fullFirst != p.outage {
				t.Errorf("full %.0f ms, decorrelated %.0f ms: want full first exactly when there is an outage (%v)", p.full.FinishMs, p.dec.FinishMs, p.outage)
			}
			if p.outage && p.dec.FinishMs > (1+p.lag)*p.full.FinishMs {
				t.Errorf("decorrelated %.0f ms is more than %.1f %% behind full's %.0f ms", p.dec.FinishMs, 100*p.lag, p.full.FinishMs)
			}
			if p.dec.Calls >= p.full.Calls {
				t.Errorf("decorrelated %.1f calls, full %.1f: want decorrelated fewer", p.dec.Calls, p.full.Calls)
			}
			if p.dec.PeakPer100ms != p.firstBurst || p.full.PeakPer100ms <= 2*p.firstBurst {
				t.Errorf("worst 100 ms: decorrelated %.1f, full %.1f; want %.0f and more than twice that", p.dec.PeakPer100ms, p.full.PeakPer100ms, p.firstBurst)
			}
		})
	}
	t.Run("cap 100 ms: decorrelated is the constant wait, 12.2 % behind full jitter, its largest lag", func(t *testing.T) {
		dec, constant := capRow(t, tb.Caps, "decorrelated", 100*time.Millisecond).Runs, row(t, tb.Main, "constant").Runs
		for i := range dec {
			if dec[i].Finish != constant[i].Finish || dec[i].Calls != constant[i].Calls || dec[i].Idle != constant[i].Idle {
				t.Fatalf("seed %d: decorrelated under the 100 ms cap %+v, want the constant wait's %+v", i, dec[i], constant[i])
			}
		}
		full := capRow(t, tb.Caps, "full", 100*time.Millisecond).Runs
		xs := make([]float64, len(full))
		for i, r := range full {
			xs[i] = finishMs(r)
		}
		mean, se := meanSE(xs)
		lag := 100 * (ms(constant[0].Finish)/mean - 1)
		// 4520 ms against 4030 ± 1 ms: 12.16 %, and an SE of a millisecond
		// cannot move the first decimal by more than one.
		if math.Round(10*lag) < 121 || math.Round(10*lag) > 123 || se > 5 {
			t.Errorf("decorrelated %v behind full jitter's %.1f ms (SE %.1f): %.2f %%, want 12.2 %%", constant[0].Finish, mean, se, lag)
		}
		for _, other := range pairs[:len(pairs)-1] {
			if other.outage && 100*(other.dec.FinishMs/other.full.FinishMs-1) >= lag {
				t.Errorf("%s: decorrelated %.2f %% behind, want less than the 100 ms cap's %.2f %%", other.name, 100*(other.dec.FinishMs/other.full.FinishMs-1), lag)
			}
		}
	})
	t.Run("caps 100, 200, 400, 800 ms: decorrelated the slowest jittered policy", func(t *testing.T) {
		for _, cp := range []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond} {
			d := capRow(t, tb.Caps, "decorrelated", cp).FinishMs
			if f, e := capRow(t, tb.Caps, "full", cp).FinishMs, capRow(t, tb.Caps, "equal", cp).FinishMs; d <= f || d <= e {
				t.Errorf("cap %v: decorrelated %.0f ms, full %.0f, equal %.0f: want decorrelated last", cp, d, f, e)
			}
		}
	})
	t.Run("800ms cap: 70 ms ahead of the constant wait, 30 ms two standard errors away", func(t *testing.T) {
		f := capRow(t, tb.Caps, "full", 800*time.Millisecond)
		constant := row(t, tb.Main, "constant")
		xs := make([]float64, len(f.Runs))
		for i, r := range f.Runs {
			xs[i] = finishMs(r)
		}
		mean, se := meanSE(xs)
		ahead := constant.FinishMs - mean
		if ahead < 65 || ahead >= 75 || se < 15 || se >= 25 || (ahead-30)/se < 1.5 || (ahead-30)/se > 2.5 {
			t.Errorf("full jitter %.1f ms ahead (SE %.1f ms), want 70 ms ± 5 with an SE of about 20 ms, 30 ms about two SE away", ahead, se)
		}
	})
}
