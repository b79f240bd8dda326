package contention

import (
	"bytes"
	"strings"
	"testing"

	"github.com/backofflab/backofflab/lab"
	"github.com/backofflab/backofflab/lab/schedule"
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

func TestWriteTables(t *testing.T) {
	ms, err := Sweep(Lesson(), []int{10, 20}, []string{schedule.NameImmediate, schedule.NameFull}, 2)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteTable(&b, ms); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	if len(lines) != 5 || !strings.Contains(lines[1], "immediate (no wait)") || !strings.Contains(lines[4], "full jitter") {
		t.Errorf("WriteTable: want a header and 4 rows with labels:\n%s", b.String())
	}
	b.Reset()
	if err := WriteSweepTable(&b, ms); err != nil {
		t.Fatal(err)
	}
	lines = strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	if len(lines) != 4 || !strings.Contains(lines[0], "immediate") || !strings.HasPrefix(strings.TrimSpace(lines[3]), "20 ") {
		t.Errorf("WriteSweepTable: want two header rows and one row per client count:\n%s", b.String())
	}
	// Every row's columns line up: the same width throughout.
	for _, l := range lines[1:] {
		if len(l) != len(lines[1]) {
			t.Errorf("ragged table:\n%s", b.String())
			break
		}
	}
	if err := WriteSweepTable(&b, nil); err == nil {
		t.Error("WriteSweepTable of an empty sweep: no error")
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
	if err != nil || len(ms) != len(Lineup())*len(SweepClients()) {
		t.Errorf("BrookerSweep(1): %d means, %v", len(ms), err)
	}
}
