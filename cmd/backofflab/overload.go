package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/backofflab/backofflab/lab/overload"
	"github.com/backofflab/backofflab/lab/table"
)

func init() {
	register("overload", "a server kept down by retries after a capacity dip (Overload lesson)", runOverload)
}

// overloadReport is the --json output of one run.
type overloadReport struct {
	Variant               string           `json:"variant"`
	Amplification         float64          `json:"amplification"`
	AmplificationAfterDip float64          `json:"amplification_after_dip"`
	Recovered             bool             `json:"recovered"`
	RecoveredMs           float64          `json:"recovered_ms"`
	Drained               bool             `json:"drained"`
	DrainedMs             float64          `json:"drained_ms"`
	Requests              int              `json:"requests"`
	Attempts              int              `json:"attempts"`
	Succeeded             int              `json:"succeeded"`
	Failed                int              `json:"failed"`
	InFlight              int              `json:"in_flight"`
	Wasted                int              `json:"wasted"`
	Refused               int              `json:"refused"`
	Paced                 int              `json:"paced"`
	FinalQueue            int              `json:"final_queue"`
	Seed                  int64            `json:"seed"`
	Timeline              []overloadSample `json:"timeline,omitempty"`
}

// overloadSample is one timeline point in --json output.
type overloadSample struct {
	StartMs  float64 `json:"start_ms"`
	Arrivals float64 `json:"arrivals"`
	Offered  float64 `json:"offered"`
	Goodput  float64 `json:"goodput"`
	Wasted   float64 `json:"wasted"`
	Refused  float64 `json:"refused"`
	Capacity float64 `json:"capacity"`
	Queue    int     `json:"queue"`
	Dip      bool    `json:"dip"`
}

// overloadFields maps overload.Config fields to their flags; longer names
// first.
var overloadFields = strings.NewReplacer(
	"Pacing.Above", "--pacing-above", "Pacing.Jitter", "--pacing-jitter",
	"DipStart", "--dip-start", "DipEnd", "--dip-end", "DipCapacity", "--dip-capacity", "MaxAttempts", "--attempts",
	"Tick", "--tick", "Duration", "--duration", "Rate", "--rate", "Capacity", "--capacity", "Timeout", "--timeout",
	"Sample", "--sample", "Seed", "--seed",
	"Budget: budget: ratio", "--budget-ratio", "Budget: budget: buckets", "--budget-buckets", "Budget: budget: width", "--budget-width",
	"Breaker: breaker: failures", "--breaker-failures", "Breaker: breaker: open timeout", "--breaker-open",
	"Breaker: breaker: max open timeout", "--breaker-max-open")

// noLimit names the variant without a budget, breaker or pacing, as the
// lesson's remedies (overload.Remedies) name it.
const noLimit = "no limit"

func runOverload(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("overload", overloadHelp, stderr)
	c := overload.Lesson()
	fs.DurationVar(&c.Tick, "tick", c.Tick, "simulation step (100µs..1s)")
	fs.DurationVar(&c.Duration, "duration", c.Duration, "simulated time (tick..1h, at most 1e6 ticks)")
	fs.Float64Var(&c.Rate, "rate", c.Rate, "new requests per second, Poisson (0..1e5; rate × duration <= 1e6)")
	fs.Float64Var(&c.Capacity, "capacity", c.Capacity, "queue entries served per second (> 0, <= 1e6)")
	fs.DurationVar(&c.Timeout, "timeout", c.Timeout, "a client gives up on an attempt after waiting this long (tick..duration)")
	fs.DurationVar(&c.DipStart, "dip-start", c.DipStart, "start of the capacity dip (0..duration)")
	fs.DurationVar(&c.DipEnd, "dip-end", c.DipEnd, "end of the capacity dip (dip-start..duration; = dip-start for no dip)")
	fs.Float64Var(&c.DipCapacity, "dip-capacity", c.DipCapacity, "fraction of capacity left during the dip (0..1)")
	fs.IntVar(&c.MaxAttempts, "attempts", c.MaxAttempts, fmt.Sprintf("attempts per request, the first included (1..%d)", overload.MaxAttemptsLimit))
	useBudget := fs.Bool("budget", false, "retry budget: retries at most --budget-ratio of the requests in the window")
	bud := *overload.Lesson().WithBudget().Budget
	fs.Float64Var(&bud.Ratio, "budget-ratio", bud.Ratio, "budget: retries per request allowed (0 < ratio <= 1); implies --budget")
	fs.IntVar(&bud.Buckets, "budget-buckets", bud.Buckets, "budget: buckets in the sliding window (1..3600); implies --budget")
	fs.DurationVar(&bud.Width, "budget-width", bud.Width, "budget: time one bucket covers (1µs..1h); implies --budget")
	useBreaker := fs.Bool("breaker", false, "circuit breaker in front of all clients")
	brk := *overload.Lesson().WithBreaker().Breaker
	fs.IntVar(&brk.Failures, "breaker-failures", brk.Failures, "breaker: consecutive timed-out attempts that open it (1..1e6); implies --breaker")
	fs.DurationVar(&brk.OpenTimeout, "breaker-open", brk.OpenTimeout, "breaker: shortest open time (1µs..24h); implies --breaker")
	fs.DurationVar(&brk.MaxOpenTimeout, "breaker-max-open", brk.MaxOpenTimeout, "breaker: longest open time, jittered in between (breaker-open..24h); implies --breaker")
	usePacing := fs.Bool("pacing", false, "server-side pacing: Retry-After with server jitter when the backlog is long")
	pace := *overload.Lesson().WithPacing().Pacing
	fs.DurationVar(&pace.Above, "pacing-above", pace.Above, "pacing: backlog (queue / capacity) beyond which the server paces (0..1h); implies --pacing")
	fs.DurationVar(&pace.Jitter, "pacing-jitter", pace.Jitter, "pacing: Retry-After = backlog + uniform [0, jitter) (0..1h); implies --pacing")
	all := fs.Bool("all", false, "run the four variants: no limit, budget, breaker, pacing (ignores --budget, --breaker, --pacing)")
	fs.DurationVar(&c.Sample, "sample", c.Sample, "timeline resolution (a whole number of ticks)")
	timeline := fs.Bool("timeline", false, "include the timeline (per --sample: offered load, goodput, queue, ...)")
	fs.Int64Var(&c.Seed, "seed", c.Seed, "seed of the lessons' LCG (0 <= seed < 2^31)")
	asJSON := fs.Bool("json", false, "print JSON: an object with amplification, recovered, recovered_ms, drained, drained_ms, ... (an array with --all)")
	if status, ok := parseFlags(fs, args, stdout); !ok {
		return status
	}
	fail := func(format string, a ...any) int { return usageError(stderr, "overload", format, a...) }
	// 0 means "the default" to retry/budget and retry/breaker; on the command
	// line it is outside the ranges the help states.
	if status, ok := refuseZero(fs, stderr, "budget-ratio", "budget-buckets", "budget-width",
		"breaker-failures", "breaker-open", "breaker-max-open"); !ok {
		return status
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if given["breaker-open"] && !given["breaker-max-open"] && brk.MaxOpenTimeout < brk.OpenTimeout {
		return fail("--breaker-open %v out of range: want at most --breaker-max-open (default %v), or give --breaker-max-open too", brk.OpenTimeout, brk.MaxOpenTimeout)
	}
	fs.Visit(func(f *flag.Flag) {
		switch {
		case strings.HasPrefix(f.Name, "budget-"):
			*useBudget = true
		case strings.HasPrefix(f.Name, "breaker-"):
			*useBreaker = true
		case strings.HasPrefix(f.Name, "pacing-"):
			*usePacing = true
		}
	})
	type variant struct {
		name string
		c    overload.Config
	}
	with := func(b, k, p bool) overload.Config {
		v := c
		if b {
			v.Budget = &bud
		}
		if k {
			v.Breaker = &brk
		}
		if p {
			v.Pacing = &pace
		}
		return v
	}
	var variants []variant
	if *all {
		variants = []variant{{noLimit, with(false, false, false)}, {"budget", with(true, false, false)},
			{"breaker", with(false, true, false)}, {"pacing", with(false, false, true)}}
	} else {
		var parts []string
		for _, p := range []struct {
			on   bool
			name string
		}{{*useBudget, "budget"}, {*useBreaker, "breaker"}, {*usePacing, "pacing"}} {
			if p.on {
				parts = append(parts, p.name)
			}
		}
		name := noLimit
		if len(parts) > 0 {
			name = strings.Join(parts, "+")
		}
		variants = []variant{{name, with(*useBudget, *useBreaker, *usePacing)}}
	}
	reports := make([]overloadReport, 0, len(variants))
	for _, v := range variants {
		r, err := overload.Run(v.c)
		if err != nil {
			return fail("%s", flagError(err, "overload: ", overloadFields))
		}
		rep := overloadReport{
			Variant: v.name, Amplification: r.Amplification, AmplificationAfterDip: r.AmplificationAfterDip,
			Recovered: r.Recovered, RecoveredMs: ms(r.RecoveredAfter), Drained: r.Drained, DrainedMs: ms(r.DrainedAfter),
			Requests: r.Requests, Attempts: r.Attempts, Succeeded: r.Succeeded, Failed: r.Failed, InFlight: r.InFlight,
			Wasted: r.Wasted, Refused: r.Refused, Paced: r.Paced, FinalQueue: r.FinalQueue, Seed: v.c.Seed,
		}
		if *timeline {
			for _, p := range r.Timeline {
				rep.Timeline = append(rep.Timeline, overloadSample{ms(p.Start), p.Arrivals, p.Offered, p.Goodput, p.Wasted, p.Refused, p.Capacity, p.Queue, p.Dip})
			}
		}
		reports = append(reports, rep)
	}
	if *asJSON {
		var v any = reports
		if !*all {
			v = reports[0]
		}
		return writeJSON(stdout, stderr, "overload", v)
	}
	fmt.Fprintf(stdout, "%g requests/s against %g/s, timeout %v, capacity ×%g from %v to %v, %d attempts, %v; seed %d\n\n",
		c.Rate, c.Capacity, c.Timeout, c.DipCapacity, c.DipStart, c.DipEnd, c.MaxAttempts, c.Duration, c.Seed)
	t := table.New("variant", "amplification", "after dip", "recovered ms", "drained ms", "failed", "wasted", "refused", "paced", "final queue")
	when := func(ok bool, v float64) table.Cell {
		if !ok {
			return table.Num("never")
		}
		return table.Num("%.0f", v)
	}
	for _, r := range reports {
		t.Add(r.Variant, table.Num("%.3f", r.Amplification), table.Num("%.3f", r.AmplificationAfterDip),
			when(r.Recovered, r.RecoveredMs), when(r.Drained, r.DrainedMs), r.Failed, r.Wasted, r.Refused, r.Paced, r.FinalQueue)
	}
	fmt.Fprint(stdout, t)
	if *timeline {
		for _, r := range reports {
			fmt.Fprintf(stdout, "\n%s: per %v\n", r.Variant, c.Sample)
			t := table.New("t ms", "offered/s", "goodput/s", "wasted/s", "queue", "dip")
			for _, p := range r.Timeline {
				dip := ""
				if p.Dip {
					dip = "dip"
				}
				t.Add(table.Num("%.0f", p.StartMs), table.Num("%.0f", p.Offered), table.Num("%.0f", p.Goodput), table.Num("%.0f", p.Wasted), p.Queue, dip)
			}
			fmt.Fprint(stdout, t)
		}
	}
	return 0
}

const overloadHelp = `usage: backofflab overload [flags]

Simulates a FIFO server with Poisson arrivals, client timeouts and a capacity
dip. A client that times out retries at once, up to --attempts; the server
still serves the entries whose clients gave up. Without a limit on retries
the default setting never recovers from its 3 s dip. Prints amplification
(attempts reaching the server per request), whether and when goodput came
back after the dip (recovered_ms, from the end of the dip), when the queue
drained, and the request counts.

  backofflab overload --json
  backofflab overload --budget --json
  backofflab overload --all
  backofflab overload --budget --timeline --sample 1s --json
`
