package main

import (
	"encoding/json"
	"strings"
	"testing"
)

type overloadJSON struct {
	Variant       string  `json:"variant"`
	Amplification float64 `json:"amplification"`
	Recovered     bool    `json:"recovered"`
	RecoveredMs   float64 `json:"recovered_ms"`
	Drained       bool    `json:"drained"`
	DrainedMs     float64 `json:"drained_ms"`
	Requests      int     `json:"requests"`
	Timeline      []struct {
		StartMs float64 `json:"start_ms"`
		Offered float64 `json:"offered"`
		Goodput float64 `json:"goodput"`
		Queue   int     `json:"queue"`
		Dip     bool    `json:"dip"`
	} `json:"timeline"`
}

func overloadRun(t *testing.T, args ...string) overloadJSON {
	t.Helper()
	code, out, errs := captureDispatch(t, append([]string{"overload", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, errs)
	}
	var r overloadJSON
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v: not JSON: %v\n%s", args, err, out)
	}
	return r
}

func TestOverloadJSON(t *testing.T) {
	r := overloadRun(t)
	if r.Variant != "no limit" || r.Amplification < 2.55 || r.Amplification > 2.68 || r.Recovered || r.Drained || r.Timeline != nil {
		t.Errorf("no budget: %+v; want ≈2.6×, not recovered, no timeline", r)
	}
	r = overloadRun(t, "--budget")
	if r.Variant != "budget" || r.Amplification < 1.02 || r.Amplification > 1.05 || !r.Recovered || !r.Drained ||
		r.DrainedMs < 17000 || r.DrainedMs > 23000 || r.RecoveredMs > r.DrainedMs {
		t.Errorf("budget: %+v; want ≈1.03×, recovered, drained ≈20 s after the dip", r)
	}
	// Setting a budget parameter turns the budget on; a looser budget
	// lets more retries through.
	if r2 := overloadRun(t, "--budget-ratio", "0.2"); r2.Variant != "budget" || r2.Amplification <= r.Amplification {
		t.Errorf("--budget-ratio 0.2: %+v", r2)
	}
	r = overloadRun(t, "--pacing", "--breaker")
	if r.Variant != "breaker+pacing" || !r.Recovered {
		t.Errorf("breaker+pacing: %+v", r)
	}
}

func TestOverloadTimeline(t *testing.T) {
	r := overloadRun(t, "--timeline", "--sample", "1s")
	if len(r.Timeline) != 60 {
		t.Fatalf("%d samples, want 60", len(r.Timeline))
	}
	for i, p := range r.Timeline {
		if p.StartMs != float64(i*1000) || p.Dip != (i >= 10 && i < 13) {
			t.Errorf("sample %d: start %v ms, dip %v", i, p.StartMs, p.Dip)
		}
	}
	if last := r.Timeline[59]; last.Offered < 2000 || last.Goodput > 10 || last.Queue < 60000 {
		t.Errorf("last second: %+v; want ≈2400/s offered, no goodput, a long queue", last)
	}
}

func TestOverloadAllTable(t *testing.T) {
	code, out, errs := captureDispatch(t, "overload", "--all")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"no limit", "budget", "breaker", "pacing", "never"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = captureDispatch(t, "overload", "--all", "--json")
	var rs []overloadJSON
	if err := json.Unmarshal([]byte(out), &rs); code != 0 || err != nil || len(rs) != 4 {
		t.Errorf("--all --json: exit %d, %v, %d variants", code, err, len(rs))
	}
}

func TestOverloadBadFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--tick", "0s"}, "--tick 0s out of range"},
		{[]string{"--rate", "-1"}, "--rate -1 out of range"},
		{[]string{"--rate", "1e5"}, "--rate × --duration <= 1e+06 requests"},
		{[]string{"--capacity", "0"}, "--capacity 0 out of range"},
		{[]string{"--timeout", "1h"}, "--timeout 1h0m0s out of range"},
		{[]string{"--dip-end", "5s"}, "--dip-end 5s out of range: want --dip-start (10s) <= --dip-end"},
		{[]string{"--dip-capacity", "2"}, "--dip-capacity 2 out of range"},
		{[]string{"--attempts", "0"}, "--attempts 0 out of range"},
		{[]string{"--sample", "15ms"}, "--sample 15ms out of range"},
		{[]string{"--seed", "-1"}, "--seed -1 out of range"},
		{[]string{"--budget-ratio", "2"}, "--budget-ratio 2 out of range"},
		{[]string{"--breaker-failures", "-3"}, "--breaker-failures -3 out of range"},
		{[]string{"--breaker-max-open", "1ms"}, "--breaker-max-open 1ms out of range"},
		{[]string{"--pacing-above", "-1s"}, "--pacing-above -1s out of range"},
		{[]string{"--rate", "x"}, `invalid value "x" for flag -rate`},
		{[]string{"now"}, `unexpected argument "now"`},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, out, errs := captureDispatch(t, append([]string{"overload"}, tc.args...)...)
			if code != 2 || !strings.Contains(errs, tc.want) || out != "" {
				t.Errorf("exit %d, stderr %q, stdout %q; want 2 and %q", code, errs, out, tc.want)
			}
		})
	}
	if code, out, _ := captureDispatch(t, "overload", "-h"); code != 0 || !strings.Contains(out, "usage: backofflab overload") {
		t.Errorf("-h: exit %d, %q", code, out)
	}
}
