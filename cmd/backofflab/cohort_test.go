package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func runCohortCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = dispatch(append([]string{"cohort"}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

// cohortMeans is the part of the --json object the tests read.
type cohortMeans struct {
	Policy        string   `json:"policy"`
	FinishMs      *float64 `json:"finish_ms"`
	Calls         *float64 `json:"calls"`
	CallsOutage   *float64 `json:"calls_outage"`
	CallsRecovery *float64 `json:"calls_recovery"`
	IdleMs        *float64 `json:"idle_ms"`
	PeakPer100ms  *float64 `json:"peak_per_100ms"`
	Unfinished    *float64 `json:"unfinished"`
	Seeds         int      `json:"seeds"`
}

func TestCohortJSONReproducesTheLesson(t *testing.T) {
	lesson := []string{"--clients", "60", "--limit", "8", "--service", "120ms", "--outage", "3s",
		"--base", "100ms", "--cap", "3200ms", "--spread", "0s", "--horizon", "600s", "--seeds", "40", "--json"}
	for _, tc := range []struct {
		extra                []string
		finish, calls, idle  float64
		outage, unfinished   float64
		checkCalls, checkOut bool
	}{
		{[]string{"--policy", "exponential"}, 25620, 556, 21660, 300, 0, true, true},
		{[]string{"--policy", "none"}, 25620, 556, 21660, 300, 0, true, true},
		{[]string{"--policy", "constant", "--wait", "100ms"}, 4520, 2252, 560, 1800, 0, true, true},
		{[]string{"--policy", "flat", "--flat", "100ms"}, 4520, 2252, 560, 1800, 0, true, true},
		{[]string{"--policy", "exponential", "--outage", "0s"}, 12820, 308, 11860, 0, 0, true, true},
		{[]string{"--policy", "exponential", "--cap", "400ms"}, 6020, 796, 2060, 540, 0, true, true},
		{[]string{"--policy", "exponential", "--clients", "240", "--limit", "4", "--horizon", "60s", "--seeds", "20"}, 60000, 4908, 54840, 1200, 168, true, true},
	} {
		t.Run(strings.Join(tc.extra, " "), func(t *testing.T) {
			code, out, errs := runCohortCLI(t, append(lesson, tc.extra...)...)
			if code != 0 {
				t.Fatalf("exit %d, stderr %q", code, errs)
			}
			var m cohortMeans
			if err := json.Unmarshal([]byte(out), &m); err != nil {
				t.Fatalf("output is not one JSON object: %v\n%s", err, out)
			}
			if m.FinishMs == nil || m.Calls == nil || m.CallsOutage == nil || m.CallsRecovery == nil || m.IdleMs == nil || m.PeakPer100ms == nil || m.Unfinished == nil {
				t.Fatalf("missing keys in %s", out)
			}
			if *m.FinishMs != tc.finish || *m.Calls != tc.calls || *m.IdleMs != tc.idle || *m.CallsOutage != tc.outage || *m.Unfinished != tc.unfinished {
				t.Errorf("finish %v calls %v idle %v outage %v unfinished %v; want %v %v %v %v %v",
					*m.FinishMs, *m.Calls, *m.IdleMs, *m.CallsOutage, *m.Unfinished, tc.finish, tc.calls, tc.idle, tc.outage, tc.unfinished)
			}
			if *m.CallsOutage+*m.CallsRecovery != *m.Calls {
				t.Errorf("calls_outage + calls_recovery != calls")
			}
		})
	}
	// Full jitter is jittered: ≈6.0 s and ≈61 recovery calls (the package
	// tests hold the tolerances; here only that the flags reach it).
	code, out, _ := runCohortCLI(t, append(lesson, "--policy", "full")...)
	var m cohortMeans
	if code != 0 || json.Unmarshal([]byte(out), &m) != nil || m.Seeds != 40 || *m.FinishMs < 5500 || *m.FinishMs > 6500 || *m.CallsRecovery < 59 || *m.CallsRecovery > 63 {
		t.Errorf("--policy full: exit %d, %s", code, out)
	}
}

func TestCohortAllAndTables(t *testing.T) {
	code, out, errs := runCohortCLI(t, "--all", "--seeds", "3", "--json")
	var rows []cohortMeans
	if code != 0 || json.Unmarshal([]byte(out), &rows) != nil || len(rows) != 5 || rows[0].Policy != "exponential" || rows[4].Policy != "constant" {
		t.Fatalf("--all --json: exit %d, stderr %q, out %s", code, errs, out)
	}
	code, out, _ = runCohortCLI(t, "--all", "--seeds", "2")
	if code != 0 || !strings.Contains(out, "decorrelated") || !strings.Contains(out, "finish ms") {
		t.Errorf("--all text: exit %d, out %s", code, out)
	}
	code, out, _ = runCohortCLI(t, "--table", "all", "--seeds", "2", "--overload-seeds", "1")
	for _, want := range []string{"Main:", "Caps:", "Spread:", "No outage:", "Overload:", "400ms full"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("--table all: exit %d, missing %q in\n%s", code, want, out)
		}
	}
	code, out, _ = runCohortCLI(t, "--table", "overload", "--overload-seeds", "2", "--json")
	var over []cohortMeans
	if code != 0 || json.Unmarshal([]byte(out), &over) != nil || len(over) != 5 || *over[0].Unfinished != 168 {
		t.Errorf("--table overload --json: exit %d, out %s", code, out)
	}
	code, out, _ = runCohortCLI(t, "--table", "spread", "--seeds", "1", "--json")
	var spread []struct {
		SpreadMs float64 `json:"spread_ms"`
		Initial  float64 `json:"initial_ms"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &spread) != nil || len(spread) != 6 || spread[2].SpreadMs != 50 {
		t.Errorf("--table spread --json: exit %d, out %s", code, out)
	}
}

// TestCohortOldNames: the first edition's policy names and --flat keep
// working for one release, each with a deprecation message on stderr, and
// the rows carry the new names.
func TestCohortOldNames(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string // on stderr
		row  string // the row's policy
	}{
		{"none", []string{"--policy", "none"}, "--policy none is deprecated and will be removed in the next release: use exponential", "exponential"},
		{"flat", []string{"--policy", "flat"}, "--policy flat is deprecated and will be removed in the next release: use constant", "constant"},
		{"--flat", []string{"--policy", "constant", "--flat", "50ms"}, "--flat is deprecated and will be removed in the next release: use --wait", "constant"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runCohortCLI(t, append(tc.args, "--seeds", "1", "--json")...)
			var m cohortMeans
			if code != 0 || !strings.Contains(errs, tc.want) || json.Unmarshal([]byte(out), &m) != nil || m.Policy != tc.row {
				t.Errorf("%v: exit %d, stderr %q, out %s; want %q on stderr and policy %q", tc.args, code, errs, out, tc.want, tc.row)
			}
		})
	}
	code, out, _ := runCohortCLI(t, "--help")
	if code != 0 || strings.Contains(out, "none") || strings.Contains(out, "flat retry") || !strings.Contains(out, "constant") {
		t.Errorf("--help lists old names or misses new ones:\n%s", out)
	}
}

func TestCohortHelp(t *testing.T) {
	code, out, _ := runCohortCLI(t, "--help")
	if code != 0 {
		t.Fatalf("--help exit %d", code)
	}
	for _, flag := range []string{"policy", "all", "table", "clients", "limit", "service", "outage", "spread", "horizon",
		"base", "cap", "wait", "seed", "seeds", "overload-seeds", "max-calls", "json"} {
		if !strings.Contains(out, "-"+flag+" ") && !strings.Contains(out, "-"+flag+"\n") {
			t.Errorf("--help does not document -%s:\n%s", flag, out)
		}
	}
}

func TestCohortBadFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--clients", "0"}, "clients 0 out of range"},
		{[]string{"--limit", "-2"}, "limit -2 out of range"},
		{[]string{"--service", "0s"}, "service 0s out of range"},
		{[]string{"--service", "1.5ms"}, "not a whole number of milliseconds"},
		{[]string{"--spread", "-1ms"}, "spread -1ms out of range"},
		{[]string{"--horizon", "1000000h"}, "horizon"},
		{[]string{"--cap", "50ms"}, "cap 50ms out of range"},
		{[]string{"--base", "0s"}, "base 0s out of range"},
		{[]string{"--wait", "0s"}, "wait 0s out of range"},
		{[]string{"--flat", "0s"}, "wait 0s out of range"},
		{[]string{"--policy", "jitter"}, `unknown policy "jitter"`},
		{[]string{"--seeds", "0"}, "seeds 0 out of range"},
		{[]string{"--seed", "-1"}, "seed -1 out of range"},
		{[]string{"--service", "fast"}, "invalid value"},
		{[]string{"--bogus"}, "flag provided but not defined"},
		{[]string{"extra"}, `unexpected argument "extra"`},
		{[]string{"--table", "nope"}, `unknown table "nope"`},
		{[]string{"--table", "main", "--clients", "5"}, "--clients cannot be combined with --table"},
		{[]string{"--table", "main", "--overload-seeds", "0"}, "overload-seeds 0 out of range"},
		{[]string{"--policy", "flat", "--flat", "1ms", "--outage", "24h", "--horizon", "24h", "--max-calls", "1000"}, "too many calls"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, out, errs := runCohortCLI(t, tc.args...)
			if code != 2 || !strings.Contains(errs, tc.want) || out != "" {
				t.Errorf("exit %d, stderr %q, stdout %q; want exit 2 and %q", code, errs, out, tc.want)
			}
		})
	}
}
