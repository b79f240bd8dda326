package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func runWavesCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = dispatch(append([]string{"waves"}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

// wavesCase is a run of the waves command: the flags added to the lesson's,
// and the counts its JSON report must give.
type wavesCase struct {
	extra        []string
	total        int
	perSlot      int
	perSecond    float64
	early, later int
}

func TestWavesJSONReproducesTheLesson(t *testing.T) {
	lesson := []string{"--clients", "600", "--attempts", "6", "--base", "1s", "--outage", "20s",
		"--window", "40s", "--slot", "200ms", "--seed", "1513241", "--json"}
	for _, tc := range []wavesCase{
		{[]string{"--jitter", "0"}, 3600, 600, 3000, 0, 0},
		{[]string{"--jitter", "1"}, 3323, 185, 925, 163, 114},
		{[]string{"--jitter", "0.5"}, 3600, 248, 1240, 0, 0},
		{[]string{"--jitter", "1", "--clients", "2000", "--outage", "30s"}, 11499, 615, 3075, 0, 501},
		{[]string{"--jitter", "0", "--clients", "2000", "--outage", "30s"}, 12000, 2000, 10000, 0, 0},
	} {
		t.Run(strings.Join(tc.extra, " "), func(t *testing.T) { checkWavesJSON(t, append(lesson, tc.extra...), tc) })
	}
}

// checkWavesJSON runs the waves command with args and checks its JSON
// report against tc's counts.
func checkWavesJSON(t *testing.T, args []string, tc wavesCase) {
	t.Helper()
	code, out, errs := runWavesCLI(t, args...)
	if code != 0 {
		t.Fatalf("%v: exit %d, stderr %q", tc.extra, code, errs)
	}
	var rep struct {
		Total          int      `json:"total"`
		PeakPerSlot    int      `json:"peak_per_slot"`
		PeakPerSecond  float64  `json:"peak_per_second"`
		SlotMS         float64  `json:"slot_ms"`
		SucceededEarly int      `json:"succeeded_early"`
		PastWindow     int      `json:"past_window"`
		CV             *float64 `json:"cv"`
		Histogram      []int    `json:"histogram"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v: output is not JSON: %v\n%s", tc.extra, err, out)
	}
	if rep.Total != tc.total || rep.PeakPerSlot != tc.perSlot || rep.PeakPerSecond != tc.perSecond || rep.SlotMS != 200 {
		t.Errorf("%v: total %d, peak %d per slot = %v/s at %v ms; want %d, %d = %v/s at 200 ms",
			tc.extra, rep.Total, rep.PeakPerSlot, rep.PeakPerSecond, rep.SlotMS, tc.total, tc.perSlot, tc.perSecond)
	}
	if rep.SucceededEarly != tc.early || rep.PastWindow != tc.later {
		t.Errorf("%v: succeeded_early %d, past_window %d; want %d, %d", tc.extra, rep.SucceededEarly, rep.PastWindow, tc.early, tc.later)
	}
	if len(rep.Histogram) != 200 {
		t.Errorf("%v: %d histogram slots, want 200 (40 s at 200 ms)", tc.extra, len(rep.Histogram))
	}
	sum := 0
	for _, n := range rep.Histogram {
		sum += n
	}
	if sum != rep.Total {
		t.Errorf("%v: histogram sums to %d, total is %d", tc.extra, sum, rep.Total)
	}
	if rep.CV == nil || *rep.CV <= 1 {
		t.Errorf("%v: cv %v, want present and above 1", tc.extra, rep.CV)
	}
}

func TestWavesTable(t *testing.T) {
	code, out, errs := runWavesCLI(t, "--jitter", "1")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	for _, want := range []string{"attempts counted", "3323", "925/s (185 in 200ms at 1.2s)", "not made: client had succeeded", "163", "past the window", "114", "█"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	// Without jitter: six full bars, empty slots folded.
	_, out, _ = runWavesCLI(t)
	if n := strings.Count(out, strings.Repeat("█", 50)+"\n"); n != 6 {
		t.Errorf("no jitter: %d full-width bars, want 6 (one per wave):\n%s", n, out)
	}
	if !strings.Contains(out, "(79 empty)") {
		t.Errorf("no jitter: the gap from 16.2 s to 32 s is not folded into one line:\n%s", out)
	}
}

func TestWavesRejectsBadFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--clients", "0"}, "clients"},
		{[]string{"--clients", "-3"}, "clients"},
		{[]string{"--attempts", "0"}, "attempts"},
		{[]string{"--jitter", "2.5"}, "jitter"},
		{[]string{"--jitter", "-1"}, "jitter"},
		{[]string{"--jitter", "NaN"}, "jitter"},
		{[]string{"--slot", "0s"}, "slot"},
		{[]string{"--slot", "-1ms"}, "slot"},
		{[]string{"--window", "0s"}, "window"},
		{[]string{"--base", "0s"}, "base"},
		{[]string{"--outage", "-1s"}, "outage"},
		{[]string{"--seed", "2147483648"}, "seed"},
		{[]string{"--seed", "-1"}, "seed"},
		{[]string{"--seed", "99999999999999999999"}, "seed"},
		{[]string{"--clients", "many"}, "clients"},
		{[]string{"--base", "1"}, "base"},
		{[]string{"--frobnicate"}, "frobnicate"},
		{[]string{"extra"}, "extra"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, out, errs := runWavesCLI(t, tc.args...)
			if code != 2 {
				t.Errorf("exit %d, want 2", code)
			}
			if !strings.Contains(errs, tc.want) {
				t.Errorf("stderr %q does not mention %q", errs, tc.want)
			}
			if out != "" {
				t.Errorf("printed %q to stdout on a usage error", out)
			}
		})
	}
}

func TestWavesHelp(t *testing.T) {
	code, out, _ := runWavesCLI(t, "--help")
	if code != 0 {
		t.Fatalf("--help: exit %d, want 0", code)
	}
	for _, flag := range []string{"-clients", "-attempts", "-base", "-outage", "-window", "-jitter", "-slot", "-seed", "-json"} {
		if !strings.Contains(out, flag) {
			t.Errorf("--help does not document %s", flag)
		}
	}
}
