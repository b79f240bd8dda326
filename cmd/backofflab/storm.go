package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/backofflab/backofflab/lab/schedule"
	"github.com/backofflab/backofflab/lab/storm"
	"github.com/backofflab/backofflab/lab/table"
)

func init() {
	register("storm", "200 real HTTP clients through a 3 s outage, without jitter and with package retry's defaults", runStorm)
}

// stormReport is one run in the --json output.
type stormReport struct {
	Policy      string   `json:"policy"`
	Clients     int      `json:"clients"`
	Requests    int      `json:"requests"`
	Retries     int      `json:"retries"`
	PeakPer10ms int      `json:"peak_per_10ms"`
	PeakAtMs    float64  `json:"peak_at_ms"`
	CV          float64  `json:"cv"`
	Succeeded   int      `json:"succeeded"`
	GaveUp      int      `json:"gave_up"`
	Recovered   bool     `json:"recovered"`
	RecoveredMs *float64 `json:"recovered_ms"`
	DoneMs      float64  `json:"done_ms"`
	Arrivals    []int    `json:"arrivals_per_10ms,omitempty"`
}

// stormRuns is a parsed storm command line: the runs to make and how to
// print them.
type stormRuns struct {
	c                 storm.Config
	names             []string
	histogram, asJSON bool
}

func runStorm(args []string, stdout, stderr io.Writer) int {
	r, status, ok := parseStorm(args, stdout, stderr)
	if !ok {
		return status
	}
	c := r.c
	results, err := storm.RunEach(context.Background(), c.EachPolicy(r.names...))
	if err != nil {
		fmt.Fprintf(stderr, "backofflab %v\n", err) // storm's errors start "storm: "
		return 1
	}
	var reports []stormReport
	for _, res := range results {
		reports = append(reports, report(res, r.histogram))
	}
	if r.asJSON {
		return writeJSON(stdout, stderr, "storm", struct {
			Runs []stormReport `json:"runs"`
		}{reports})
	}
	capacity := "unlimited"
	if c.Capacity > 0 {
		capacity = fmt.Sprintf("%d per 10 ms", c.Capacity)
	}
	fmt.Fprintf(stdout, "%d clients, %v outage, capacity %s, one GET each\n\n", c.Clients, c.Outage, capacity)
	t := table.New("policy", "requests", "retries", "peak/10ms", "at", "cv", "succeeded", "recovered")
	for _, r := range reports {
		rec := table.Num("never")
		if r.RecoveredMs != nil {
			rec = table.Num("%.0f ms", *r.RecoveredMs)
		}
		t.Add(r.Policy, r.Requests, r.Retries, r.PeakPer10ms, table.Num("%.0f ms", r.PeakAtMs), table.Num("%.2f", r.CV), r.Succeeded, rec)
	}
	fmt.Fprint(stdout, t)
	return 0
}

// parseStorm parses and checks a storm command line, everything but
// running it. It returns ok when the runs should go ahead; otherwise the
// command returns status.
func parseStorm(args []string, stdout, stderr io.Writer) (r stormRuns, status int, ok bool) {
	fs := newFlags("storm", stormHelp, stderr)
	c, lesson := storm.Lesson(), storm.Lesson()
	fs.IntVar(&c.Clients, "clients", lesson.Clients, fmt.Sprintf("clients in the cohort, each with its own http.Client (1..%d)", storm.MaxClients))
	fs.DurationVar(&c.Outage, "outage", lesson.Outage, fmt.Sprintf("how long the server answers 503 (0 < outage <= %v)", storm.MaxOutage))
	fs.IntVar(&c.Attempts, "attempts", lesson.Attempts, fmt.Sprintf("attempt limit per call, raised from the package's 3 so a client can outlast the outage (1..%d)", storm.MaxAttempts))
	fs.DurationVar(&c.Deadline, "deadline", lesson.Deadline, fmt.Sprintf("each client's deadline for its answer (0..%v)", storm.MaxDeadline))
	fs.DurationVar(&c.Base, "base", lesson.Base, "first window (constant: the wait) of the schedule policies ("+storm.RetryDefaults+" ignores it)")
	fs.DurationVar(&c.Cap, "cap", lesson.Cap, "cap of the schedule policies (>= base, or 0 for uncapped; "+storm.RetryDefaults+" ignores it)")
	fs.IntVar(&c.Capacity, "capacity", 0, "requests the server answers per 10 ms after the outage, the rest get 503 (0 = unlimited, ..1e6)")
	fs.Int64Var(&c.Seed, "seed", lesson.Seed, "seed of the clients' generators (client i draws from PCG(seed, i))")
	policies := fs.String("policies", schedule.NameExponential+","+storm.RetryDefaults, "comma-separated runs, from: "+strings.Join(append(schedule.Names(), storm.RetryDefaults), ", "))
	histogram := fs.Bool("histogram", false, "include every run's arrivals per 10 ms (first attempts included) in the JSON")
	asJSON := fs.Bool("json", false, `print JSON: {"runs":[{"policy", "requests", "peak_per_10ms", "recovered_ms", ...}, ...]}`)
	if status, ok := parseFlags(fs, args, stdout); !ok {
		return r, status, false
	}
	names, err := stormPolicies(*policies, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "backofflab storm: %v\n", err)
		return r, 2, false
	}
	if len(names) == 0 {
		fmt.Fprintf(stderr, "backofflab storm: --policies is empty: want some of %s\n", strings.Join(append(schedule.Names(), storm.RetryDefaults), ", "))
		return r, 2, false
	}
	if most := time.Duration(len(names)) * c.Deadline; c.Deadline <= storm.MaxDeadline && most > maxStormTime {
		fmt.Fprintf(stderr, "backofflab storm: --policies with %s and --deadline %v ask for up to %v of real time (every run lasts until the clients' deadline at most), more than the %v one command may take: name fewer --policies or shorten --deadline\n",
			plural(len(names), "run", "runs"), c.Deadline, most, maxStormTime)
		return r, 2, false
	}
	// Validate every run's configuration before spending seconds on any.
	for _, cfg := range c.EachPolicy(names...) {
		if err := cfg.Validate(); err != nil {
			fmt.Fprintf(stderr, "backofflab %s\n", flagNames(err))
			return r, 2, false
		}
	}
	// A cohort the open-file limit cannot hold would hang; say so instead.
	if err := storm.CheckDescriptors(c.Clients); err != nil {
		fmt.Fprintf(stderr, "backofflab %s\n", flagNames(err))
		return r, 2, false
	}
	return stormRuns{c: c, names: names, histogram: *histogram, asJSON: *asJSON}, 0, true
}

// stormPolicies parses --policies: schedule names, through policyName (so
// the first edition's names keep working for a release), and
// storm.RetryDefaults, whose first-edition name "defaults" is deprecated.
// Empty entries are skipped.
func stormPolicies(value string, stderr io.Writer) ([]string, error) {
	var names []string
	for _, v := range strings.Split(value, ",") {
		v = strings.ToLower(strings.TrimSpace(v))
		switch v {
		case "":
			continue
		case storm.RetryDefaults:
		case "defaults":
			fmt.Fprintf(stderr, "backofflab storm: --policies defaults is deprecated and will be removed in the next release: use %s\n", storm.RetryDefaults)
			v = storm.RetryDefaults
		default:
			name, err := policyName("storm", "--policies", v, "", stderr)
			if err != nil {
				return nil, fmt.Errorf("--policies: unknown policy %q: want one of %s, %s", v, strings.Join(schedule.Names(), ", "), storm.RetryDefaults)
			}
			v = name
		}
		if slices.Contains(names, v) {
			return nil, fmt.Errorf("--policies names %s twice: each run is one policy, name each once", v)
		}
		names = append(names, v)
	}
	return names, nil
}

// report turns a storm result into its JSON form.
func report(res storm.Result, histogram bool) stormReport {
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	r := stormReport{
		Policy:      res.Config.Policy,
		Clients:     res.Config.Clients,
		Requests:    len(res.Arrivals),
		Retries:     len(res.Retries),
		PeakPer10ms: res.Peak.Count,
		PeakAtMs:    ms(res.Peak.At()),
		CV:          res.CV,
		Succeeded:   res.Succeeded,
		GaveUp:      res.GaveUp,
		Recovered:   res.Recovered,
		DoneMs:      ms(res.Done),
	}
	if res.Recovered {
		v := ms(res.RecoveredAt)
		r.RecoveredMs = &v
	}
	if histogram {
		r.Arrivals = res.Histogram().Counts
	}
	return r
}

// flagNames rewrites a storm configuration error in terms of the flags.
func flagNames(err error) string {
	return strings.NewReplacer("storm: clients", "storm: --clients", "storm: outage", "storm: --outage",
		"storm: attempts", "storm: --attempts", "storm: deadline", "storm: --deadline",
		"storm: unknown policy", "storm: --policies: unknown policy", "storm: capacity", "storm: --capacity", "storm: seed", "storm: --seed",
		"schedule: base", "--base", "schedule: cap", "--cap").Replace(err.Error())
}

const stormHelp = `usage: backofflab storm [flags]

Starts a local HTTP server that answers 503 for --outage, then 200, and sends
it one GET from each of --clients independent clients at the same instant.
With --capacity, the recovered server answers at most that many requests per
10 ms and sheds the rest with 503, like a server still warming up.
Each client retries through package retry's Transport until it gets its 200
or its deadline passes. Runs, one after the other, one per --policies entry:

  retry-defaults  package retry's defaults (full jitter, budget, per-host
                  breaker) with the attempt limit raised to --attempts; a
                  client whose breaker opens waits for its jittered open
                  time, then asks again
  exponential, full, equal, decorrelated, uniform, constant, immediate
                  that schedule alone (--base, --cap), no budget, no breaker

The server records every arrival. Reported per run: requests (arrivals),
retries (arrivals after each client's first), peak_per_10ms (fullest 10 ms
slot of the retries: the first requests arrive together by construction),
cv (coefficient of variation of the gaps between retries), and recovered_ms
(when the last client got its 200; null if some never did). Runs in real
time: about 12 s with the defaults.

  backofflab storm --clients 200 --outage 3s --json
  backofflab storm --policies exponential,full,retry-defaults

`
