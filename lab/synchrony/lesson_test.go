package synchrony

import (
	"strings"
	"testing"
	"time"

	"github.com/backofflab/backofflab/lab/chart"
	"github.com/backofflab/backofflab/lab/schedule"
)

func TestCapLesson(t *testing.T) {
	policies, err := CapLineup()
	if err != nil {
		t.Fatal(err)
	}
	c := CapLesson().WithPolicy(policies[0].Policy)
	if c.Outage != c.Horizon || c.Clients != LessonClients || c.Policy == nil {
		t.Errorf("CapLesson: %+v, want the lesson cohort with the outage lasting the whole run", c)
	}
	a, _ := c.Arrivals()
	if n, _ := a.Recovered(); n != 0 || len(a) != LessonClients*63 { // 0.1+0.2+0.4+0.8 s, then a retry every second
		t.Errorf("%d attempts, %d recovered; want 63 per client and none recovered", len(a), n)
	}
}

func TestSyncTableErrors(t *testing.T) {
	bad := []Synchroniser{{Name: "bad", Slot: time.Second, With: func(float64) Source { return Cron{} }}}
	if _, err := SyncTable(bad, []float64{0}); err == nil || !strings.Contains(err.Error(), "bad, offset 0: synchrony: instances 0") {
		t.Errorf("error %v, want one naming the synchroniser, the offset and the parameter", err)
	}
	if _, err := SyncTable(Synchronisers(), []float64{2}); err == nil || !strings.Contains(err.Error(), "offset 2 out of range") {
		t.Errorf("offset 2: error %v", err)
	}
}

// Each synchroniser's Interval is the interval its offset is a fraction of.
func TestSynchroniserIntervals(t *testing.T) {
	for _, s := range Synchronisers() {
		var natural time.Duration
		switch g := s.With(0.5).(type) {
		case Cron:
			natural = g.Period
		case TTL:
			natural = g.TTL
		case RollingRestart:
			natural = g.Step
		case PartitionHeal:
			natural = g.Interval
		default:
			t.Fatalf("%s: unexpected source %T", s.Name, g)
		}
		if s.Interval != natural || s.Slot <= 0 || s.Span <= 0 {
			t.Errorf("%s: interval %v (the setting's is %v), slot %v, span %v", s.Name, s.Interval, natural, s.Slot, s.Span)
		}
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
		r, err := Measure(s.Source, LessonSlot)
		if err != nil {
			t.Fatal(err)
		}
		peaks = append(peaks, r.Peak.Count)
	}
	if peaks[0] != 21 || peaks[1] < LessonClients || peaks[2] != LessonClients {
		t.Errorf("retry peaks %v, want 21, then the whole cohort (plus stragglers) twice", peaks)
	}
}

func TestSynchroniserPanels(t *testing.T) {
	st, err := Synchronisers()[1].Panels(0, 0.2)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Panels) != 2 || !st.ShareY {
		t.Fatalf("%d panels, shared y %v", len(st.Panels), st.ShareY)
	}
	titles := st.Panels[0].(chart.Histogram).Title + " | " + st.Panels[1].(chart.Histogram).Title
	if titles != "ttl, no offset: peak 500 per 1s | ttl, offset up to 20 % of 5 min: peak 16 per 1s" {
		t.Errorf("titles %q", titles)
	}
	for d, want := range map[time.Duration]string{30 * time.Second: "30 s", time.Minute: "1 min", 1500 * time.Millisecond: "1.5s"} {
		if got := interval(d); got != want {
			t.Errorf("interval(%v) = %q, want %q", d, got, want)
		}
	}
	if _, err := Synchronisers()[0].Panels(3); err == nil || !strings.Contains(err.Error(), "offset 3") {
		t.Errorf("offset 3: error %v", err)
	}
}
