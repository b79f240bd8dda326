package layered

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/backofflab/backofflab/lab/metrics"
	"github.com/backofflab/backofflab/lab/schedule"
	"github.com/backofflab/backofflab/lab/synchrony"
	"github.com/backofflab/backofflab/lab/table/tabletest"
)

func fullLesson() synchrony.Cohort {
	return synchrony.Lesson().WithPolicy(schedule.FullJitter{Base: synchrony.LessonBase, Cap: synchrony.LessonCap})
}

// One inner attempt is the plain cohort, attempt for attempt.
func TestLayeredOneInnerIsTheCohort(t *testing.T) {
	want, err := fullLesson().Arrivals()
	if err != nil {
		t.Fatal(err)
	}
	got, err := Config{Cohort: fullLesson(), Inner: 1, Gap: 5 * time.Millisecond}.Arrivals()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Errorf("Inner 1: %d arrivals, differ from the cohort's %d", len(got), len(want))
	}
}

// The lesson's numbers: an inner layer of three attempts 5 ms apart under
// full jitter puts the shared failure's spike back into the retries and
// nearly triples the work.
func TestLayeredLesson(t *testing.T) {
	for _, c := range []struct {
		inner    int
		attempts int
		peak     string
	}{
		{1, 7059, "21@710ms"},
		{3, 19177, "1005@10ms"},
	} {
		a, err := Config{Cohort: fullLesson(), Inner: c.inner, Gap: 5 * time.Millisecond}.Arrivals()
		if err != nil {
			t.Fatal(err)
		}
		r, err := metrics.Measure(metrics.Times(a.Retries().Times()), synchrony.LessonSlot)
		if err != nil {
			t.Fatal(err)
		}
		if peak := fmt.Sprintf("%d@%v", r.Peak.Count, r.Peak.At()); len(a) != c.attempts || peak != c.peak {
			t.Errorf("inner %d: %d attempts, retry peak %s; want %d and %s", c.inner, len(a), peak, c.attempts, c.peak)
		}
		if n, _ := a.Recovered(); n != synchrony.LessonClients {
			t.Errorf("inner %d: %d recovered, want all %d", c.inner, n, synchrony.LessonClients)
		}
	}
}

// An inner attempt at or after the end of the outage succeeds and ends the
// client; the inner attempts are Gap apart and counted in Attempt.
func TestLayeredInnerSucceeds(t *testing.T) {
	c := synchrony.Lesson().WithPolicy(schedule.Constant{Base: time.Second}).WithClients(1).WithOutage(1010 * time.Millisecond)
	a, err := Config{Cohort: c, Inner: 4, Gap: 5 * time.Millisecond}.Arrivals()
	if err != nil {
		t.Fatal(err)
	}
	// 0, 5, 10, 15 ms fail; the next outer attempt waits 1 s from 15 ms.
	want := []time.Duration{0, 5, 10, 15, 1015}
	if len(a) != len(want) {
		t.Fatalf("%d arrivals %v, want %d", len(a), a, len(want))
	}
	for i, x := range a {
		if x.At != want[i]*time.Millisecond || x.Attempt != i || x.Succeeded != (i == len(want)-1) {
			t.Errorf("arrival %d = %+v, want attempt %d at %vms", i, x, i, want[i])
		}
	}
}

// The outer policy sees its own previous wait, not the inner layer's time.
func TestLayeredPrev(t *testing.T) {
	var prevs []time.Duration
	p := recordPrev{&prevs}
	c := synchrony.Lesson().WithPolicy(p).WithClients(1).WithOutage(5 * time.Second)
	if _, err := (Config{Cohort: c, Inner: 3, Gap: 100 * time.Millisecond}).Arrivals(); err != nil {
		t.Fatal(err)
	}
	if len(prevs) < 2 || prevs[0] != 0 || prevs[1] != time.Second {
		t.Errorf("prev handed to the policy %v, want 0 then 1s", prevs)
	}
}

type recordPrev struct{ prevs *[]time.Duration }

func (r recordPrev) Delay(_ int, prev time.Duration, _ schedule.Uniform) time.Duration {
	*r.prevs = append(*r.prevs, prev)
	return time.Second
}

func TestLayeredValidate(t *testing.T) {
	for _, c := range []struct {
		l    Config
		want string
	}{
		{Config{Cohort: fullLesson(), Inner: 0}, "inner 0 out of range"},
		{Config{Cohort: fullLesson(), Inner: MaxInner + 1}, "inner 101 out of range"},
		{Config{Cohort: fullLesson(), Inner: 2, Gap: -1}, "gap -1ns out of range"},
		{Config{Cohort: fullLesson(), Inner: 2, Gap: 2 * time.Second}, "gap 2s out of range"},
		{Config{Cohort: synchrony.Cohort{}, Inner: 2}, "clients 0 out of range"},
	} {
		if _, err := c.l.Events(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", c.l, err, c.want)
		}
	}
}

// The table of lesson 08.
func TestLayeredTable(t *testing.T) {
	tb, err := Table(fullLesson(), []int{1, 3}, 5*time.Millisecond, synchrony.LessonSlot)
	if err != nil {
		t.Fatal(err)
	}
	tabletest.Has(t, "Table", tb,
		"             1             7059     6059   21 in 10ms at 710ms  2.29",
		"             3            19177    18177  1005 in 10ms at 10ms  4.03",
		"the inner layer's attempts are 5ms apart")
	if _, err := Table(fullLesson(), []int{0}, 5*time.Millisecond, synchrony.LessonSlot); err == nil {
		t.Error("no inner attempts: no error")
	}
}
