package waves

import (
	"strings"
	"testing"
	"time"

	"github.com/backofflab/backofflab/lab/metrics"
	"github.com/backofflab/backofflab/lab/schedule"
	"github.com/backofflab/backofflab/lab/table/tabletest"
)

func TestLessonTables(t *testing.T) {
	m, err := New(Lesson().WithAttempts(10))
	if err != nil {
		t.Fatal(err)
	}
	capped := schedule.Named{Name: "cap 20s", Policy: schedule.Exponential{Base: time.Second, Cap: 20 * time.Second}}
	tabletest.Has(t, "ScheduleTable", m.ScheduleTable(), "attempt i   at t  after attempt i−1", "       10  8m32s              4m16s")
	// Lesson 01 keeps the two conventions apart: attempt 6 at 32 s is
	// retry 5, which waits 32 s (20 s under a 20 s cap) and lands at 63 s.
	tabletest.Has(t, "ConventionTable", m.ConventionTable(capped), "attempt i   at t  after i−1  |  retry n  wait before it  lands at  wait, cap 20s",
		"        6    32s        16s  |        5             32s      1m3s            20s")
	if n := m.InWindow(); n != 6 {
		t.Errorf("InWindow = %d, want 6 attempts before 40 s", n)
	}
	if got := Lesson().String(); got != "600 clients, 6 attempts from 1s, outage 20s, window 40s, jitter 0, slot 200ms, seed 1513241" {
		t.Errorf("Config.String() = %q", got)
	}
	full, _ := New(Lesson().WithJitter(1))
	tabletest.Has(t, "AttemptTable", full.AttemptTable(1), "0        4   5.311s           4s to 12s  failed")
	if strings.Contains(full.AttemptTable(1).String(), "\n     1 ") {
		t.Error("AttemptTable(1) lists client 1")
	}
	tabletest.Has(t, "ByAttemptTable", full.ByAttemptTable(), "6          16s to 48s      48        275          114",
		"planned 3600, minus 163 after an early success, minus 114 at or past the window: 3323 counted",
		"48 of 600 (8%) still failing")
	rs, _ := RunEach(Lesson().EachJitter(0, 1))
	tabletest.Has(t, "Versus", Versus(rs.Jitter(0), rs.Jitter(1)), "3.24 times lower", "7.7% fewer")
	ret, err := rs.ReturnTable(1500)
	if err != nil {
		t.Fatal(err)
	}
	tabletest.Has(t, "ReturnTable", ret, "75/s (15 in 200ms at 23.2s)", "0.05×", "54")
	for _, bad := range []float64{0, -1} {
		if _, err := rs.ReturnTable(bad); err == nil {
			t.Errorf("ReturnTable(%v): no error", bad)
		}
	}
	if _, err := (Results{}).ReturnTable(1500); err == nil {
		t.Error("ReturnTable of no runs: no error")
	}
	lesson, _ := New(Lesson())
	tabletest.Has(t, "BandTable", lesson.BandTable(0.5), "      6        32s      [24s, 40s)")
	tabletest.Has(t, "GapTable", lesson.GapTable(0.5, 1), "50%  gap [1.25s, 1.5s)", "100%  overlap")
	half, _ := New(Lesson().WithJitter(0.5))
	if n := half.InGaps(); n != 0 {
		t.Errorf("InGaps at 50%% = %d, want 0: every draw stays in its band", n)
	}
	ws, _ := RunEach(Lesson().EachJitter(JitterWidths()...))
	tabletest.Has(t, "PeakDrops", ws.PeakDrops(), "3000/s → 1540/s    49%")
	mix, _ := PeakMixTable(Lesson(), 1)
	tabletest.Has(t, "PeakMixTable", mix, "925/s (185 in 200ms at 1.2s)             122               63")
	pred, _ := PredictionTable(Lesson(), 0.75)
	tabletest.Has(t, "PredictionTable", pred, "75%   750ms         3.75           800              870          1015")
	if _, err := PredictionTable(Lesson().WithClients(0), 1); err == nil {
		t.Error("PredictionTable of an invalid config: no error")
	}
}

func TestExerciseTables(t *testing.T) {
	rs, _ := RunEach(Exercise().EachJitter(0, 1))
	ct, err := rs.CapacityTable(ExerciseCapacity)
	if err != nil {
		t.Fatal(err)
	}
	tabletest.Has(t, "CapacityTable", ct, "2.5625", "×3.2520")
	ref, err := rs.Jitter(1).RefusalTable(ExerciseCapacity)
	if err != nil {
		t.Fatal(err)
	}
	tabletest.Has(t, "RefusalTable", ref, "615     240           375", "11499   10029  1470 (12.8%)", "capacity per 200ms slot: 240; the last refusal comes in the slot at 2.8s")
	m, _ := New(Exercise().WithBase(2700 * time.Millisecond))
	if d, ok := m.FirstAfterOutage(); !ok || d != 43200*time.Millisecond {
		t.Errorf("FirstAfterOutage = %v, %v; want 43.2s", d, ok)
	}
	never, _ := New(Exercise().WithAttempts(1))
	if _, ok := never.FirstAfterOutage(); ok {
		t.Error("one attempt at 1 s, outage 30 s: FirstAfterOutage found one")
	}
	bt, err := BaseSpreadTable(Exercise(), []time.Duration{2700 * time.Millisecond}, Seeds(20))
	if err != nil || len(bt.Rows) != 1 {
		t.Fatalf("BaseSpreadTable: %v, %d rows", err, len(bt.Rows))
	}
}

func TestSlotAndCVTables(t *testing.T) {
	ss, _ := SweepEach(Lesson().EachJitter(0, 1), SlotWidths())
	tabletest.Has(t, "VersusFinest", ss.Jitter(0).VersusFinest(), "200ms    3000/s       200 times below 1ms")
	tabletest.Has(t, "FinestTable", ss.FinestTable(200*time.Millisecond), "jitter 100%  6000/s (6 in 1ms at 1.386s)  925/s (185 in 200ms at 1.2s)")
	streams, err := CVStreams(Lesson().EachJitter(0, 1)...)
	if err != nil || len(streams) != 4 {
		t.Fatalf("CVStreams: %v, %d streams", err, len(streams))
	}
	tabletest.Has(t, "CVTable", metrics.CVTable(streams...), "no jitter, whole run              35.72", "jitter 100%, first attempts only  0.99")
}
