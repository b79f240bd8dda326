package contention

import (
	"strings"
	"testing"
	"time"

	"github.com/backofflab/backofflab/lab"
	"github.com/backofflab/backofflab/lab/schedule"
	"github.com/backofflab/backofflab/lab/table/tabletest"
)

func TestAtAndRatio(t *testing.T) {
	ms, err := Sweep(Lesson(), []int{10, 20}, []string{schedule.NameFull, schedule.NameExponential}, 2)
	if err != nil {
		t.Fatal(err)
	}
	at := ms.At(20)
	if len(at) != 2 || at[0] != ms[1] || at[1] != ms[3] {
		t.Fatalf("At(20) = %+v, want the second and fourth means", at)
	}
	calls, time := at.Ratio(schedule.NameFull, schedule.NameExponential)
	if want := ms[1].Calls / ms[3].Calls; calls != want {
		t.Errorf("calls ratio %v, want %v", calls, want)
	}
	if want := float64(ms[1].Time) / float64(ms[3].Time); time != want {
		t.Errorf("time ratio %v, want %v", time, want)
	}
	if c, tm := at.Ratio(schedule.NameEqual, schedule.NameFull); c != 0 || tm != 0 {
		t.Errorf("ratio with a missing policy = %v, %v; want 0, 0", c, tm)
	}
	if got := ms.At(30); got != nil {
		t.Errorf("At(30) = %+v, want none", got)
	}
}

func TestTables(t *testing.T) {
	ms, err := Sweep(Lesson(), []int{10, 20}, []string{schedule.NameImmediate, schedule.NameFull}, 2)
	if err != nil {
		t.Fatal(err)
	}
	b := ms.Table().String()
	lines := strings.Split(strings.TrimRight(b, "\n"), "\n")
	if len(lines) != 5 || !strings.Contains(lines[1], "immediate (no wait)") || !strings.Contains(lines[4], "full jitter") {
		t.Errorf("Table: want a header and 4 rows with labels:\n%s", b)
	}
	st, err := ms.SweepTable()
	if err != nil {
		t.Fatal(err)
	}
	sweep := st.String()
	lines = strings.Split(strings.TrimRight(sweep, "\n"), "\n")
	if len(lines) != 4 || !strings.Contains(lines[0], "immediate") || !strings.HasPrefix(strings.TrimSpace(lines[3]), "20 ") {
		t.Errorf("SweepTable: want two header rows and one row per client count:\n%s", sweep)
	}
	// Every row's columns line up: the same width throughout.
	for _, l := range lines[1:] {
		if len(l) != len(lines[1]) {
			t.Errorf("ragged table:\n%s", sweep)
			break
		}
	}
	if _, err := Means(nil).SweepTable(); err == nil {
		t.Error("SweepTable of an empty sweep: no error")
	}
}

func TestVersusAndCrossover(t *testing.T) {
	vs := []Versus{{10, 1.1, 0.8}, {20, 1.2, 0.95}, {30, 1.3, 1.01}, {40, 1.3, 0.99}, {50, 1.4, 1.05}, {60, 1.5, 1.1}}
	if last, first := Crossover(vs); last != 40 || first != 50 {
		t.Errorf("Crossover = %v, %v; want 40, 50", last, first)
	}
	if last, first := Crossover(vs[:2]); last != 20 || first != 0 {
		t.Errorf("Crossover when a is always faster = %v, %v; want 20, 0", last, first)
	}
	ms, err := Sweep(Lesson(), []int{10, 20}, []string{schedule.NameFull, schedule.NameDecorrelated}, 2)
	if err != nil {
		t.Fatal(err)
	}
	got := ms.Curves().Versus(schedule.NameDecorrelated, schedule.NameFull)
	if len(got) != 2 || got[1].Clients != 20 || got[1].Calls != ms[3].Calls/ms[1].Calls || got[1].Time != ms[3].TimeMS()/ms[1].TimeMS() {
		t.Errorf("Versus = %+v", got)
	}
	if got := ms.Curves().Versus(schedule.NameEqual, schedule.NameFull); got != nil {
		t.Errorf("Versus with a missing policy = %+v, want nil", got)
	}
}

// SweepOnce computes a sweep once per kernel: in a kernel, a second call
// with the same arguments reads the first call's result back, and a call
// with other arguments computes its own.
func TestSweepOnce(t *testing.T) {
	t.Setenv(lab.KernelDirEnv, t.TempDir())
	policies := []string{schedule.NameFull}
	a, err := SweepOnce(Lesson(), []int{10}, policies, 2)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := Sweep(Lesson(), []int{10}, policies, 2)
	if len(a) != 1 || a[0] != want[0] {
		t.Fatalf("SweepOnce = %+v, want Sweep's %+v", a, want)
	}
	b, _ := SweepOnce(Lesson(), []int{10}, policies, 2)
	if len(b) != 1 || b[0] != a[0] {
		t.Errorf("second call %+v, want the first's %+v", b, a)
	}
	other, _ := SweepOnce(Lesson().WithSeed(7), []int{10}, policies, 2)
	if other[0] == a[0] {
		t.Errorf("another seed gave the remembered sweep %+v", other)
	}
	if _, err := SweepOnce(Lesson(), nil, policies, 2); err == nil {
		t.Error("SweepOnce with no client counts: no error")
	}
	ms, err := BrookerSweep(1)
	if err != nil || len(ms) != len(Policies())*len(SweepClients()) {
		t.Errorf("BrookerSweep(1): %d means, %v", len(ms), err)
	}
}

// The lesson's smaller tables, on two runs: their rows and labels.
func TestLessonTables(t *testing.T) {
	policies := []string{schedule.NameExponential, schedule.NameFull, schedule.NameDecorrelated}
	ms, err := Sweep(Lesson(), []int{10, 20}, policies, 2)
	if err != nil {
		t.Fatal(err)
	}
	tabletest.Has(t, "EndsTable", ms.EndsTable(10, 20), "s at 10 clients  s at 20 clients", "full jitter")
	tabletest.Has(t, "RatioTable", ms.At(20).RatioTable(schedule.NameFull, schedule.NameDecorrelated),
		"writes/exponential's", "full jitter                         ", "1.00×        1.00×")
	vs := ms.Curves().Versus(schedule.NameDecorrelated, schedule.NameFull)
	tabletest.Has(t, "VersusTable", VersusTable(vs, "decorrelated", "full"), "decorrelated/full work", "\n     20 ")
	full := ms.At(20).Of(schedule.NameFull)
	pub := Published{Policy: schedule.NameFull, Calls: full.Calls, Seconds: full.Time.Seconds()}
	tabletest.Has(t, "PublishedTable", ms.At(20).PublishedTable(pub), "+0.0%")
	caps, err := CapTable(Lesson(), []time.Duration{time.Second, 2 * time.Second}, 10, []string{schedule.NameFull}, 2)
	if err != nil {
		t.Fatal(err)
	}
	tabletest.Has(t, "CapTable", caps, "cap  full jitter calls  seconds", "\n 1s ", "\n 2s ")
	seeds, err := SeedTable(Lesson().WithClients(10), []int64{1, 2}, 2)
	if err != nil {
		t.Fatal(err)
	}
	tabletest.Has(t, "SeedTable", seeds, "seed  calls  seconds", "\n   2 ", "10 clients, means over 2 runs")
}
