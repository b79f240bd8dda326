package cohort

import (
	"testing"
	"time"

	"github.com/backofflab/backofflab/lab/schedule"
	"github.com/backofflab/backofflab/lab/table/tabletest"
)

// TestLessonTables checks lines of the tables lesson 05 prints.
func TestLessonTables(t *testing.T) {
	ts, c := lessonTablesForTest(t), Lesson()
	if got := c.WorkFloor(); got != "work floor: 60 × 120ms / 8 = 900ms" {
		t.Errorf("WorkFloor() = %q", got)
	}
	tabletest.Has(t, "Admitted", ts.Admitted(c), "exponential     60 to 60 (40 seeds)     7.2s            900ms            496.0")
	tabletest.Has(t, "Recovery", ts.Recovery(c), "exponential        25.62   21.66       22.62       95.8%                     256",
		"full         6.08 ± 0.07")
	tabletest.Has(t, "BackoffCalls", ts.BackoffCalls(), "equal (421.3)", "0.87 s (its own SE 0.14 s)")
	tabletest.Has(t, "SpreadTable", ts.SpreadTable(), " 400ms           390.9           390.9   +0.0%      -2.3%            6     11.60",
		"largest distance of a burst from its spread: 2.3% (40 seeds)")
	widths, err := ts.WaveWidths(50 * time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	tabletest.Has(t, "WaveWidths", widths, "    6           42.5", "   12            3.2")
	if _, err := ts.WaveWidths(time.Hour); err == nil {
		t.Error("WaveWidths of a spread the tables lack: no error")
	}
	tabletest.Has(t, "ConstantWait", ts.ConstantWait(c), "constant, 4.52 s", "2252, 4.9× full jitter's 456.6", "1800 calls = 60 clients × 30 tries each")
	tabletest.Has(t, "CapTable", ts.CapTable(schedule.NameExponential), "100ms   4.52 ± 0.00      +0.00 s  2252 ± 0                 1.00                       36.8%  = constant wait",
		"constant wait: 4.52 s, 2252 calls")
	tabletest.Has(t, "PeakTable", PeakTable(ts.NoOutage), "full                  126.0 ± 0.6", "exponential                    60")
	tabletest.Has(t, "FloorTable", FloorTable(c.WithOverload(), ts.Overload), "full             13.50               10.50             1.46×",
		"240 clients, limit 4: work floor 7.2s after the 3s outage, so no run can end before 10.2s")
	tabletest.Has(t, "OverloadCalls", OverloadCalls(c.WithOverload(), ts.Overload), "full jitter 2266 ± 4, constant wait 21600: 9.5× as many",
		"168 to 168 of 240 clients unfinished at 1m0s over 20 seeds")
	tabletest.Has(t, "PairTable", ts.PairTable(schedule.NameFull, schedule.NameDecorrelated), "main (cap 3.2s)           6.08                   6.30                457",
		"overload                 13.50                  14.53               2266")
}

// TestTraceTables checks the traced run of lesson 05.
func TestTraceTables(t *testing.T) {
	r, tr, err := RunTraced(Lesson())
	if err != nil {
		t.Fatal(err)
	}
	if w := tr.WorstBucket(); r.PeakPerMs != 60 || w.Capacity != 8 {
		t.Errorf("peak per ms %d, bucket capacity %d; want 60 and 8", r.PeakPerMs, w.Capacity)
	}
	if n := tr.BetweenWaves(); n != 0 || len(tr.Attempts) != 556 {
		t.Errorf("%d of %d calls between waves, want 0 of 556", n, len(tr.Attempts))
	}
	tabletest.Has(t, "WaveTable", tr.WaveTable(), "retry  first call  calls  admitted  width  next wave after",
		"    5        3.1s     60         8    1ms             3.2s", "   12       25.5s      4         4    1ms\n")
}

// TestBoardTables checks the board's tables of lesson 06.
func TestBoardTables(t *testing.T) {
	b, err := NewBoard(Lesson(), Lineup())
	if err != nil {
		t.Fatal(err)
	}
	tabletest.Has(t, "RulerTable", b.RulerTable(), "exponential        25.62s                100%", "constant            4.52s                 18%",
		"calls scale: up to the tallest burst, 140 calls in 100 ms (full)")
	tabletest.Has(t, "BusyTable", b.BusyTable(), "exponential                      256                      8                        32.0")
	line, err := b.RecoveryLine(schedule.NameExponential)
	if err != nil {
		t.Fatal(err)
	}
	if want := "exponential (no jitter): worst 100 ms 60 calls (the board's tallest: 140), worst millisecond after the outage 60 calls; idle 21.66s of 22.62s (95.8%)"; line != want {
		t.Errorf("RecoveryLine = %q, want %q", line, want)
	}
	if _, err := b.RecoveryLine("nonesuch"); err == nil {
		t.Error("RecoveryLine of an unknown policy: no error")
	}
	quiet, err := NewBoard(Lesson().WithoutOutage(), Lineup())
	if err != nil {
		t.Fatal(err)
	}
	tabletest.Has(t, "StartTable", quiet.StartTable(), "full                      60                        131  1.891s")
}
