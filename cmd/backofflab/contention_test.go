package main

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/backofflab/backofflab/lab/contention"
)

func captureDispatch(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = dispatch(args, &out, &errb)
	return code, out.String(), errb.String()
}

type contentionJSON struct {
	Policy  string  `json:"policy"`
	Clients int     `json:"clients"`
	Runs    int     `json:"runs"`
	TimeMs  float64 `json:"time_ms"`
	Writes  float64 `json:"writes"`
	Reads   float64 `json:"reads"`
	Calls   float64 `json:"calls"`
	Counted string  `json:"counted"`
	NetSDMs float64 `json:"net_sd_ms"`
}

// The command line, with Brooker's parameters spelled out, gives
// the defaults' numbers: about 796 writes in about 4.9 s for full jitter.
func TestContentionJSON(t *testing.T) {
	args := []string{"contention", "--clients", "100", "--policy", "full", "--base", "5ms", "--cap", "2s",
		"--net", "10ms", "--net-sd", "2ms", "--runs", "100", "--json"}
	code, out, errs := captureDispatch(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r contentionJSON
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if r.Policy != "full" || r.Clients != 100 || r.Runs != 100 || r.Counted != "writes" || r.Calls != r.Writes {
		t.Errorf("settings echoed wrongly: %+v", r)
	}
	if math.Abs(r.Writes-796) > 8 || math.Abs(r.TimeMs-4868) > 100 || r.Reads != r.Writes {
		t.Errorf("full jitter at 100 clients: %.1f writes, %.1f reads, %.0f ms; want ≈796, ≈796, ≈4868", r.Writes, r.Reads, r.TimeMs)
	}
	_, def, _ := captureDispatch(t, "contention", "--json")
	if def != out {
		t.Errorf("defaults differ from Brooker's parameters spelled out:\n%s\nvs\n%s", def, out)
	}
}

func TestContentionWideSetAndAll(t *testing.T) {
	code, out, errs := captureDispatch(t, "contention", "--set", "wide", "--all", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rs []contentionJSON
	if err := json.Unmarshal([]byte(out), &rs); err != nil {
		t.Fatalf("not a JSON array: %v\n%s", err, out)
	}
	if len(rs) != 5 {
		t.Fatalf("%d rows, want 5", len(rs))
	}
	by := map[string]contentionJSON{}
	for _, r := range rs {
		by[r.Policy] = r
		if r.Counted != "reads+writes" || r.NetSDMs != 4 || r.Calls != r.Reads+r.Writes {
			t.Errorf("%s: counted %q, sd %v ms, calls %v: want the wide set", r.Policy, r.Counted, r.NetSDMs, r.Calls)
		}
	}
	if got := []string{rs[0].Policy, rs[1].Policy, rs[2].Policy, rs[3].Policy, rs[4].Policy}; !slices.Equal(got, contention.Policies()) {
		t.Errorf("--all ran %v, want the lineup %v", got, contention.Policies())
	}
	if f, e := by["full"], by["exponential"]; math.Abs(f.Calls-1492) > 15 || math.Abs(e.Calls-2263) > 25 {
		t.Errorf("wide set: full %.0f calls, exponential %.0f; want ≈1492 and ≈2263", f.Calls, e.Calls)
	}
	// --count overrides the set.
	_, out, _ = captureDispatch(t, "contention", "--set", "wide", "--count", "writes", "--runs", "2", "--json")
	var r contentionJSON
	if err := json.Unmarshal([]byte(out), &r); err != nil || r.Counted != "writes" || r.NetSDMs != 4 {
		t.Errorf("--set wide --count writes: %+v, %v", r, err)
	}
}

// The first edition's names keep working for one release: --policy none
// (which here meant retry at once) and --set summary, each with a
// deprecation message on stderr and the same output as the new name.
func TestContentionOldNames(t *testing.T) {
	for _, tc := range []struct {
		name     string
		old, now []string
		warning  string
	}{
		{"policy none", []string{"--policy", "none"}, []string{"--policy", "immediate"}, "--policy none is deprecated and will be removed in the next release: use immediate"},
		{"set summary", []string{"--set", "summary"}, []string{"--set", "wide"}, "--set summary is deprecated and will be removed in the next release: use wide"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			common := []string{"contention", "--clients", "20", "--runs", "3", "--json"}
			code, out, errs := captureDispatch(t, append(common, tc.old...)...)
			if code != 0 || !strings.Contains(errs, tc.warning) {
				t.Fatalf("%v: exit %d, stderr %q; want 0 and %q", tc.old, code, errs, tc.warning)
			}
			_, want, errs := captureDispatch(t, append(common, tc.now...)...)
			if out != want || errs != "" {
				t.Errorf("%v printed %s, %v printed %s (stderr %q): want the same and no warning", tc.old, out, tc.now, want, errs)
			}
		})
	}
	_, out, _ := captureDispatch(t, "contention", "--help")
	if strings.Contains(out, "none") || strings.Contains(out, "summary") {
		t.Errorf("--help mentions an old name:\n%s", out)
	}
}

func TestContentionSweepTable(t *testing.T) {
	code, out, errs := captureDispatch(t, "contention", "--sweep", "--policy", "equal", "--runs", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if n := strings.Count(out, "\nequal "); n != 19 {
		t.Errorf("%d rows for equal, want 19 (10..190 clients):\n%s", n, out)
	}
}

func TestContentionBadFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--clients", "0"}, "--clients 0 out of range: want 1 <= --clients <= 5000"},
		{[]string{"--policy", "fast"}, `--policy: unknown policy "fast": want one of exponential, full, equal, decorrelated, uniform, constant, immediate`},
		{[]string{"--policy", "flat", "--runs", "0"}, "--runs 0 out of range"},
		{[]string{"--cap", "1ms"}, "--cap 1ms out of range: want --base (5ms) <= --cap"},
		{[]string{"--base", "0s"}, "--base 0s out of range"},
		{[]string{"--net-sd", "-1ms"}, "--net-sd -1ms out of range"},
		{[]string{"--net", "2s"}, "--net 2s out of range"},
		{[]string{"--first", "-1"}, "--first -1 out of range"},
		{[]string{"--runs", "0"}, "--runs 0 out of range"},
		{[]string{"--seed", "-5"}, "--seed -5 out of range"},
		{[]string{"--set", "mine"}, `unknown --set "mine"`},
		{[]string{"--count", "all"}, `unknown --count "all"`},
		{[]string{"--clients", "ten"}, `invalid value "ten" for flag -clients`},
		{[]string{"extra"}, `unexpected argument "extra"`},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, out, errs := captureDispatch(t, append([]string{"contention"}, tc.args...)...)
			if code != 2 || !strings.Contains(errs, tc.want) || out != "" {
				t.Errorf("exit %d, stderr %q, stdout %q; want 2 and %q", code, errs, out, tc.want)
			}
		})
	}
	if code, out, _ := captureDispatch(t, "contention", "--help"); code != 0 || !strings.Contains(out, "usage: backofflab contention") {
		t.Errorf("--help: exit %d, %q", code, out)
	}
}
