package cohort

import (
	"reflect"
	"testing"
)

// The event-driven tables do no work twice (a seed-free run once for all
// its seeds, a configuration averaged before looked up); they must come out
// exactly as when every seed of every table is run.
func TestOnceGivesTheSameTables(t *testing.T) {
	got, err := lessonTables(events(), DefaultSeeds, OverloadSeeds)
	if err != nil {
		t.Fatal(err)
	}
	want, err := lessonTables(&averager{run: simulate}, DefaultSeeds, OverloadSeeds)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("tables computed once differ from tables with every run:\n%+v\nwant\n%+v", got, want)
	}
	// The main table's rows and the cap table's rows at the default cap are
	// the same averages; each must own its runs.
	for _, cr := range got.Caps {
		if cr.Cap != DefaultCap {
			continue
		}
		m := got.Main.Of(cr.Policy)
		if len(m.Runs) == 0 || &m.Runs[0] == &cr.Runs[0] {
			t.Errorf("%s: the main and the cap table share their runs", cr.Policy)
		}
	}
}

// seedFree promises that a run's Result does not depend on its seed.
func TestSeedFreeRunsIgnoreTheSeed(t *testing.T) {
	checked := 0
	for i, c := range randomConfigs(400) {
		if !seedFree(c) {
			continue
		}
		a, errA := Run(c)
		b, errB := Run(c.WithSeed(c.Seed ^ 12345))
		if a != b || (errA == nil) != (errB == nil) {
			t.Fatalf("config %d %+v is seed-free but two seeds differ:\n%+v, %v\n%+v, %v", i, c, a, errA, b, errB)
		}
		checked++
	}
	if checked < 20 {
		t.Errorf("only %d seed-free configurations checked, want at least 20", checked)
	}
	if c := Lesson().WithSpread(DefaultSpreads[0]); seedFree(c) {
		t.Errorf("a spread start is seed-free")
	}
}
