package synchrony

import (
	"testing"
	"time"

	"github.com/backofflab/backofflab/lab/metrics"
	"github.com/backofflab/backofflab/lab/schedule"
)

func TestCapLesson(t *testing.T) {
	policies := CapLineup()
	c := CapLesson().WithPolicy(policies[0].Policy)
	if c.Outage != c.Horizon || c.Clients != LessonClients || c.Policy == nil {
		t.Errorf("CapLesson: %+v, want the lesson cohort with the outage lasting the whole run", c)
	}
	a, _ := c.Arrivals()
	if n, _ := a.Recovered(); n != 0 || len(a) != LessonClients*63 { // 0.1+0.2+0.4+0.8 s, then a retry every second
		t.Errorf("%d attempts, %d recovered; want 63 per client and none recovered", len(a), n)
	}
}

func TestFixedFirst(t *testing.T) {
	full := schedule.FullJitter{Base: time.Second}
	p := FixedFirst{First: time.Second, Then: full}
	if d := p.Delay(0, 0, nil); d != time.Second {
		t.Errorf("first retry waits %v, want exactly 1s", d)
	}
	if got, want := p.Delay(2, time.Second, always(0.5)), full.Delay(2, time.Second, always(0.5)); got != want {
		t.Errorf("later waits %v, want Then's %v", got, want)
	}
	if d := (FixedFirst{First: -time.Second}).Delay(3, 0, nil); d != 0 {
		t.Errorf("negative First without Then: %v, want 0", d)
	}
}

type always float64

func (a always) Float64() float64 { return float64(a) }

func TestLostJitter(t *testing.T) {
	var peaks []int
	for _, s := range LostJitter() {
		r, err := metrics.Measure(s.Source, LessonSlot)
		if err != nil {
			t.Fatal(err)
		}
		peaks = append(peaks, r.Peak.Count)
	}
	if peaks[0] != 21 || peaks[1] < LessonClients || peaks[2] != LessonClients {
		t.Errorf("retry peaks %v, want 21, then the whole cohort (plus stragglers) twice", peaks)
	}
}
