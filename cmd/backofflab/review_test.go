package main

// Regression tests for issue 26's CLI items. Each failed before its fix.

import (
	"bytes"
	"strings"
	"syscall"
	"testing"
)

// "backofflab help" to a full stdout says so and exits 1, as every
// subcommand does.
func TestHelpToAFullStdoutExitsOne(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"--help"}, {"-h"}} {
		var out fullWriter
		var errb bytes.Buffer
		code := dispatch(args, &out, &errb)
		want := "backofflab: writing output: " + syscall.ENOSPC.Error() + "\n"
		if code != 1 || errb.String() != want {
			t.Errorf("%v to a full stdout: exit %d, stderr %q; want 1 and %q", args, code, errb.String(), want)
		}
	}
}

// Flags each in range may not multiply into hours of work: the command is
// refused at once, with an error naming the flags and what to lower.
func TestWorkIsBounded(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"contention", "--clients", "5000", "--runs", "100000"},
			[]string{"backofflab contention: --clients 5000 and --runs 100000 make 3e+12 units of work", "lower --runs (at most 3333 here) or --clients"}},
		{[]string{"contention", "--all", "--sweep", "--runs", "100000"},
			[]string{"backofflab contention: --sweep (10 to 190 clients), --all (5 policies) and --runs 100000 make", "lower --runs (at most 9315 here)"}},
		{[]string{"cohort", "--clients", "10000", "--seeds", "100000", "--all"},
			[]string{"backofflab cohort: --clients 10000, --seeds 100000 and --all (5 policies) make 5e+09 client-runs", "lower --seeds (at most 20000 here) or --clients"}},
		{[]string{"storm", "--policies", "exponential,full,equal,decorrelated,uniform,constant,immediate,retry-defaults", "--deadline", "10m"},
			[]string{"backofflab storm: --policies with 8 runs and --deadline 10m0s ask for up to 1h20m0s of real time", "name fewer --policies or shorten --deadline"}},
		{[]string{"storm", "--policies", "full," + strings.Repeat("exponential,", 499) + "full"},
			[]string{"backofflab storm: --policies names exponential twice: each run is one policy, name each once"}},
		{[]string{"strategies", "--policies", strings.Repeat("full,", 500)},
			[]string{"backofflab strategies: --policies names full twice: name each policy once"}},
	} {
		t.Run(strings.Join(tc.args, " ")[:min(60, len(strings.Join(tc.args, " ")))], func(t *testing.T) {
			var out, errb bytes.Buffer
			code := dispatch(tc.args, &out, &errb)
			if code != 2 || out.Len() != 0 {
				t.Fatalf("exit %d, stdout %q: want 2 and nothing run", code, out.String())
			}
			for _, w := range tc.want {
				if !strings.Contains(errb.String(), w) {
					t.Errorf("stderr %q, want it to contain %q", errb.String(), w)
				}
			}
		})
	}
	// The lesson's own big runs stay allowed: Brooker's whole experiment.
	if w := contentionWork([]int{10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120, 130, 140, 150, 160, 170, 180, 190}, 5, 100); w > maxContentionWork {
		t.Errorf("contention --all --sweep --runs 100 is %g units, over the bound", w)
	}
}

// cohort's and waves' errors name the flags, with their dashes.
func TestLabErrorsNameTheFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"cohort", "--clients", "0"}, "backofflab cohort: --clients 0 out of range: want 1 <= --clients <= 1048576\n"},
		{[]string{"cohort", "--cap", "1ms"}, "backofflab cohort: --cap 1ms out of range: want --cap >= --base (100ms)\n"},
		{[]string{"cohort", "--seeds", "5", "--seed", "2147483645"}, "backofflab cohort: --seeds 5 from --seed 2147483645 out of range: want --seed + --seeds - 1 < 2^31\n"},
		{[]string{"cohort", "--max-calls", "-1"}, "backofflab cohort: --max-calls -1 out of range: want 1 <= --max-calls <= 2147483647 (the lessons use 20000000)\n"},
		{[]string{"cohort", "--table", "main", "--overload-seeds", "0"}, "backofflab cohort: --overload-seeds 0 out of range: want 1 <= --overload-seeds <= 100000\n"},
		{[]string{"waves", "--clients", "0"}, "backofflab waves: --clients 0 out of range: want 1 <= --clients <= 10000000\n"},
		{[]string{"waves", "--jitter", "3"}, "backofflab waves: --jitter 3 out of range: want 0 <= --jitter <= 2\n"},
		{[]string{"waves", "--slot", "1ns"}, "backofflab waves: --slot 1ns out of range for --window 40s:"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := dispatch(tc.args, &out, &errb); code != 2 || !strings.HasPrefix(errb.String(), tc.want) {
				t.Fatalf("exit %d, stderr %q; want 2 and %q", code, errb.String(), tc.want)
			}
		})
	}
}
