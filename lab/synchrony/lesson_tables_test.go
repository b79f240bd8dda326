package synchrony

import (
	"testing"
	"time"

	"github.com/backofflab/backofflab/lab/lcg"
	"github.com/backofflab/backofflab/lab/table/tabletest"
)

// TestLessonTables checks lines of the tables lessons 07 and 08 print.
func TestLessonTables(t *testing.T) {
	lineup := Lineup()
	u := 0.25
	byHand := []time.Duration{8 * time.Second, 2 * time.Second, 5 * time.Second, 2250 * time.Millisecond}
	hand, err := ByHandTable(lineup, byHand, 3, 2*time.Second, u)
	if err != nil {
		t.Fatal(err)
	}
	tabletest.Has(t, "ByHandTable", hand, "decorrelated    2.25s         2.25s", "retry n = 3, previous wait 2s, u = 0.25")
	if _, err := ByHandTable(lineup, byHand[:2], 3, 2*time.Second, u); err == nil {
		t.Error("ByHandTable with fewer waits than policies: no error")
	}

	capLineup := CapLineup()
	waits, err := WaitTable(capLineup, 1000, CapCap, lcg.DefaultSeed)
	if err != nil {
		t.Fatal(err)
	}
	tabletest.Has(t, "WaitTable", waits, "exponential      100ms  998ms       1s            99.6%", "decorrelated     102ms  715ms       1s            45.7%",
		"one client, 1000 waits, cap 1s, seed 1513241")

	rows, err := LessonTable()
	if err != nil {
		t.Fatal(err)
	}
	tabletest.Has(t, "VersusTable", rows.VersusTable(LessonOutage), "decorrelated                    14           71      6223           +3.7%  1.90       39.991s",
		"exponential: retry peak 1000 per 10 ms, 6000 attempts; every client succeeds at 31s, 11s after the outage ended")
	rec, err := RecoveryTable(Lesson(), lineup)
	if err != nil {
		t.Fatal(err)
	}
	tabletest.Has(t, "RecoveryTable", rec, "full              7059       26.158s   25.11s          33.336s  39.433s")
	first, err := Table(Lesson(), lineup, time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	tabletest.Has(t, "FirstTable", first.FirstTable(), "exponential   1000 in 1ms at 0s")

	peaks, err := CapPeakTable(CapLesson(), capLineup, LessonSlot, CapWindow)
	if err != nil {
		t.Fatal(err)
	}
	tabletest.Has(t, "CapPeakTable", peaks, "exponential      63000           1.00×                     1000      1000 to 1000",
		"full            123380           1.96×                      152          31 to 40")
}
