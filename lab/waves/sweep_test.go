package waves

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/backofflab/backofflab/lab/metrics"
)

func TestExerciseIsTheLessonsTwoThousandClientRun(t *testing.T) {
	c := Exercise()
	want := Lesson()
	want.Clients, want.Outage, want.Jitter = 2000, 30*time.Second, 1
	if c != want {
		t.Fatalf("Exercise() = %+v, want %+v", c, want)
	}
	r, err := Run(c)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Peak().PerSecond(); got != 3075 {
		t.Errorf("peak %v, want exactly 3075/s", r.Peak())
	}
	if got := r.Peak().PerSecond() / ExerciseCapacity; got != 2.5625 {
		t.Errorf("peak / capacity = %v, want exactly 2.5625", got)
	}
}

func TestSlotWidthsRunFromOneMillisecondToOneSecondInMultiples(t *testing.T) {
	ws := SlotWidths()
	if ws[0] != time.Millisecond || ws[len(ws)-1] != time.Second || len(ws) != 10 {
		t.Fatalf("SlotWidths() = %v, want 10 widths from 1ms to 1s", ws)
	}
	for i, w := range ws {
		if w%ws[0] != 0 || (i > 0 && w <= ws[i-1]) {
			t.Errorf("width %d = %v: want increasing whole multiples of %v", i, w, ws[0])
		}
	}
	ws[0] = 0
	if SlotWidths()[0] != time.Millisecond {
		t.Error("SlotWidths returns a shared slice")
	}
	if got := JitterWidths(); !slices.Equal(got, []float64{0, 0.25, 0.5, 0.75, 1}) {
		t.Errorf("JitterWidths() = %v", got)
	}
}

func TestSteps(t *testing.T) {
	ms := time.Millisecond
	got := Steps(time.Second, 4*time.Second, 100*ms)
	if len(got) != 31 || got[0] != time.Second || got[30] != 4*time.Second || got[17] != 2700*ms {
		t.Errorf("Steps(1s, 4s, 100ms) = %v, want 31 values 1s, 1.1s, … 4s", got)
	}
	if got := Steps(time.Second, 1250*ms, 100*ms); !slices.Equal(got, []time.Duration{time.Second, 1100 * ms, 1200 * ms}) {
		t.Errorf("Steps(1s, 1.25s, 100ms) = %v, want the values up to 1.25s only", got)
	}
	if got := Steps(time.Second, time.Second, ms); !slices.Equal(got, []time.Duration{time.Second}) {
		t.Errorf("Steps(1s, 1s, 1ms) = %v, want [1s]", got)
	}
	for _, tc := range []struct {
		name           string
		from, to, step time.Duration
	}{
		{"zero step", 0, time.Second, 0},
		{"negative step", 0, time.Second, -ms},
		{"to before from", time.Second, 0, ms},
		{"too many values", 0, time.Hour, time.Nanosecond},
		{"to − from overflows", math.MinInt64, math.MaxInt64, math.MaxInt64 / 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Steps(tc.from, tc.to, tc.step); got != nil {
				t.Errorf("Steps(%v, %v, %v) has %d values, want nil", tc.from, tc.to, tc.step, len(got))
			}
		})
	}
}

func TestLabelNamesWhatDiffersFromTheLesson(t *testing.T) {
	l := Lesson()
	for _, tc := range []struct {
		c    Config
		want string
	}{
		{l, "no jitter"},
		{l.WithJitter(1), "jitter 100%"},
		{l.WithJitter(0.07), "jitter 7%"},
		{l.WithSlot(time.Millisecond).WithJitter(0.5), "jitter 50%"},
		{Exercise(), "2000 clients, outage 30s, jitter 100%"},
		{l.WithAttempts(8).WithBase(2700 * time.Millisecond).WithWindow(time.Minute).WithSeed(7), "8 attempts, base 2.7s, window 1m0s, seed 7, no jitter"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			if got := tc.c.Label(); got != tc.want {
				t.Errorf("Label() = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestWithModifiersChangeOneSetting(t *testing.T) {
	l := Lesson()
	ms := time.Millisecond
	for _, tc := range []struct {
		name string
		got  Config
		set  func(*Config)
	}{
		{"WithClients", l.WithClients(10), func(c *Config) { c.Clients = 10 }},
		{"WithAttempts", l.WithAttempts(3), func(c *Config) { c.Attempts = 3 }},
		{"WithBase", l.WithBase(2 * time.Second), func(c *Config) { c.Base = 2 * time.Second }},
		{"WithOutage", l.WithOutage(30 * time.Second), func(c *Config) { c.Outage = 30 * time.Second }},
		{"WithWindow", l.WithWindow(time.Minute), func(c *Config) { c.Window = time.Minute }},
		{"WithJitter", l.WithJitter(0.5), func(c *Config) { c.Jitter = 0.5 }},
		{"WithSlot", l.WithSlot(ms), func(c *Config) { c.Slot = ms }},
		{"WithSeed", l.WithSeed(7), func(c *Config) { c.Seed = 7 }},
		{"WithJitter out of range, not validated", l.WithJitter(3), func(c *Config) { c.Jitter = 3 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := Lesson()
			tc.set(&want)
			if tc.got != want {
				t.Errorf("got %+v, want %+v", tc.got, want)
			}
		})
	}
	if l != Lesson() {
		t.Error("a With modifier changed its receiver")
	}
	if _, err := Run(l.WithJitter(3)); err == nil || !strings.Contains(err.Error(), "jitter") {
		t.Errorf("Run(WithJitter(3)): error %v, want one naming the jitter", err)
	}
}

func TestEachCopiesChangeOneSetting(t *testing.T) {
	c := Lesson()
	js := c.EachJitter(0, 0.5, 1)
	bs := c.EachBase(time.Second, 2*time.Second)
	ss := c.EachSeed(1, 2, 3, 4)
	ns := c.EachClients(10)
	if len(js) != 3 || len(bs) != 2 || len(ss) != 4 || len(ns) != 1 {
		t.Fatalf("lengths %d %d %d %d, want 3 2 4 1", len(js), len(bs), len(ss), len(ns))
	}
	for i, x := range js {
		if want := c.WithJitter([]float64{0, 0.5, 1}[i]); x != want {
			t.Errorf("EachJitter[%d] = %+v, want %+v", i, x, want)
		}
	}
	if bs[1].Base != 2*time.Second || ss[3].Seed != 4 || ns[0].Clients != 10 || bs[1].Clients != c.Clients {
		t.Errorf("Each* set the wrong field: %+v %+v %+v", bs[1], ss[3], ns[0])
	}
	if c != Lesson() {
		t.Error("Each* changed the receiver")
	}
}

func TestResultsJitterNamesTheRun(t *testing.T) {
	rs, err := RunEach(Lesson().EachJitter(0, 0.5, 1))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		w    float64
		peak float64
	}{
		{"no jitter", 0, 3000},
		{"half width", 0.5, 1240},
		{"full width", 1, 925},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rs.Jitter(tc.w)
			if r.Config.Jitter != tc.w || r.Peak().PerSecond() != tc.peak {
				t.Errorf("Jitter(%v): %s, peak %v, want the run at %v with peak %v/s", tc.w, r.Config.Label(), r.Peak(), tc.w, tc.peak)
			}
		})
	}
	if r := rs.Jitter(0.25); r.Total != 0 || r.Config != (Config{}) {
		t.Errorf("Jitter(0.25) of runs without it = %+v, want the zero Result", r)
	}
}

func TestRunEachRunsInOrderAndNamesABadRun(t *testing.T) {
	cs := Lesson().EachJitter(1, 0)
	rs, err := RunEach(cs)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range cs {
		want, _ := Run(c)
		if rs[i].Total != want.Total || rs[i].Peak() != want.Peak() || rs[i].Config != c {
			t.Errorf("run %d: %v, want %v", i, rs[i].Peak(), want.Peak())
		}
	}
	_, err = RunEach(Lesson().EachJitter(0.5, 3))
	if err == nil || !strings.Contains(err.Error(), "run 2 of 2") || !strings.Contains(err.Error(), "jitter") {
		t.Errorf("RunEach with a bad second config: error %v, want one naming run 2 and the jitter", err)
	}
	if rs, err := RunEach(nil); err != nil || len(rs) != 0 {
		t.Errorf("RunEach(nil) = %v, %v", rs, err)
	}
}

func TestSweepSlotsReadsEveryWidthFromOneCount(t *testing.T) {
	s, err := SweepSlots(Lesson(), SlotWidths())
	if err != nil {
		t.Fatal(err)
	}
	if s.Config.Slot != time.Millisecond {
		t.Errorf("sweep counted at %v, want the first width", s.Config.Slot)
	}
	for i, p := range s.Peaks {
		if p.Count != 600 || p.Width != SlotWidths()[i] || p.At() != time.Second {
			t.Errorf("no jitter at %v: %v, want all 600 in the slot at 1s", SlotWidths()[i], p)
		}
	}
	c := Lesson()
	c.Jitter = 1
	s, err = SweepSlots(c, SlotWidths())
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range map[int]float64{0: 6000, 7: 925, 9: 581} {
		if got := s.Peaks[i].PerSecond(); got != want {
			t.Errorf("full width at %v: %v, want %v/s", s.Peaks[i].Width, s.Peaks[i], want)
		}
	}
	if _, err := SweepSlots(Lesson(), nil); err == nil {
		t.Error("SweepSlots without widths: no error")
	}
	if _, err := SweepSlots(Lesson(), []time.Duration{2 * time.Millisecond, 3 * time.Millisecond}); err == nil {
		t.Error("SweepSlots with 3ms after 2ms: no error")
	}
	if _, err := SweepSlots(Lesson(), []time.Duration{0}); err == nil {
		t.Error("SweepSlots with a zero width: no error")
	}
}

func TestResultsTable(t *testing.T) {
	rs, err := RunEach(Lesson().EachJitter(0, 1))
	if err != nil {
		t.Fatal(err)
	}
	b := rs.Table()
	want := `run          planned  done early  past window  counted  peak
no jitter       3600           0            0     3600  3000/s (600 in 200ms at 1s)
jitter 100%     3600         163          114     3323  925/s (185 in 200ms at 1.2s)
`
	if b.String() != want {
		t.Errorf("Table is\n%s\nwant\n%s", b.String(), want)
	}
}

func TestSlotSweepsTable(t *testing.T) {
	c := Lesson()
	a, _ := SweepSlots(c, []time.Duration{time.Millisecond, 200 * time.Millisecond})
	c.Jitter = 1
	b, _ := SweepSlots(c, []time.Duration{time.Millisecond, 200 * time.Millisecond})
	out, err := SlotSweeps{a, b}.Table()
	if err != nil {
		t.Fatal(err)
	}
	want := ` slot       no jitter  jitter 100%
  1ms  600000/s (600)   6000/s (6)
200ms    3000/s (600)  925/s (185)
`
	if out.String() != want {
		t.Errorf("SlotTable is\n%q\nwant\n%q", out.String(), want)
	}
	short, _ := SweepSlots(c, []time.Duration{time.Millisecond})
	if _, err := (SlotSweeps{a, short}).Table(); err == nil {
		t.Error("sweeps of different lengths: no error")
	}
	other, _ := SweepSlots(c, []time.Duration{time.Millisecond, 100 * time.Millisecond})
	if _, err := (SlotSweeps{a, other}).Table(); err == nil || !strings.Contains(err.Error(), "same widths") {
		t.Errorf("sweeps at different widths: error %v", err)
	}
	if none, err := (SlotSweeps{}).Table(); err != nil || len(none.Rows) != 0 {
		t.Errorf("no sweeps: %q, %v", none.String(), err)
	}
}

// Steps never panics or loops; it returns nil or evenly spaced values
// from from up to to.
func FuzzSteps(f *testing.F) {
	f.Add(int64(time.Second), int64(4*time.Second), int64(100*time.Millisecond))
	f.Add(int64(0), int64(0), int64(1))
	f.Add(int64(math.MinInt64), int64(math.MaxInt64), int64(1))
	f.Add(int64(5), int64(3), int64(-1))
	f.Fuzz(func(t *testing.T, from, to, step int64) {
		ds := Steps(time.Duration(from), time.Duration(to), time.Duration(step))
		if ds == nil {
			return
		}
		if len(ds) > MaxSteps || ds[0] != time.Duration(from) || ds[len(ds)-1] > time.Duration(to) {
			t.Fatalf("Steps(%d, %d, %d): %d values from %v to %v", from, to, step, len(ds), ds[0], ds[len(ds)-1])
		}
		for i := 1; i < len(ds); i++ {
			if ds[i]-ds[i-1] != time.Duration(step) {
				t.Fatalf("Steps(%d, %d, %d): gap %v at %d", from, to, step, ds[i]-ds[i-1], i)
			}
		}
		if next := ds[len(ds)-1] + time.Duration(step); next > ds[len(ds)-1] && next <= time.Duration(to) {
			t.Fatalf("Steps(%d, %d, %d) stops at %v before to", from, to, step, ds[len(ds)-1])
		}
	})
}

func TestSweepEachNamesEverySweep(t *testing.T) {
	ss, err := SweepEach(Lesson().EachJitter(0, 1), SlotWidths())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		w    float64
		at   time.Duration
		want float64
	}{
		{"no jitter at 1ms", 0, time.Millisecond, 600000},
		{"no jitter at 200ms", 0, 200 * time.Millisecond, 3000},
		{"full width at 1ms", 1, time.Millisecond, 6000},
		{"full width at 200ms", 1, 200 * time.Millisecond, 925},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := ss.Jitter(tc.w)
			if s.Config.Jitter != tc.w {
				t.Fatalf("Jitter(%v) is the sweep of %s", tc.w, s.Config.Label())
			}
			if p := s.PeakAt(tc.at); p.Width != tc.at || p.PerSecond() != tc.want {
				t.Errorf("PeakAt(%v) = %v, want %v/s", tc.at, p, tc.want)
			}
		})
	}
	if p := ss.Jitter(0).PeakAt(3 * time.Millisecond); p != (metrics.Peak{}) {
		t.Errorf("PeakAt a width not swept = %v, want the zero Peak", p)
	}
	if s := ss.Jitter(0.5); s.Config != (Config{}) || s.Peaks != nil {
		t.Errorf("Jitter(0.5) of sweeps without it = %+v, want the zero SlotSweep", s)
	}
	_, err = SweepEach(Lesson().EachJitter(0, 3), SlotWidths())
	if err == nil || !strings.Contains(err.Error(), "run 2 of 2") || !strings.Contains(err.Error(), "jitter") {
		t.Errorf("SweepEach with a bad second config: error %v, want one naming run 2 and the jitter", err)
	}
}
