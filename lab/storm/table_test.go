package storm_test

import (
	"testing"
	"time"

	"github.com/backofflab/backofflab/lab/schedule"
	"github.com/backofflab/backofflab/lab/storm"
	"github.com/backofflab/backofflab/lab/table/tabletest"
)

// The lesson's tables that need no storm: lines of lesson 11.
func TestLessonTables(t *testing.T) {
	tabletest.Has(t, "DefaultsTable", storm.DefaultsTable(), "attempts per call         3",
		"retry budget              retries up to 10 % of requests over 10 buckets of 1s, plus 10 per window")
	exp := schedule.Exponential{Base: 100 * time.Millisecond, Cap: 10 * time.Second}
	late, err := storm.LatenessTable(exp, 9, time.Second, 3200*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	tabletest.Has(t, "LatenessTable", late, "    1s                         1.5s    500ms", "  3.2s                         6.3s     3.1s",
		"without jitter sends at [0s 100ms 300ms 700ms 1.5s 3.1s 6.3s 12.7s 22.7s]")
	past, err := storm.LatenessTable(exp, 2, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	tabletest.Has(t, "LatenessTable past the last attempt", past, "  1m0s  none")
	if _, err := storm.LatenessTable(exp, 0); err == nil {
		t.Error("LatenessTable of no attempts: no error")
	}
	windows, err := storm.WindowsTable(storm.LessonRuns()[2:]...)
	if err != nil {
		t.Fatal(err)
	}
	tabletest.Has(t, "WindowsTable", windows, "package defaults            10s            1.5s         5s to 7.5s", "tuned                        1s            1.5s        1s to 1.25s")
}
