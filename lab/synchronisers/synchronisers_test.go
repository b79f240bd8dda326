package synchronisers

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/backofflab/backofflab/lab/figure"
	"github.com/backofflab/backofflab/lab/metrics"
)

func TestTableErrors(t *testing.T) {
	bad := []Synchroniser{{Name: "bad", Slot: time.Second, With: func(float64) metrics.Source { return Cron{} }}}
	if _, err := Table(bad, []float64{0}); err == nil || !strings.Contains(err.Error(), "bad, offset 0: synchronisers: instances 0") {
		t.Errorf("error %v, want one naming the synchroniser, the offset and the parameter", err)
	}
	if _, err := Table(Synchronisers(), []float64{2}); err == nil || !strings.Contains(err.Error(), "offset 2 out of range") {
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

func TestSynchroniserPanels(t *testing.T) {
	st, err := Synchronisers()[1].Panels(0, 0.2)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Panels) != 2 || slices.Max(st.SharedY()) != 0 {
		t.Fatalf("%d panels, shared y %v", len(st.Panels), st.SharedY())
	}
	titles := st.Panels[0].(figure.Histogram).Title + " | " + st.Panels[1].(figure.Histogram).Title
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
