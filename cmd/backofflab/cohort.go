package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/backofflab/backofflab/lab/cohort"
	"github.com/backofflab/backofflab/lab/schedule"
	"github.com/backofflab/backofflab/lab/table"
)

// lineupNames returns the names of a lineup's policies, in its order.
func lineupNames(lineup []schedule.Named) []string {
	names := make([]string, len(lineup))
	for i, p := range lineup {
		names[i] = p.Name
	}
	return names
}

func init() {
	register("cohort", "a cohort of clients retrying against a limited dependency (In Phase lesson)", runCohort)
}

// cohortSettings echoes the settings of a cohort run in --json output.
type cohortSettings struct {
	Policy    string  `json:"policy"`
	Clients   int     `json:"clients"`
	Limit     int     `json:"limit"`
	ServiceMs float64 `json:"service_ms"`
	OutageMs  float64 `json:"outage_ms"`
	SpreadMs  float64 `json:"spread_ms"`
	HorizonMs float64 `json:"horizon_ms"`
	BaseMs    float64 `json:"base_ms"`
	CapMs     float64 `json:"cap_ms"`
	WaitMs    float64 `json:"wait_ms"`
	Seed      int64   `json:"seed"`
}

// cohortReport is the --json output for one policy: its settings and the
// means over the seeds.
type cohortReport struct {
	cohortSettings
	cohort.Summary
}

// cohortFlags are the flags whose names the cohort package's errors use
// for its parameters.
var cohortFlags = []string{"clients", "limit", "service", "outage", "spread", "horizon", "base", "cap", "wait", "seed", "seeds", "max-calls"}

// inRange reports whether lo <= v <= hi.
func inRange(v, lo, hi int) bool { return v >= lo && v <= hi }

// cohortTables names the lesson tables --table accepts.
var cohortTables = []string{"main", "caps", "spread", "no-outage", "overload", "all"}

func cohortMs(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func runCohort(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("cohort", cohortHelp, stderr)
	c := cohort.Lesson()
	policy := fs.String("policy", schedule.NameExponential, "retry policy: one of "+strings.Join(schedule.Names(), ", "))
	all := fs.Bool("all", false, "run the lesson's five policies ("+strings.Join(lineupNames(cohort.Lineup()), ", ")+"; ignores --policy) and print one row each")
	table := fs.String("table", "", "print a lesson table with the lesson's own settings: "+strings.Join(cohortTables, ", ")+
		" (only --seeds, --overload-seeds and --json apply)")
	fs.IntVar(&c.Clients, "clients", c.Clients, fmt.Sprintf("clients that each need one admitted call (1..%d)", cohort.MaxClients))
	fs.IntVar(&c.Limit, "limit", c.Limit, fmt.Sprintf("calls the dependency serves at once (1..%d)", cohort.MaxLimit))
	fs.DurationVar(&c.Service, "service", c.Service, "how long an admitted call holds its slot (whole ms, 1ms..24h)")
	fs.DurationVar(&c.Outage, "outage", c.Outage, "the dependency refuses every call before this time (whole ms, 0..24h; 0 = no outage)")
	fs.DurationVar(&c.Spread, "spread", c.Spread, "first attempts drawn uniformly over [0, spread) (whole ms, 0..24h; 0 = all at t=0)")
	fs.DurationVar(&c.Horizon, "horizon", c.Horizon, "nothing happens at or after this time; clients still waiting are unfinished (whole ms, 1ms..24h)")
	base := fs.Duration("base", cohort.DefaultBase, "first backoff window (> 0)")
	cp := fs.Duration("cap", cohort.DefaultCap, "largest backoff window (>= base)")
	wait := fs.Duration("wait", cohort.DefaultWait, "the constant policy's wait between tries (> 0)")
	flat := fs.Duration("flat", 0, "deprecated: use --wait")
	fs.Int64Var(&c.Seed, "seed", c.Seed, "first seed of the lessons' LCG; seeds seed..seed+seeds-1 are averaged (0 <= seed < 2^31)")
	seeds := fs.Int("seeds", cohort.DefaultSeeds, fmt.Sprintf("number of seeds to average over (1..%d)", cohort.MaxSeeds))
	overloadSeeds := fs.Int("overload-seeds", cohort.OverloadSeeds, "number of seeds for the overload table of --table")
	fs.IntVar(&c.MaxCalls, "max-calls", cohort.DefaultMaxCalls, "call budget of one run; a run making more calls is an error (1..2147483647)")
	asJSON := fs.Bool("json", false, "print JSON: one object of means (keys finish_ms, calls, calls_outage, calls_recovery, idle_ms, peak_per_100ms, unfinished, ...), an array with --all, the tables with --table")
	if status, ok := parseFlags(fs, args, stdout); !ok {
		return status
	}
	fail := func(format string, a ...any) int { return usageError(stderr, "cohort", format, a...) }
	// failLab reports a cohort package error in terms of the flags.
	failLab := func(err error) int {
		return fail("%s", withDashes(strings.TrimPrefix(err.Error(), "cohort: "), cohortFlags...))
	}

	if *table != "" {
		var extra []string
		fs.Visit(func(f *flag.Flag) {
			switch f.Name {
			case "table", "seeds", "overload-seeds", "json":
			default:
				extra = append(extra, "--"+f.Name)
			}
		})
		if len(extra) > 0 {
			return fail("%s cannot be combined with --table, which uses the lesson's own settings", strings.Join(extra, ", "))
		}
		return cohortTable(*table, *seeds, *overloadSeeds, *asJSON, stdout, stderr, fail, failLab)
	}

	fs.Visit(func(f *flag.Flag) {
		if f.Name == "flat" {
			fmt.Fprintln(stderr, "backofflab cohort: --flat is deprecated and will be removed in the next release: use --wait")
			*wait = *flat
		}
	})
	name, err := policyName("cohort", "--policy", *policy, schedule.NameExponential, stderr)
	if err != nil {
		return fail("%v", err)
	}
	names := []string{name}
	if *all {
		names = lineupNames(cohort.Lineup())
	}
	if inRange(c.Clients, 1, cohort.MaxClients) && inRange(*seeds, 1, cohort.MaxSeeds) {
		if w := float64(c.Clients) * float64(*seeds) * float64(len(names)); w > maxCohortWork {
			asked := []string{fmt.Sprintf("--clients %d", c.Clients), fmt.Sprintf("--seeds %d", *seeds)}
			if *all {
				asked = append(asked, fmt.Sprintf("--all (%d policies)", len(names)))
			}
			most := int(maxCohortWork / (float64(c.Clients) * float64(len(names))))
			advice := fmt.Sprintf("lower --seeds (at most %d here) or --clients", most)
			if most == 0 {
				advice = "lower --clients"
			}
			return tooMuchWork(stderr, "cohort", asked, w, maxCohortWork, "client-runs (clients × seeds × policies)", advice)
		}
	}
	var reports []cohortReport
	for _, name := range names {
		p, err := cohort.NewPolicy(name, *base, *cp, *wait)
		if err != nil {
			return failLab(err)
		}
		c.Policy = p
		s, err := cohort.Average(c, *seeds)
		if err != nil {
			return failLab(err)
		}
		reports = append(reports, cohortReport{cohortSettings{
			Policy: name, Clients: c.Clients, Limit: c.Limit, ServiceMs: cohortMs(c.Service), OutageMs: cohortMs(c.Outage),
			SpreadMs: cohortMs(c.Spread), HorizonMs: cohortMs(c.Horizon), BaseMs: cohortMs(*base), CapMs: cohortMs(*cp),
			WaitMs: cohortMs(*wait), Seed: c.Seed,
		}, s})
	}
	if *asJSON {
		var v any = reports
		if !*all {
			v = reports[0]
		}
		return writeJSON(stdout, stderr, "cohort", v)
	}
	fmt.Fprintf(stdout, "%d clients, limit %d, service %v, outage %v, spread %v, horizon %v; base %v, cap %v, constant wait %v; means over %d seeds from %d\n\n",
		c.Clients, c.Limit, c.Service, c.Outage, c.Spread, c.Horizon, *base, *cp, *wait, *seeds, c.Seed)
	rows := make([]cohort.Row, len(reports))
	for i, r := range reports {
		rows[i] = cohort.Row{Policy: r.Policy, Summary: r.Summary}
	}
	writeCohortRows(stdout, "policy", func(i int) string { return rows[i].Policy }, rows)
	return 0
}

// cohortTable prints one or all of the lesson's tables.
func cohortTable(name string, seeds, overloadSeeds int, asJSON bool, stdout, stderr io.Writer, fail func(string, ...any) int, failLab func(error) int) int {
	valid := false
	for _, n := range cohortTables {
		valid = valid || n == name
	}
	if !valid {
		return fail("unknown table %q: want one of %s", name, strings.Join(cohortTables, ", "))
	}
	if overloadSeeds < 1 || overloadSeeds > cohort.MaxSeeds {
		return fail("--overload-seeds %d out of range: want 1 <= --overload-seeds <= %d", overloadSeeds, cohort.MaxSeeds)
	}
	t, err := cohort.LessonTables(seeds, overloadSeeds)
	if err != nil {
		return failLab(err)
	}
	if asJSON {
		var v any = t
		switch name {
		case "main":
			v = t.Main
		case "caps":
			v = t.Caps
		case "spread":
			v = t.Spread
		case "no-outage":
			v = t.NoOutage
		case "overload":
			v = t.Overload
		}
		return writeJSON(stdout, stderr, "cohort", v)
	}
	show := func(n string) bool { return name == "all" || name == n }
	policyOf := func(rows cohort.Rows) func(int) string { return func(i int) string { return rows[i].Policy } }
	if show("main") {
		fmt.Fprintf(stdout, "Main: 60 clients, limit 8, 120 ms calls, 3 s outage (%d seeds)\n", seeds)
		writeCohortRows(stdout, "policy", policyOf(t.Main), t.Main)
	}
	if show("caps") {
		fmt.Fprintf(stdout, "\nCaps: the main setting with base 100 ms and each cap (%d seeds)\n", seeds)
		rows := make(cohort.Rows, len(t.Caps))
		for i, r := range t.Caps {
			rows[i] = r.Row
		}
		writeCohortRows(stdout, "cap / policy", func(i int) string { return fmt.Sprintf("%v %s", t.Caps[i].Cap, t.Caps[i].Policy) }, rows)
	}
	if show("spread") {
		fmt.Fprintf(stdout, "\nSpread: exponential, first attempts over a window (%d seeds)\n", seeds)
		tb := table.New("spread", "initial burst ms", "burst ms while whole", "waves whole", "finish ms")
		for _, r := range t.Spread {
			tb.Add(r.Spread, table.Num("%.1f", r.Initial), table.Num("%.1f", r.Held), r.HeldWaves, table.Num("%.0f", r.FinishMs))
		}
		fmt.Fprint(stdout, tb)
	}
	if show("no-outage") {
		fmt.Fprintf(stdout, "\nNo outage: the main setting with the dependency up from t=0 (%d seeds)\n", seeds)
		writeCohortRows(stdout, "policy", policyOf(t.NoOutage), t.NoOutage)
	}
	if show("overload") {
		fmt.Fprintf(stdout, "\nOverload: 240 clients, limit 4, 60 s horizon; work floor 7.2 s (%d seeds)\n", overloadSeeds)
		writeCohortRows(stdout, "policy", policyOf(t.Overload), t.Overload)
	}
	return 0
}

// writeCohortRows prints summaries as an aligned table, labelled by label(i).
func writeCohortRows(w io.Writer, head string, label func(int) string, rows cohort.Rows) {
	t := table.New(head, "finish ms", "calls", "outage", "recovery", "idle ms", "idle %", "peak/100ms", "peak/ms", "unfinished")
	for i, r := range rows {
		t.Add(label(i), table.Num("%.0f", r.FinishMs), table.Num("%.1f", r.Calls), table.Num("%.1f", r.CallsOutage),
			table.Num("%.1f", r.CallsRecovery), table.Num("%.0f", r.IdleMs), table.Num("%.1f", 100*r.IdleFraction),
			table.Num("%.1f", r.PeakPer100ms), table.Num("%.1f", r.PeakPerMs), table.Num("%.1f", r.Unfinished))
	}
	fmt.Fprint(w, t)
}

const cohortHelp = `usage: backofflab cohort [flags]

Simulates the In Phase lesson's cohort: N clients each need one admitted call
from a dependency that refuses everything during an outage and then admits a
call only while fewer than --limit calls are in flight. Refused clients wait
by their policy and retry. Prints the means over the seeds: finish time,
calls (during and after the outage), recovery time with nothing in flight
(idle), worst burst per 100 ms and per ms, unfinished clients.

  backofflab cohort --policy full --seeds 40 --json
  backofflab cohort --all --outage 0s
  backofflab cohort --table all --json
`
