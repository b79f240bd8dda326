package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/backofflab/backofflab/lab/crashloop"
	"github.com/backofflab/backofflab/lab/deadline"
	"github.com/backofflab/backofflab/lab/layered"
	"github.com/backofflab/backofflab/lab/metrics"
	"github.com/backofflab/backofflab/lab/schedule"
	"github.com/backofflab/backofflab/lab/synchronisers"
	"github.com/backofflab/backofflab/lab/synchrony"
	"github.com/backofflab/backofflab/lab/table"
)

func init() {
	register("strategies", "jitter strategies after a shared failure, the deadline check, other synchronisers (Strategies lesson)", runStrategies)
}

// strategiesTables names the tables --table accepts.
var strategiesTables = []string{"cohort", "deadline", "synchronisers", "failures", "all"}

// strategiesCohortFlags are the flags that set the cohort table's run; the
// other tables use the lesson's settings and reject them.
var strategiesCohortFlags = []string{"clients", "policies", "base", "cap", "outage", "horizon", "spread", "max-attempts", "slot", "seed", "same-seed"}

// strategiesSettings echoes the settings of the cohort table in --json.
type strategiesSettings struct {
	Clients     int      `json:"clients"`
	Policies    []string `json:"policies"`
	BaseMs      float64  `json:"base_ms"`
	CapMs       float64  `json:"cap_ms"`
	OutageMs    float64  `json:"outage_ms"`
	HorizonMs   float64  `json:"horizon_ms"`
	SpreadMs    float64  `json:"spread_ms"`
	MaxAttempts int      `json:"max_attempts"`
	SlotMs      float64  `json:"slot_ms"`
	Seed        int64    `json:"seed"`
	SameSeed    bool     `json:"same_seed"`
}

// strategiesRow is one policy's line of the cohort table in --json.
type strategiesRow struct {
	Policy             string   `json:"policy"`
	Attempts           int      `json:"attempts"`
	Retries            int      `json:"retries"`
	FirstPeak          int      `json:"first_peak"`
	RetryPeak          int      `json:"retry_peak"`
	RetryPeakPerSecond float64  `json:"retry_peak_per_second"`
	RetryPeakAtMs      float64  `json:"retry_peak_at_ms"`
	CV                 *float64 `json:"cv"` // of the retries; null when undefined
	Recovered          int      `json:"recovered"`
	LastSuccessMs      float64  `json:"last_success_ms"`
}

// deadlineRow is one mode's line of the deadline table in --json.
type deadlineRow struct {
	Mode        string  `json:"mode"`
	Requests    int     `json:"requests"`
	Attempts    int     `json:"attempts"`
	Wasted      int     `json:"wasted"`
	WastedShare float64 `json:"wasted_share"`
	InTime      int     `json:"in_time"`
	Late        int     `json:"late"`
	GaveUp      int     `json:"gave_up"`
	Exhausted   int     `json:"exhausted"`
}

// syncRow is one synchroniser at one offset in --json.
type syncRow struct {
	Source        string   `json:"source"`
	Offset        float64  `json:"offset"`
	Events        int      `json:"events"`
	Peak          int      `json:"peak"`
	SlotMs        float64  `json:"slot_ms"`
	PeakPerSecond float64  `json:"peak_per_second"`
	CV            *float64 `json:"cv"` // null when undefined
}

// layeredRow is the lesson's cohort under full jitter with an inner layer
// of Inner immediate attempts, in --json.
type layeredRow struct {
	Inner         int      `json:"inner"`
	Attempts      int      `json:"attempts"`
	Retries       int      `json:"retries"`
	RetryPeak     int      `json:"retry_peak"`
	RetryPeakAtMs float64  `json:"retry_peak_at_ms"`
	CV            *float64 `json:"cv"` // of the retries; null when undefined
}

// warmupRow is one run of the crash-loop model in --json.
type warmupRow struct {
	Policy       string   `json:"policy"`
	Gate         bool     `json:"gate"`
	Restarts     int      `json:"restarts"`
	WarmMs       *float64 `json:"warm_ms"` // null: never warm
	Served       int      `json:"served"`
	LastServedMs float64  `json:"last_served_ms"`
	Attempts     int      `json:"attempts"`
}

// strategiesReport is the --json output; only the tables asked for are set.
type strategiesReport struct {
	Settings      *strategiesSettings `json:"settings,omitempty"`
	Cohort        []strategiesRow     `json:"cohort,omitempty"`
	Deadline      []deadlineRow       `json:"deadline,omitempty"`
	Synchronisers []syncRow           `json:"synchronisers,omitempty"`
	Layered       []layeredRow        `json:"layered,omitempty"`
	Warmup        []warmupRow         `json:"warmup,omitempty"`
}

func strategiesMs(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// definedCV returns a pointer to cv, or nil when it is undefined (NaN),
// which JSON cannot carry.
func definedCV(cv float64) *float64 {
	if math.IsNaN(cv) {
		return nil
	}
	return &cv
}

func runStrategies(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("strategies", strategiesHelp, stderr)
	c := synchrony.Lesson()
	lessonNames := lineupNames(synchrony.Lineup())
	which := fs.String("table", "cohort", "table to print: "+strings.Join(strategiesTables, ", ")+" (all but cohort use the lesson's settings)")
	fs.IntVar(&c.Clients, "clients", c.Clients, fmt.Sprintf("clients that fail together (1..%d)", synchrony.MaxParticipants))
	policies := fs.String("policies", strings.Join(lessonNames, ","), "comma-separated policies, some of: "+strings.Join(lessonNames, ", "))
	base := fs.Duration("base", synchrony.LessonBase, "first backoff window (> 0)")
	cp := fs.Duration("cap", synchrony.LessonCap, "largest backoff window (>= base; 0 = uncapped)")
	fs.DurationVar(&c.Outage, "outage", c.Outage, "the dependency refuses attempts before this time and answers after it (0..24h)")
	fs.DurationVar(&c.Horizon, "horizon", c.Horizon, "no attempt is made at or after this time (> 0, ..24h)")
	fs.DurationVar(&c.Spread, "spread", c.Spread, "first attempts drawn uniformly over [0, spread) (0..24h; 0 = all at t=0)")
	fs.IntVar(&c.MaxAttempts, "max-attempts", c.MaxAttempts, "attempts per client, the first included (0 = no limit but the horizon)")
	slot := fs.Duration("slot", synchrony.LessonSlot, "slot width of the peaks (> 0)")
	fs.Int64Var(&c.Seed, "seed", c.Seed, "seed of the lessons' LCG (0 <= seed < 2^31)")
	fs.BoolVar(&c.SameSeed, "same-seed", false, "restart the generator from --seed for every client, as a fleet seeded from one constant")
	asJSON := fs.Bool("json", false, `print JSON: {"settings", "cohort": [{"policy", "retry_peak", "cv", ...}]}, or the "deadline", "synchronisers", "layered" and "warmup" tables`)
	if status, ok := parseFlags(fs, args, stdout); !ok {
		return status
	}
	fail := func(format string, a ...any) int { return usageError(stderr, "strategies", format, a...) }

	var want map[string]bool
	switch *which {
	case "cohort", "deadline", "synchronisers", "failures":
		want = map[string]bool{*which: true}
	case "all":
		want = map[string]bool{"cohort": true, "deadline": true, "synchronisers": true, "failures": true}
	default:
		return fail("--table %q: want one of %s", *which, strings.Join(strategiesTables, ", "))
	}
	if !want["cohort"] {
		var extra []string
		fs.Visit(func(f *flag.Flag) {
			for _, name := range strategiesCohortFlags {
				if f.Name == name {
					extra = append(extra, "--"+name)
				}
			}
		})
		if len(extra) > 0 {
			return fail("%s set the cohort table's run: --table %s uses the lesson's settings", strings.Join(extra, ", "), *which)
		}
	}

	var rep strategiesReport
	var rows synchrony.Rows
	if want["cohort"] {
		if *slot <= 0 {
			return fail("--slot %v out of range: want slot > 0", *slot)
		}
		var lineup []schedule.Named
		var names []string
		var given []string
		for _, v := range strings.Split(*policies, ",") {
			if strings.TrimSpace(v) != "" {
				given = append(given, v)
			}
		}
		if len(given) == 0 {
			return fail("--policies is empty: want some of %s", strings.Join(lessonNames, ", "))
		}
		valid, err := policyNames("strategies", "--policies", strings.Join(given, ","), schedule.NameExponential, stderr)
		if err != nil {
			return fail("%v", err)
		}
		for _, name := range valid {
			if !slices.Contains(lessonNames, name) {
				return fail("--policies: %q is not one of the lesson's policies: want some of %s", name, strings.Join(lessonNames, ", "))
			}
			p, err := schedule.New(schedule.Config{Name: name, Base: *base, Cap: *cp})
			if err != nil {
				return fail("%s", strategiesFlagNames(err))
			}
			lineup = append(lineup, schedule.Named{Name: name, Policy: p})
			names = append(names, name)
		}
		c.Policy = lineup[0].Policy
		if err := c.Validate(); err != nil {
			return fail("%s", strategiesFlagNames(err))
		}
		if n := (c.Horizon-1) / *slot + 1; n > metrics.MaxSlots {
			return fail("--slot %v out of range for --horizon %v: %d slots, want at most %d", *slot, c.Horizon, n, metrics.MaxSlots)
		}
		rows, err = synchrony.Table(c, lineup, *slot)
		if errors.Is(err, synchrony.ErrTooManyEvents) {
			return fail("%v: lower --clients or --horizon, or set --max-attempts", err)
		}
		if err != nil {
			return runError(stderr, "strategies", err)
		}
		rep.Settings = &strategiesSettings{
			Clients: c.Clients, Policies: names, BaseMs: strategiesMs(*base), CapMs: strategiesMs(*cp),
			OutageMs: strategiesMs(c.Outage), HorizonMs: strategiesMs(c.Horizon), SpreadMs: strategiesMs(c.Spread),
			MaxAttempts: c.MaxAttempts, SlotMs: strategiesMs(*slot), Seed: c.Seed, SameSeed: c.SameSeed,
		}
		for _, r := range rows {
			rep.Cohort = append(rep.Cohort, strategiesRow{
				Policy: r.Policy, Attempts: r.Attempts, Retries: r.Retries, FirstPeak: r.First.Count,
				RetryPeak: r.Peak.Count, RetryPeakPerSecond: r.Peak.PerSecond(), RetryPeakAtMs: strategiesMs(r.Peak.At()),
				CV: definedCV(r.CV), Recovered: r.Recovered, LastSuccessMs: strategiesMs(r.Last),
			})
		}
	}
	var results []deadline.Result
	if want["deadline"] {
		var err error
		if results, err = deadline.Compare(deadline.Lesson()); err != nil {
			return runError(stderr, "strategies", err)
		}
		for i, r := range results {
			rep.Deadline = append(rep.Deadline, deadlineRow{
				Mode: deadline.Modes()[i].String(), Requests: r.Requests, Attempts: r.Attempts, Wasted: r.Wasted,
				WastedShare: r.WastedShare(), InTime: r.InTime, Late: r.Late, GaveUp: r.GaveUp, Exhausted: r.Exhausted,
			})
		}
	}
	var syncRows synchronisers.Rows
	if want["synchronisers"] {
		var err error
		if syncRows, err = synchronisers.Table(synchronisers.Synchronisers(), synchronisers.LessonOffsets); err != nil {
			return runError(stderr, "strategies", err)
		}
		for _, r := range syncRows {
			rep.Synchronisers = append(rep.Synchronisers, syncRow{
				Source: r.Name, Offset: r.Offset, Events: r.Events, Peak: r.Peak.Count, SlotMs: strategiesMs(r.Peak.Width),
				PeakPerSecond: r.Peak.PerSecond(), CV: definedCV(r.CV),
			})
		}
	}
	if want["failures"] {
		var err error
		if rep.Layered, rep.Warmup, err = strategiesFailures(); err != nil {
			return runError(stderr, "strategies", err)
		}
	}

	if *asJSON {
		return writeJSON(stdout, stderr, "strategies", rep)
	}
	sep := ""
	if want["cohort"] {
		same := ""
		if c.SameSeed {
			same = ", one seed for all clients"
		}
		fmt.Fprintf(stdout, "%d clients fail together; outage %v, horizon %v, base %v, cap %v, spread %v, seed %d%s\n\n",
			c.Clients, c.Outage, c.Horizon, *base, *cp, c.Spread, c.Seed, same)
		fmt.Fprint(stdout, rows.Table())
		sep = "\n"
	}
	if want["deadline"] {
		fmt.Fprintf(stdout, "%sthe deadline check (lab/deadline's lesson setting):\n\n", sep)
		t := table.New("mode", "attempts", "wasted", "in time", "late", "gave up", "exhausted")
		for i, r := range results {
			t.Add(deadline.Modes()[i].String(), r.Attempts, r.Wasted, r.InTime, r.Late, r.GaveUp, r.Exhausted)
		}
		fmt.Fprint(stdout, t)
		sep = "\n"
	}
	if want["synchronisers"] {
		fmt.Fprintf(stdout, "%sother synchronisers, with a random offset of a fraction of the natural interval:\n\n", sep)
		fmt.Fprint(stdout, syncRows.Table())
		sep = "\n"
	}
	if want["failures"] {
		fmt.Fprintf(stdout, "%san inner layer retrying at once beneath full jitter (5 ms apart):\n\n", sep)
		ms := func(v float64) time.Duration {
			return time.Duration(v * float64(time.Millisecond)).Round(time.Millisecond)
		}
		t := table.New("inner attempts", "attempts", "retries", "retry peak per 10ms", "at", "CV")
		for _, r := range rep.Layered {
			t.Add(r.Inner, r.Attempts, r.Retries, r.RetryPeak, ms(r.RetryPeakAtMs), table.Num("%s", formatCVPtr(r.CV)))
		}
		fmt.Fprint(stdout, t)
		fmt.Fprintf(stdout, "\nan instance restarted into the cohort's retries (the crash loop):\n\n")
		t = table.New("policy", "readiness gate", "restarts", "warm at", "clients served", "last served", "attempts")
		for _, r := range rep.Warmup {
			warm := table.Num("never")
			if r.WarmMs != nil {
				warm = table.Num("%v", ms(*r.WarmMs))
			}
			t.Add(r.Policy, table.Num("%v", r.Gate), r.Restarts, warm, r.Served, ms(r.LastServedMs), r.Attempts)
		}
		fmt.Fprint(stdout, t)
	}
	return 0
}

// strategiesFailures runs lesson 08's two failure modes: the layered
// immediate retry (lesson cohort, full jitter, an inner layer of 1 and 3
// attempts 5 ms apart) and the crash loop (crashloop.Lesson without
// jitter and with full jitter, each without and with a readiness gate).
func strategiesFailures() ([]layeredRow, []warmupRow, error) {
	lineup := synchrony.Lineup()
	full := synchrony.Lesson().WithPolicy(lineup[1].Policy)
	var layers []layeredRow
	for _, inner := range []int{1, 3} {
		a, err := layered.Config{Cohort: full, Inner: inner, Gap: 5 * time.Millisecond}.Arrivals()
		if err != nil {
			return nil, nil, err
		}
		r, err := metrics.Measure(metrics.Times(a.Retries().Times()), synchrony.LessonSlot)
		if err != nil {
			return nil, nil, err
		}
		layers = append(layers, layeredRow{Inner: inner, Attempts: len(a), Retries: r.Events,
			RetryPeak: r.Peak.Count, RetryPeakAtMs: strategiesMs(r.Peak.At()), CV: definedCV(r.CV)})
	}
	var warmup []warmupRow
	for _, p := range lineup[:2] {
		for _, gate := range []bool{false, true} {
			r, err := crashloop.Run(crashloop.Lesson(p.Policy, gate))
			if err != nil {
				return nil, nil, err
			}
			row := warmupRow{Policy: p.Name, Gate: gate, Restarts: r.Restarts, Served: r.Served,
				LastServedMs: strategiesMs(r.Last), Attempts: r.Attempts}
			if r.Warm > 0 {
				ms := strategiesMs(r.Warm)
				row.WarmMs = &ms
			}
			warmup = append(warmup, row)
		}
	}
	return layers, warmup, nil
}

// formatCVPtr prints a CV with two decimals, or "undefined" for nil.
func formatCVPtr(cv *float64) string {
	if cv == nil {
		return "undefined"
	}
	return fmt.Sprintf("%.2f", *cv)
}

// strategiesFlagNames rewrites a lab error's parameter names as the flags
// that set them.
func strategiesFlagNames(err error) string {
	return strings.NewReplacer(
		"synchrony: clients", "--clients", "synchrony: outage", "--outage", "synchrony: horizon", "--horizon",
		"synchrony: spread", "--spread", "synchrony: max attempts", "--max-attempts", "synchrony: seed", "--seed",
		"schedule: base", "--base", "schedule: cap", "--cap", "schedule: unknown policy name", "--policies: unknown policy",
	).Replace(err.Error())
}

const strategiesHelp = `usage: backofflab strategies [flags]

Reproduces the tables of the Strategies lesson (notebook 07) and of
Deadlines, the cap and other clocks (notebook 08).

--table cohort (the default): N clients fail together at t = 0 against a
dependency that refuses every attempt before --outage and answers every one
after it. Each client retries by its policy; its attempts are at the running
sums of its waits. For each policy: attempts, retries, the first attempts'
peak (in step whatever the policy), the retries' peak per --slot, the CV of
the gaps between retries (about 0 evenly spaced, about 1 independent, far
above 1 bursts), clients recovered and the last success.

--table deadline: 1000 requests with a 2 s budget through a 5 s outage, under
three ways of treating the deadline; wasted attempts are those that end
after it. --table synchronisers: cron, TTLs, rolling restarts and a partition
heal with offsets of 0, 1, 20 and 100 % of their natural interval.
--table failures: an inner layer that retries at once beneath full jitter,
and an instance restarted into the cohort's retries with and without a
readiness gate (the crash loop).

  backofflab strategies --json
  backofflab strategies --policies exponential,full --clients 600 --slot 1ms
  backofflab strategies --table all
`
