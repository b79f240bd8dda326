package synchrony

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/backofflab/backofflab/lab/figure"
	"github.com/backofflab/backofflab/lab/interactive"
	"github.com/backofflab/backofflab/lab/metrics"
	"github.com/backofflab/backofflab/lab/static"
)

func TestFigures(t *testing.T) {
	policies := lineup(t, LessonBase, LessonCap)
	c := Lesson()
	c.Clients = 100

	st, err := metrics.Panels(RetriesOf(c, policies), LessonSlot, 40*time.Second, figure.Span{From: 0, To: 20, Label: "outage"})
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Panels) != 4 || slices.Max(st.SharedY()) != 0 {
		t.Fatalf("Panels: %d panels, y groups %v; want 4 on one scale", len(st.Panels), st.SharedY())
	}
	h := st.Panels[0].(figure.Histogram)
	if h.Title != "exponential (no jitter): peak 100 per 10ms" || len(h.Counts) != 4000 || h.Counts[100] != 100 || h.Counts[0] != 0 {
		t.Errorf("no-jitter retries panel: %q, %d slots, %v at 1 s, %v at 0", h.Title, len(h.Counts), h.Counts[100], h.Counts[0])
	}
	if _, err := static.PNG(st); err != nil {
		t.Errorf("Panels does not render: %v", err)
	}
	all, _ := metrics.Panels(Cohorts(c, policies[:1]), LessonSlot, time.Second)
	if h := all.Panels[0].(figure.Histogram); h.Counts[0] != 100 {
		t.Errorf("Cohorts keeps the first attempts: slot 0 holds %v, want 100", h.Counts[0])
	}

	l, err := metrics.Lines("retries", RetriesOf(c, policies), LessonSlot, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Series) != 4 || len(l.Series[1].X) != 200 || l.Series[1].X[1] != 0.01 {
		t.Errorf("Lines: %d series, x %v…", len(l.Series), l.Series[1].X[:2])
	}
	if _, err := interactive.HTML(l); err != nil {
		t.Errorf("Lines HTML: %v", err)
	}

	sl, err := SleepsFigure(lineup(t, 100*time.Millisecond, time.Second), 200, 50*time.Millisecond, 1)
	if err != nil {
		t.Fatal(err)
	}
	if h := sl.Panels[0].(figure.Histogram); h.Counts[20] != 196 { // none: every wait from the 5th on is the 1 s cap
		t.Errorf("sleeps of none: %v at the cap, want 196", h.Counts[20])
	}
	if _, err := static.PNG(sl); err != nil {
		t.Errorf("SleepsFigure does not render: %v", err)
	}

	c.Outage, c.Horizon = 20*time.Second, 20*time.Second
	cf, err := CapFigure(c, lineup(t, 100*time.Millisecond, time.Second), LessonSlot, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if !cf.LogY || len(cf.Series) != 4 || cf.Series[0].Y[5] != 100 || cf.Series[0].X[5] != 10 {
		t.Errorf("CapFigure: log %v, %d series, none at %v s: %v", cf.LogY, len(cf.Series), cf.Series[0].X[5], cf.Series[0].Y[5])
	}
	if _, err := static.PNG(cf); err != nil {
		t.Errorf("CapFigure does not render: %v", err)
	}
}

func TestFigureErrors(t *testing.T) {
	policies := lineup(t, LessonBase, LessonCap)
	c := Lesson()
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"no streams", second(metrics.Panels(nil, time.Second, time.Second)), "no streams"},
		{"zero span", second(metrics.Panels(Cohorts(c, policies), time.Second, 0)), "span 0s"},
		{"zero slot", second(metrics.Lines("x", Cohorts(c, policies), 0, time.Second)), "slot"},
		{"bad cohort", second(metrics.Lines("x", Cohorts(Cohort{}, policies), time.Second, time.Second)), "clients 0"},
		{"no lines", second(metrics.Lines("x", nil, time.Second, time.Second)), "no streams"},
		{"count 0", second(SleepsFigure(policies, 0, time.Second, 1)), "count 0"},
		{"seed", second(SleepsFigure(policies, 5, time.Second, -1)), "seed -1"},
		{"no policies", second(SleepsFigure(nil, 5, time.Second, 1)), "no policies"},
		{"window", second(CapFigure(c, policies, time.Second, 1500*time.Millisecond)), "window"},
		{"no cap policies", second(CapFigure(c, nil, time.Second, time.Second)), "no policies"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", tc.err, tc.want)
			}
		})
	}
}

func second[T any](_ T, err error) error { return err }
