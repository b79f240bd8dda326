package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestStormJSON(t *testing.T) {
	var out, errb bytes.Buffer
	code := dispatch([]string{"storm", "--clients", "10", "--outage", "60ms", "--base", "20ms", "--json", "--histogram"}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
	var got struct {
		Runs []struct {
			Policy      string   `json:"policy"`
			Requests    int      `json:"requests"`
			Retries     int      `json:"retries"`
			PeakPer10ms *int     `json:"peak_per_10ms"`
			Recovered   bool     `json:"recovered"`
			RecoveredMs *float64 `json:"recovered_ms"`
			Succeeded   int      `json:"succeeded"`
			Arrivals    []int    `json:"arrivals_per_10ms"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out.String())
	}
	if len(got.Runs) != 2 || got.Runs[0].Policy != "exponential" || got.Runs[1].Policy != "defaults" {
		t.Fatalf("runs %+v, want exponential then defaults", got.Runs)
	}
	for _, r := range got.Runs {
		sum := 0
		for _, n := range r.Arrivals {
			sum += n
		}
		if r.Requests != 10+r.Retries || r.Retries < 10 || r.PeakPer10ms == nil || *r.PeakPer10ms < 1 || sum != r.Requests {
			t.Errorf("%s: %d requests, %d retries, peak %v, histogram total %d", r.Policy, r.Requests, r.Retries, r.PeakPer10ms, sum)
		}
		if !r.Recovered || r.RecoveredMs == nil || *r.RecoveredMs < 60 || r.Succeeded != 10 {
			t.Errorf("%s: recovered %v at %v ms with %d of 10, want all after the 60 ms outage", r.Policy, r.Recovered, r.RecoveredMs, r.Succeeded)
		}
	}
}

func TestStormText(t *testing.T) {
	var out, errb bytes.Buffer
	if code := dispatch([]string{"storm", "--clients", "5", "--outage", "30ms", "--base", "10ms", "--policies", "full"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
	if s := out.String(); !strings.Contains(s, "5 clients, 30ms outage, capacity unlimited") || !strings.Contains(s, "full") {
		t.Fatalf("text output:\n%s", s)
	}
}

func TestStormBadFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--clients", "0"}, "storm: --clients 0 out of range: want 1 <= clients <= 5000"},
		{[]string{"--clients", "6000"}, "storm: --clients 6000 out of range"},
		{[]string{"--outage", "-1s"}, "storm: --outage -1s out of range"},
		{[]string{"--outage", "2m"}, "storm: --outage 2m0s out of range"},
		{[]string{"--attempts", "0"}, "storm: --attempts 0 out of range"},
		{[]string{"--deadline", "0s"}, "storm: --deadline 0s out of range"},
		{[]string{"--capacity", "-5"}, "storm: --capacity -5 out of range"},
		{[]string{"--base", "1s", "--cap", "10ms"}, "storm: --cap 10ms below base 1s"},
		{[]string{"--policies", "exponential,linear"}, `storm: --policies: unknown policy "linear"`},
		{[]string{"--policies", " , "}, "storm: --policies is empty"},
		{[]string{"extra"}, `storm: unexpected argument "extra"`},
	} {
		var out, errb bytes.Buffer
		if code := dispatch(append([]string{"storm"}, tc.args...), &out, &errb); code != 2 || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("storm %v: exit %d, stderr %q; want 2 and %q", tc.args, code, errb.String(), tc.want)
		}
	}
	var out, errb bytes.Buffer
	if code := dispatch([]string{"storm", "--help"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "usage: backofflab storm") {
		t.Fatalf("--help: exit %d, stdout %q", code, out.String())
	}
}
