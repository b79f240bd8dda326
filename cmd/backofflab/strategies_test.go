package main

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
)

func runStrategiesCLI(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = dispatch(append([]string{"strategies"}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

// The default --json reproduces the notebook's main table.
func TestStrategiesJSONIsTheLessonTable(t *testing.T) {
	code, out, errs := runStrategiesCLI("--json")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	var got strategiesReport
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if got.Settings == nil || got.Settings.Clients != 1000 || got.Settings.SlotMs != 10 || got.Settings.Seed != 1513241 {
		t.Fatalf("settings %+v, want the lesson's", got.Settings)
	}
	want := []struct {
		policy                         string
		attempts, retryPeak, firstPeak int
		cv                             float64
		lastMs                         float64
	}{
		{"exponential", 6000, 1000, 1000, 43.45, 31000},
		{"full", 7059, 21, 1000, 2.29, 39433},
		{"equal", 6111, 32, 1000, 6.45, 39347},
		{"decorrelated", 6223, 14, 1000, 1.90, 39991},
	}
	if len(got.Cohort) != len(want) || got.Deadline != nil || got.Synchronisers != nil {
		t.Fatalf("tables %+v, want only the cohort table's four rows", got)
	}
	for i, w := range want {
		r := got.Cohort[i]
		if r.Policy != w.policy || r.Attempts != w.attempts || r.RetryPeak != w.retryPeak || r.FirstPeak != w.firstPeak ||
			r.CV == nil || int(*r.CV*100+0.5) != int(w.cv*100+0.5) || math.Round(r.LastSuccessMs) != w.lastMs {
			t.Errorf("row %d: %+v (cv %v), want %+v", i, r, r.CV, w)
		}
	}
	if r := got.Cohort[0]; r.RetryPeakPerSecond != 100000 || r.RetryPeakAtMs != 1000 {
		t.Errorf("exponential: peak %v/s at %v ms, want 100000/s at 1000 ms", r.RetryPeakPerSecond, r.RetryPeakAtMs)
	}
}

func TestStrategiesOtherTables(t *testing.T) {
	code, out, errs := runStrategiesCLI("--table", "all", "--json")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	var got strategiesReport
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if len(got.Cohort) != 4 || len(got.Deadline) != 3 || len(got.Synchronisers) != 16 || len(got.Layered) != 2 || len(got.Warmup) != 4 {
		t.Fatalf("%d cohort rows, %d deadline rows, %d synchroniser rows, %d layered, %d warm-up; want 4, 3, 16, 2, 4",
			len(got.Cohort), len(got.Deadline), len(got.Synchronisers), len(got.Layered), len(got.Warmup))
	}
	if l := got.Layered[1]; l.Inner != 3 || l.Attempts != 19177 || l.RetryPeak != 1005 || l.RetryPeakAtMs != 10 {
		t.Errorf("layered, inner 3: %+v, want 19177 attempts and a retry peak of 1005 at 10 ms", l)
	}
	if w := got.Warmup[2]; w.Policy != "full" || w.Gate || w.Restarts != 47 || w.WarmMs != nil || w.Served != 685 {
		t.Errorf("full jitter without a gate: %+v, want 47 restarts, never warm (null), 685 served", w)
	}
	if w := got.Warmup[3]; !w.Gate || w.Restarts != 0 || w.WarmMs == nil || *w.WarmMs != 6000 || w.Served != 1000 {
		t.Errorf("full jitter behind the gate: %+v, want no restart, warm at 6000 ms, all 1000 served", w)
	}
	if d := got.Deadline; d[0].Mode != "oblivious" || d[0].Wasted != 306 || d[2].Mode != "check before sleep" || d[2].Wasted != 0 || d[2].InTime != 624 {
		t.Errorf("deadline table %+v", d)
	}
	heal := got.Synchronisers[12]
	if heal.Source != "heal" || heal.Offset != 0 || heal.Peak != 1000 || heal.CV != nil || heal.SlotMs != 10 {
		t.Errorf("heal without offset: %+v, want 1000 in 10 ms and an undefined (null) CV", heal)
	}
	if cron := got.Synchronisers[3]; cron.Source != "cron" || cron.Offset != 1 || cron.CV == nil || *cron.CV < 0.95 || *cron.CV > 1.05 {
		t.Errorf("cron at a full offset: %+v, want a CV near 1", cron)
	}
}

func TestStrategiesText(t *testing.T) {
	code, out, errs := runStrategiesCLI("--policies", "none, full", "--clients", "50", "--same-seed")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	if want := "--policies none is deprecated and will be removed in the next release: use exponential"; !strings.Contains(errs, want) {
		t.Errorf("stderr %q, want %q", errs, want)
	}
	if _, newOut, newErrs := runStrategiesCLI("--policies", "exponential,full", "--clients", "50", "--same-seed"); newOut != out || newErrs != "" {
		t.Errorf("--policies exponential,full printed\n%s\nstderr %q; want the output of none,full and no message", newOut, newErrs)
	}
	for _, s := range []string{"50 clients fail together", "one seed for all clients", "retry peak", "50 in 10ms at 1s"} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q:\n%s", s, out)
		}
	}
	if strings.Contains(out, "equal") {
		t.Errorf("--policies none,full printed other policies:\n%s", out)
	}
	// One seed for all: full jitter's retries are in step too.
	if !strings.Contains(out, "50 in 10ms at 570ms") {
		t.Errorf("full jitter with one seed:\n%s", out)
	}
	code, out, _ = runStrategiesCLI("--table", "deadline")
	if code != 0 || !strings.Contains(out, "check before sleep") || strings.Contains(out, "retry peak") {
		t.Errorf("--table deadline: exit %d\n%s", code, out)
	}
	if !strings.Contains(out, "\ncheck before sleep      2953       0") {
		t.Errorf("--table deadline: columns not aligned:\n%s", out)
	}
	code, out, _ = runStrategiesCLI("--table", "failures")
	for _, s := range []string{"3     19177    18177", "1005", "full                  false        47    never", "1000      25.213s"} {
		if code != 0 || !strings.Contains(out, s) {
			t.Errorf("--table failures: exit %d, output lacks %q:\n%s", code, s, out)
		}
	}
}

func TestStrategiesHelp(t *testing.T) {
	code, out, _ := runStrategiesCLI("--help")
	if code != 0 || !strings.Contains(out, "usage: backofflab strategies") || !strings.Contains(out, "-same-seed") ||
		!strings.Contains(out, "exponential, full, equal, decorrelated") || strings.Contains(out, "none") {
		t.Errorf("--help: exit %d\n%s", code, out)
	}
}

func TestStrategiesBadFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--clients", "0"}, "--clients 0 out of range"},
		{[]string{"--outage", "-1s"}, "--outage -1s out of range"},
		{[]string{"--horizon", "0s"}, "--horizon 0s out of range"},
		{[]string{"--spread", "25h"}, "--spread 25h0m0s out of range"},
		{[]string{"--max-attempts", "-2"}, "--max-attempts -2 out of range"},
		{[]string{"--seed", "-1"}, "--seed -1 out of range"},
		{[]string{"--base", "0s"}, "--base 0s out of range"},
		{[]string{"--cap", "1ms"}, "--cap 1ms below base"},
		{[]string{"--slot", "0s"}, "--slot 0s out of range"},
		{[]string{"--slot", "1ns", "--horizon", "1h"}, "--slot 1ns out of range for --horizon 1h0m0s"},
		{[]string{"--policies", "fast"}, `--policies: unknown policy "fast"`},
		{[]string{"--policies", "constant"}, `"constant" is not one of the lesson's policies`},
		{[]string{"--policies", " , "}, "--policies is empty"},
		{[]string{"--table", "cap"}, `--table "cap": want one of cohort, deadline, synchronisers, failures, all`},
		{[]string{"--table", "deadline", "--clients", "5"}, "--clients set the cohort table's run"},
		{[]string{"--clients", "1000000", "--base", "1ns", "--outage", "24h", "--horizon", "24h", "--slot", "1s"}, "too many events"},
		{[]string{"--clients"}, "flag needs an argument"},
		{[]string{"stray"}, `unexpected argument "stray"`},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, out, errs := runStrategiesCLI(tc.args...)
			if code != 2 || !strings.Contains(errs, tc.want) || out != "" {
				t.Errorf("exit %d, stderr %q, stdout %q; want 2 and an error containing %q", code, errs, out, tc.want)
			}
		})
	}
}
