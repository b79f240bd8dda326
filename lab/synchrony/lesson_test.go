package synchrony

import (
	"strings"
	"testing"
	"time"
)

func TestCapLesson(t *testing.T) {
	policies, err := CapLineup()
	if err != nil {
		t.Fatal(err)
	}
	c := CapLesson(policies[0].Policy)
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
