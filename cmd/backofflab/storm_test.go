package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/backofflab/backofflab/lab/schedule"
	"github.com/backofflab/backofflab/lab/storm"
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
	if len(got.Runs) != 2 || got.Runs[0].Policy != schedule.NameExponential || got.Runs[1].Policy != storm.RetryDefaults {
		t.Fatalf("runs %+v, want exponential then retry-defaults", got.Runs)
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
		name string
		args []string
		want string
	}{
		{"no clients", []string{"--clients", "0"}, "storm: --clients 0 out of range: want 1 <= clients <= 5000"},
		{"too many clients", []string{"--clients", "6000"}, "storm: --clients 6000 out of range"},
		{"negative outage", []string{"--outage", "-1s"}, "storm: --outage -1s out of range"},
		{"long outage", []string{"--outage", "2m"}, "storm: --outage 2m0s out of range"},
		{"no attempts", []string{"--attempts", "0"}, "storm: --attempts 0 out of range"},
		{"no deadline", []string{"--deadline", "0s"}, "storm: --deadline 0s out of range"},
		{"negative capacity", []string{"--capacity", "-5"}, "storm: --capacity -5 out of range"},
		{"cap below base", []string{"--base", "1s", "--cap", "10ms"}, "storm: --cap 10ms below base 1s"},
		{"unknown policy", []string{"--policies", "exponential,linear"},
			`storm: --policies: unknown policy "linear": want one of exponential, full, equal, decorrelated, uniform, constant, immediate, retry-defaults`},
		{"none was never a storm policy", []string{"--policies", "none"}, `storm: --policies: unknown policy "none"`},
		{"empty policies", []string{"--policies", " , "}, "storm: --policies is empty"},
		{"extra argument", []string{"extra"}, `storm: unexpected argument "extra"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := dispatch(append([]string{"storm"}, tc.args...), &out, &errb); code != 2 || !strings.Contains(errb.String(), tc.want) {
				t.Errorf("storm %v: exit %d, stderr %q; want 2 and %q", tc.args, code, errb.String(), tc.want)
			}
		})
	}
	var out, errb bytes.Buffer
	if code := dispatch([]string{"storm", "--help"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "usage: backofflab storm") {
		t.Fatalf("--help: exit %d, stdout %q", code, out.String())
	}
}

// The first edition's "defaults" keeps working for one release, with a
// deprecation message; the help lists the new names only, every one of them.
func TestStormPolicyNames(t *testing.T) {
	var errb bytes.Buffer
	r, code, ok := parseStorm([]string{"--policies", "Defaults, full"}, &bytes.Buffer{}, &errb)
	if !ok {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
	if want := []string{storm.RetryDefaults, schedule.NameFull}; strings.Join(r.names, ",") != strings.Join(want, ",") {
		t.Errorf("names %v, want %v", r.names, want)
	}
	if want := "backofflab storm: --policies defaults is deprecated and will be removed in the next release: use retry-defaults\n"; errb.String() != want {
		t.Errorf("stderr %q, want %q", errb.String(), want)
	}
	errb.Reset()
	if _, _, ok := parseStorm([]string{"--policies", "full,retry-defaults"}, &bytes.Buffer{}, &errb); !ok || errb.Len() != 0 {
		t.Errorf("new names: ok %v, stderr %q, want no message", ok, errb.String())
	}
	var out bytes.Buffer
	dispatch([]string{"storm", "--help"}, &out, &bytes.Buffer{})
	help := out.String()
	for _, name := range append(schedule.Names(), storm.RetryDefaults) {
		if !strings.Contains(help, name) {
			t.Errorf("storm --help does not list %s", name)
		}
	}
	for _, old := range []string{"\n  defaults", ",defaults", "none", "flat"} {
		if strings.Contains(help, old) {
			t.Errorf("storm --help mentions an old name: %q", old)
		}
	}
}
