package crashloop

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/backofflab/backofflab/lab/schedule"
	"github.com/backofflab/backofflab/lab/synchrony"
	"github.com/backofflab/backofflab/lab/table/tabletest"
)

// The lesson's four runs, pinned. Without jitter every wave is the whole
// cohort in one slot, so even a warm instance serves only a slot's worth of
// each; full jitter without a gate keeps knocking the cold instance over and
// it never warms; full jitter behind a readiness gate serves everyone.
func TestWarmupLesson(t *testing.T) {
	want := []string{
		"exponential gate=false: 3 restarts, warm at 13.01s, served 60 by 51s, 6940 attempts",
		"exponential gate=true: 0 restarts, warm at 6s, served 80 by 51s, 6880 attempts",
		"full gate=false: 47 restarts, warm at 0s, served 685 by 59.914s, 8869 attempts",
		"full gate=true: 0 restarts, warm at 6s, served 1000 by 25.213s, 5320 attempts",
	}
	k := 0
	for _, p := range []schedule.Policy{
		schedule.Exponential{Base: synchrony.LessonBase, Cap: synchrony.LessonCap},
		schedule.FullJitter{Base: synchrony.LessonBase, Cap: synchrony.LessonCap},
	} {
		for _, gate := range []bool{false, true} {
			r, err := Run(Lesson(p, gate))
			if err != nil {
				t.Fatal(err)
			}
			got := fmt.Sprintf("%s gate=%v: %d restarts, warm at %v, served %d by %v, %d attempts",
				p.(interface{ Name() string }).Name(), gate, r.Restarts, r.Warm, r.Served, r.Last.Round(time.Millisecond), r.Attempts)
			if got != want[k] {
				t.Errorf("got  %s\nwant %s", got, want[k])
			}
			k++
		}
	}
}

// An instance that is never overloaded serves every client at its first
// attempt after the restart, and a gate changes nothing once it is warm.
func TestWarmupQuiet(t *testing.T) {
	c := synchrony.Lesson().WithPolicy(schedule.Constant{Base: 2 * time.Second}).WithClients(10)
	for _, gate := range []bool{false, true} {
		w := Config{Cohort: c, Slot: synchrony.LessonSlot, Warm: 100, Cold: 100, WarmUp: 0, Restart: time.Second, Gate: gate}
		r, err := Run(w)
		if err != nil {
			t.Fatal(err)
		}
		// Refused at 0 (down), served at 2 s.
		if r.Restarts != 0 || r.Served != 10 || r.Last != 2*time.Second || r.Attempts != 20 || r.Warm != time.Second {
			t.Errorf("gate %v: %+v, want every client served at 2s, 20 attempts, warm at 1s", gate, r)
		}
	}
}

// A retry due within the slot of its refusal comes in the next slot, and
// is not lost.
func TestWarmupSameSlotRetry(t *testing.T) {
	c := synchrony.Lesson().WithPolicy(schedule.Constant{Base: time.Millisecond}).WithClients(1)
	w := Config{Cohort: c, Slot: synchrony.LessonSlot, Warm: 1, Cold: 1, Restart: 20 * time.Millisecond}
	r, err := Run(w)
	if err != nil {
		t.Fatal(err)
	}
	if r.Served != 1 || r.Last != 20*time.Millisecond || r.Attempts != 3 {
		t.Errorf("%+v, want served at 20ms on the third attempt", r)
	}
}

func TestWarmupValidate(t *testing.T) {
	ok := Lesson(schedule.FullJitter{Base: time.Second}, false)
	for _, c := range []struct {
		edit func(*Config)
		want string
	}{
		{func(w *Config) { w.Slot = 0 }, "slot 0s out of range"},
		{func(w *Config) { w.Slot = 2 * time.Second }, "slot 2s out of range"},
		{func(w *Config) { w.Cold = 0 }, "cold 0, warm 20 out of range"},
		{func(w *Config) { w.Cold = 30 }, "cold 30, warm 20 out of range"},
		{func(w *Config) { w.WarmUp = -1 }, "warm-up -1ns out of range"},
		{func(w *Config) { w.Restart = 25 * time.Hour }, "restart 25h0m0s out of range"},
		{func(w *Config) { w.Cohort.Clients = 0 }, "clients 0 out of range"},
		{func(w *Config) { w.Cohort.Horizon = synchrony.MaxHorizon; w.Slot = time.Millisecond }, "for horizon 24h0m0s"},
	} {
		w := ok
		c.edit(&w)
		if _, err := Run(w); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
}

func TestWarmupString(t *testing.T) {
	want := "restarts at 0 in 1s; serves 2 per 10ms during its first 5s of uptime, 20 per 10ms when warm"
	for _, gate := range []bool{false, true} {
		if got := Lesson(nil, gate).String(); got != want {
			t.Errorf("gate %v: got  %s\nwant %s", gate, got, want)
		}
	}
}

// The table of lesson 08.
func TestTable(t *testing.T) {
	tb, err := Table(synchrony.Lineup()[:2])
	if err != nil {
		t.Fatal(err)
	}
	tabletest.Has(t, "Table", tb,
		"exponential           false         3   13.01s              60          51s      6940",
		"full                  false        47    never             685      59.914s      8869",
		"full                   true         0       6s            1000      25.213s      5320",
		"the instance restarts at 0 in 1s; serves 2 per 10ms during its first 5s of uptime, 20 per 10ms when warm")
}
