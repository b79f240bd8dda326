package contention

import (
	"sync"
	"testing"

	"github.com/backofflab/backofflab/lab/schedule"
)

// The sweep tells its progress the size of the sweep in runs, then every
// pair's runs as the pair ends: the reports add up to the size, and the
// numbers are those of Sweep.
func TestSweepReportsEveryRun(t *testing.T) {
	base := Lesson()
	clients, policies, runs := []int{10, 20, 30}, []string{schedule.NameFull, schedule.NameExponential}, 3
	var (
		mu          sync.Mutex
		total, done int
		calls       int
	)
	got, err := sweep(base, clients, policies, runs, func(tot, d int) {
		mu.Lock()
		defer mu.Unlock()
		calls++
		if calls == 1 && d != 0 {
			t.Errorf("first report done = %d, want 0 (the size, before any run)", d)
		}
		if total != 0 && tot != total {
			t.Errorf("total changed from %d to %d", total, tot)
		}
		total, done = tot, done+d
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := len(clients) * len(policies) * runs; total != want || done != want || calls != 1+len(clients)*len(policies) {
		t.Errorf("reports: total %d, done %d in %d calls; want %d, %d in %d", total, done, calls, want, want, 1+len(clients)*len(policies))
	}
	want, err := Sweep(base, clients, policies, runs)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("pair %d: %+v with a progress report, %+v without", i, got[i], want[i])
		}
	}
}

func TestCountNames(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{{1, "1 client count"}, {19, "19 client counts"}, {0, "0 client counts"}} {
		if got := count(tc.n, "client count", "client counts"); got != tc.want {
			t.Errorf("count(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}
