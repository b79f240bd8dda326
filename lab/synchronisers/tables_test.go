package synchronisers

import (
	"testing"
	"time"

	"github.com/backofflab/backofflab/lab/lcg"
	"github.com/backofflab/backofflab/lab/table/tabletest"
)

// TestLessonTables checks lines of the tables lessons 07 and 08 print.
func TestLessonTables(t *testing.T) {
	c := Cron{Instances: 500, Period: time.Minute, Runs: 10, Seed: lcg.DefaultSeed}
	offsets, err := c.OffsetTable(time.Second)
	if err != nil {
		t.Fatal(err)
	}
	tabletest.Has(t, "OffsetTable", offsets, "all on the minute    5000  500 in 1s at 0s  23.55", "random offsets       5000   14 in 1s at 5s   1.00",
		"500 instances, a job every 1m0s, 10 runs each, peaks in 1s slots")
	if _, err := (Cron{}).OffsetTable(time.Second); err == nil {
		t.Error("OffsetTable of an empty cron: no error")
	}

	ss := Synchronisers()
	tabletest.Has(t, "IntervalTable", IntervalTable(ss), "ttl          5m0s     3s   1m0s    1s", "heal           1s   10ms  200ms  10ms")
	rows, err := Table(ss, LessonOffsets)
	if err != nil {
		t.Fatal(err)
	}
	tabletest.Has(t, "Rows.Table", rows.Table(), "ttl        100%    3751       6 in 1s       1.14", "heal         0%    1000  1000 in 10ms  undefined")

	h, err := Find("heal")
	if err != nil {
		t.Fatal(err)
	}
	heals := []time.Duration{500 * time.Millisecond, 30500 * time.Millisecond}
	slots := []time.Duration{10 * time.Millisecond, 100 * time.Millisecond, time.Second}
	heal, err := HealTable(h.With(0.01).(PartitionHeal), heals, slots)
	if err != nil {
		t.Fatal(err)
	}
	tabletest.Has(t, "HealTable", heal, "   30.5s                      109ms            223             993         1000")
	if _, err := Find("nonesuch"); err == nil {
		t.Error("Find of an unknown synchroniser: no error")
	}
}
