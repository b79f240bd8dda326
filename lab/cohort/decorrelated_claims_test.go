package cohort

import (
	"testing"
	"time"
)

// TestDecorrelatedAgainstFull pins lesson 05's comparison of decorrelated
// and full jitter ("Full or decorrelated?"), over LessonTables(40, 20):
// full jitter finishes first in every setting with an outage (main,
// overload, caps from 200 ms to 3.2 s) and decorrelated first without one;
// decorrelated makes fewer calls everywhere, its worst 100 ms is the first
// burst alone (60 calls, 240 under overload) and full jitter's is more than
// twice that; with an outage decorrelated is never more than 8 % behind.
// It also pins the 800 ms cap sentence: full jitter 70 ms ahead of the
// constant wait, 30 ms being two standard errors away.
func TestDecorrelatedAgainstFull(t *testing.T) {
	tb := lessonTablesForTest(t)
	type pair struct {
		name       string
		full, dec  Summary
		outage     bool
		firstBurst float64
	}
	pairs := []pair{
		{"main", row(t, tb.Main, "full"), row(t, tb.Main, "decorrelated"), true, 60},
		{"no outage", row(t, tb.NoOutage, "full"), row(t, tb.NoOutage, "decorrelated"), false, 60},
		{"overload", row(t, tb.Overload, "full"), row(t, tb.Overload, "decorrelated"), true, 240},
	}
	for _, cp := range []time.Duration{200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond, 1600 * time.Millisecond, 3200 * time.Millisecond} {
		pairs = append(pairs, pair{"cap " + cp.String(), capRow(t, tb.Caps, "full", cp), capRow(t, tb.Caps, "decorrelated", cp), true, 60})
	}
	for _, p := range pairs {
		t.Run(p.name, func(t *testing.T) {
			if fullFirst := p.full.FinishMs < p.dec.FinishMs; fullFirst != p.outage {
				t.Errorf("full %.0f ms, decorrelated %.0f ms: want full first exactly when there is an outage (%v)", p.full.FinishMs, p.dec.FinishMs, p.outage)
			}
			if p.outage && p.dec.FinishMs > 1.08*p.full.FinishMs {
				t.Errorf("decorrelated %.0f ms is more than 8 %% behind full's %.0f ms", p.dec.FinishMs, p.full.FinishMs)
			}
			if p.dec.Calls >= p.full.Calls {
				t.Errorf("decorrelated %.1f calls, full %.1f: want decorrelated fewer", p.dec.Calls, p.full.Calls)
			}
			if p.dec.PeakPer100ms != p.firstBurst || p.full.PeakPer100ms <= 2*p.firstBurst {
				t.Errorf("worst 100 ms: decorrelated %.1f, full %.1f; want %.0f and more than twice that", p.dec.PeakPer100ms, p.full.PeakPer100ms, p.firstBurst)
			}
		})
	}
	t.Run("caps 200, 400, 800 ms: decorrelated the slowest jittered policy", func(t *testing.T) {
		for _, cp := range []time.Duration{200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond} {
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
