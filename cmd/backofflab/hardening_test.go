package main

// Regression tests for issue 16's CLI items: output errors, error
// prefixes, zeros outside a flag's range, the storm descriptor limit; and
// fuzzing of every subcommand's flag parsing.

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/backofflab/backofflab/internal/filelimit"
	"github.com/backofflab/backofflab/lab/storm"
)

// fullWriter fails every write, as stdout on /dev/full does, and keeps
// what was written to it anyway.
type fullWriter struct{ tried bytes.Buffer }

func (w *fullWriter) Write(p []byte) (int, error) {
	w.tried.Write(p)
	return 0, syscall.ENOSPC
}

// Item 12: a failed write to stdout exits 1 with a message on stderr,
// whatever the subcommand, and no error text goes to stdout.
func TestOutputErrorsExitOne(t *testing.T) {
	for _, args := range [][]string{
		{"waves", "--clients", "50"},
		{"waves", "--clients", "50", "--json"},
		{"cohort", "--clients", "20"},
		{"cohort", "--clients", "20", "--json"},
		{"overload", "--duration", "1s", "--dip-start", "100ms", "--dip-end", "200ms"},
		{"overload", "--duration", "1s", "--dip-start", "100ms", "--dip-end", "200ms", "--json"},
		{"contention", "--runs", "1", "--clients", "5"},
		{"contention", "--runs", "1", "--clients", "5", "--json"},
		{"strategies", "--clients", "10"},
		{"strategies", "--clients", "10", "--json"},
		{"figures", "--list"},
		{"storm", "--clients", "2", "--outage", "10ms", "--base", "5ms", "--policies", "full"},
		{"storm", "--help"},
	} {
		var out fullWriter
		var errb bytes.Buffer
		code := dispatch(args, &out, &errb)
		want := "backofflab " + args[0] + ": writing output: " + syscall.ENOSPC.Error() + "\n"
		if code != 1 || errb.String() != want {
			t.Errorf("%v to a full stdout: exit %d, stderr %q; want 1 and %q", args, code, errb.String(), want)
		}
		if strings.Contains(out.tried.String(), "backofflab") && args[1] != "--help" {
			t.Errorf("%v wrote an error to stdout: %q", args, out.tried.String())
		}
	}
}

// Item 12: one prefix, "backofflab CMD: ", on every error.
func TestErrorsHaveOnePrefix(t *testing.T) {
	for _, args := range [][]string{
		{"waves", "--clients", "0"},
		{"waves", "--jitter", "3"},
		{"cohort", "--clients", "0"},
		{"overload", "--attempts", "0"},
		{"contention", "--runs", "0"},
		{"strategies", "--clients", "0"},
		{"figures", "--only", "["},
		{"storm", "--clients", "0"},
		{"storm", "--attempts", "5000"},
		{"storm", "--policies", "linear"},
		{"storm", "--base", "1s", "--cap", "10ms"},
	} {
		var out, errb bytes.Buffer
		code := dispatch(args, &out, &errb)
		if prefix := "backofflab " + args[0] + ": "; code != 2 || !strings.HasPrefix(errb.String(), prefix) || strings.Count(errb.String(), "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and one line starting %q", args, code, errb.String(), prefix)
		}
	}
}

// Item 10: a 0 the library would read as "the default" is refused, naming
// the flag given and its range.
func TestZeroOutsideTheRangeIsRefused(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"overload", "--budget-ratio", "0"}, "backofflab overload: --budget-ratio 0 out of range: want 0 < ratio <= 1"},
		{[]string{"overload", "--budget-buckets", "0"}, "backofflab overload: --budget-buckets 0 out of range: want 1..3600"},
		{[]string{"overload", "--budget-width", "0"}, "backofflab overload: --budget-width 0s out of range: want 1µs..1h"},
		{[]string{"overload", "--breaker-failures", "0"}, "backofflab overload: --breaker-failures 0 out of range"},
		{[]string{"overload", "--breaker-open", "0"}, "backofflab overload: --breaker-open 0s out of range"},
		{[]string{"overload", "--breaker-max-open", "0"}, "backofflab overload: --breaker-max-open 0s out of range"},
		{[]string{"overload", "--breaker-open", "1h"}, "backofflab overload: --breaker-open 1h0m0s out of range"},
	} {
		var out, errb bytes.Buffer
		if code := dispatch(tc.args, &out, &errb); code != 2 || !strings.HasPrefix(errb.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, errb.String(), tc.want)
		}
	}
}

// Item 10: storm --cap 0 means uncapped, as the --cap error message says.
func TestStormCapZeroMeansUncapped(t *testing.T) {
	r, code, ok := parseStorm([]string{"--cap", "0", "--policies", "full"}, &bytes.Buffer{}, &bytes.Buffer{})
	if !ok || code != 0 {
		t.Fatalf("--cap 0 refused (exit %d)", code)
	}
	if r.c.Cap != storm.Uncapped {
		t.Fatalf("--cap 0 gave Cap %v, want storm.Uncapped", r.c.Cap)
	}
	var out, errb bytes.Buffer
	if code := dispatch([]string{"storm", "--clients", "3", "--outage", "20ms", "--base", "5ms", "--cap", "0", "--policies", "exponential"}, &out, &errb); code != 0 {
		t.Fatalf("storm --cap 0: exit %d, stderr %q", code, errb.String())
	}
}

// Item 2: a storm the open-file limit cannot hold exits 2 at once, naming
// --clients and the limit, instead of hanging.
func TestStormDescriptorLimit(t *testing.T) {
	if os.Getenv("BACKOFFLAB_LIMIT_CHILD") != "" {
		var out bytes.Buffer
		code := dispatch([]string{"storm", "--clients", "200", "--outage", "10ms", "--deadline", "1s", "--policies", "full"}, &out, os.Stdout)
		fmt.Printf("exit %d\n", code)
		return
	}
	out, err := filelimit.Run(t, 256, "TestStormDescriptorLimit", "BACKOFFLAB_LIMIT_CHILD=1")
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	for _, want := range []string{"exit 2", "backofflab storm: --clients 200", "the limit is 256"} {
		if !strings.Contains(out, want) {
			t.Errorf("output does not say %q:\n%.2000s", want, out)
		}
	}
}

// flagNamesOf lists a subcommand's flags, from its --help.
func flagNamesOf(t testing.TB, cmd string) []string {
	var out, errb bytes.Buffer
	if code := dispatch([]string{cmd, "--help"}, &out, &errb); code != 0 {
		t.Fatalf("%s --help: exit %d", cmd, code)
	}
	var names []string
	for _, m := range regexp.MustCompile(`(?m)^  -([a-z0-9-]+)`).FindAllStringSubmatch(out.String(), -1) {
		names = append(names, m[1])
	}
	return names
}

// cliFuzzCommands are the subcommands FuzzFlags runs, each with arguments
// that keep a run small; later flags override them. storm runs in real
// time, so it is fuzzed up to its parse and check (FuzzStormFlags), and
// figures only lists.
var cliFuzzCommands = []struct {
	name  string
	small []string
}{
	{"waves", []string{"--clients", "20"}},
	{"cohort", []string{"--clients", "10", "--seeds", "1"}},
	{"overload", []string{"--duration", "1s", "--rate", "50", "--capacity", "100", "--timeout", "100ms", "--dip-start", "100ms", "--dip-end", "200ms", "--sample", "100ms"}},
	{"contention", []string{"--clients", "3", "--runs", "1"}},
	{"strategies", []string{"--clients", "5", "--horizon", "2s"}},
	{"figures", []string{"--list"}},
}

// checkExit checks what every subcommand promises for any command line: no
// panic, a status of 0, 1 or 2, and an error that names the subcommand.
func checkExit(t *testing.T, name string, args []string, code int, stderr string) {
	t.Helper()
	switch code {
	case 0:
	case 1, 2:
		flagPkg := strings.HasPrefix(stderr, "invalid value") || strings.HasPrefix(stderr, "flag provided but not defined") ||
			strings.HasPrefix(stderr, "bad flag syntax") || strings.HasPrefix(stderr, "flag needs an argument") ||
			strings.HasPrefix(stderr, "invalid boolean")
		if !flagPkg && !strings.HasPrefix(stderr, "backofflab "+name+": ") {
			t.Fatalf("%v: exit %d, stderr %q: want a message starting %q", args, code, stderr, "backofflab "+name+": ")
		}
	default:
		t.Fatalf("%v: exit %d, want 0, 1 or 2", args, code)
	}
}

// FuzzFlags gives one flag of one subcommand any value: the subcommand
// never panics, exits 0, 1 or 2, and names itself in any error.
func FuzzFlags(f *testing.F) {
	for i, c := range cliFuzzCommands {
		for _, name := range flagNamesOf(f, c.name) {
			for _, v := range []string{"0", "-1", "1", "x", "1e309", "NaN", "9223372036854775807", "1ns"} {
				f.Add(uint8(i), name, v)
			}
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, flagName, value string) {
		c := cliFuzzCommands[int(which)%len(cliFuzzCommands)]
		if c.name == "figures" && flagName == "out" {
			return // writes files
		}
		for _, v := range []string{"clients", "seeds", "runs", "duration", "horizon", "rate", "capacity", "overload-seeds", "table", "sweep", "all", "max-calls", "max-attempts", "attempts", "window", "slot", "sample", "tick"} {
			if flagName == v && len(value) > 3 {
				return // a bigger run, not a different parse
			}
		}
		args := append(append([]string{c.name}, c.small...), "--"+flagName+"="+value)
		var out, errb bytes.Buffer
		code := dispatch(args, &out, &errb)
		checkExit(t, c.name, args, code, errb.String())
	})
}

// FuzzStormFlags does the same for storm, up to its parse and check.
func FuzzStormFlags(f *testing.F) {
	for _, name := range flagNamesOf(f, "storm") {
		for _, v := range []string{"0", "-1", "1", "x", "1e309", "9223372036854775807", "1ns", "full,defaults", " , "} {
			f.Add(name, v)
		}
	}
	f.Fuzz(func(t *testing.T, flagName, value string) {
		args := []string{"--" + flagName + "=" + value}
		var out, errb bytes.Buffer
		_, code, ok := parseStorm(args, &out, &errb)
		if ok {
			return
		}
		checkExit(t, "storm", append([]string{"storm"}, args...), code, errb.String())
	})
}

// --help prints the usage once, to stdout, and nothing to stderr.
func TestHelpGoesToStdoutOnce(t *testing.T) {
	var out, errb bytes.Buffer
	if code := dispatch([]string{"storm", "--help"}, &out, &errb); code != 0 || errb.Len() != 0 || strings.Count(out.String(), "usage: backofflab storm") != 1 {
		t.Fatalf("storm --help: exit %d, stderr %q, usage %d times on stdout", code, errb.String(), strings.Count(out.String(), "usage: backofflab storm"))
	}
}
