package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/backofflab/backofflab/lab/contention"
	"github.com/backofflab/backofflab/lab/schedule"
	"github.com/backofflab/backofflab/lab/table"
)

func init() {
	register("contention", "N clients updating one row with optimistic concurrency (Contention lesson)", runContention)
}

// contentionReport is the --json output for one policy and client count.
type contentionReport struct {
	Policy        string  `json:"policy"`
	Clients       int     `json:"clients"`
	Runs          int     `json:"runs"`
	TimeMs        float64 `json:"time_ms"`
	Writes        float64 `json:"writes"`
	Reads         float64 `json:"reads"`
	Calls         float64 `json:"calls"`
	Counted       string  `json:"counted"`
	BaseMs        float64 `json:"base_ms"`
	CapMs         float64 `json:"cap_ms"`
	FirstExponent int     `json:"first_exponent"`
	NetMs         float64 `json:"net_ms"`
	NetSDMs       float64 `json:"net_sd_ms"`
	Seed          int64   `json:"seed"`
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// flagError rewrites a lab package's validation error for the command line:
// it drops the package prefix and names flags instead of Config fields.
func flagError(err error, prefix string, fields *strings.Replacer) string {
	return fields.Replace(strings.TrimPrefix(err.Error(), prefix))
}

// contentionFields maps contention.Config fields to their flags. Longer
// names come first, so that NetSD is not read as Net.
var contentionFields = strings.NewReplacer(
	"Clients", "--clients", "Policy", "--policy", "Base", "--base", "Cap", "--cap",
	"FirstExponent", "--first", "NetSD", "--net-sd", "Net", "--net", "Seed", "--seed", "runs", "--runs")

// legacySet is the first edition's name for --set wide, accepted for one
// release with a deprecation message.
const legacySet = "summary"

func runContention(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("contention", contentionHelp, stderr)
	c := contention.Lesson()
	fs.IntVar(&c.Clients, "clients", c.Clients, fmt.Sprintf("clients that each commit one update (1..%d)", contention.MaxClients))
	policy := fs.String("policy", c.Policy, "backoff policy: "+strings.Join(schedule.Names(), ", ")+" (immediate: retry at once)")
	all := fs.Bool("all", false, "run the lesson's five policies: "+strings.Join(contention.Policies(), ", ")+" (ignores --policy)")
	sweep := fs.Bool("sweep", false, "run 10, 20, ..., 190 clients (ignores --clients); with --all, Brooker's whole experiment")
	set := fs.String("set", "brooker", "parameter set the other flags start from: brooker (writes counted, hop sd 2ms) or wide (reads+writes counted, hop sd 4ms)")
	fs.DurationVar(&c.Base, "base", c.Base, "backoff base (> 0, at most 1m)")
	fs.DurationVar(&c.Cap, "cap", c.Cap, "backoff cap (base..1h)")
	fs.IntVar(&c.FirstExponent, "first", c.FirstExponent, fmt.Sprintf("exponent of the first retry's window: 1 = 2·base as in Brooker's simulator, 0 = base (0..%d)", contention.MaxFirst))
	fs.DurationVar(&c.Net, "net", c.Net, "mean one-way network delay (0..1s)")
	fs.DurationVar(&c.NetSD, "net-sd", c.NetSD, "standard deviation of the network delay (0..1s); each hop takes |Normal(net, net-sd)|")
	count := fs.String("count", "", "what counts as a call: writes or reads+writes (default: the set's)")
	runs := fs.Int("runs", 100, fmt.Sprintf("runs to average (1..%d)", contention.MaxRuns))
	fs.Int64Var(&c.Seed, "seed", c.Seed, "seed of the lessons' LCG; all runs draw from one stream (0 <= seed < 2^31)")
	asJSON := fs.Bool("json", false, "print JSON: an object of means (keys time_ms, writes, reads, calls, ...), an array with --all or --sweep")
	if status, ok := parseFlags(fs, args, stdout); !ok {
		return status
	}
	fail := func(format string, a ...any) int { return usageError(stderr, "contention", format, a...) }
	explicit := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { explicit[f.Name] = true })
	name, err := policyName("contention", "--policy", *policy, schedule.NameImmediate, stderr)
	if err != nil {
		return fail("%s", err)
	}
	c.Policy = name
	if *set == legacySet {
		fmt.Fprintf(stderr, "backofflab contention: --set %s is deprecated and will be removed in the next release: use wide\n", legacySet)
		*set = "wide"
	}
	switch *set {
	case "brooker":
	case "wide":
		w := c.WithWideSet()
		if !explicit["net-sd"] {
			c.NetSD = w.NetSD
		}
		c.Count = w.Count
	default:
		return fail("unknown --set %q: want brooker or wide", *set)
	}
	switch *count {
	case "":
	case "writes":
		c.Count = contention.Writes
	case "reads+writes":
		c.Count = contention.ReadsAndWrites
	default:
		return fail("unknown --count %q: want writes or reads+writes", *count)
	}

	clients, policies := []int{c.Clients}, []string{c.Policy}
	if *sweep {
		clients = contention.SweepClients()
	}
	if *all {
		policies = contention.Policies()
	}
	if inRange(*runs, 1, contention.MaxRuns) && inRange(c.Clients, 1, contention.MaxClients) {
		if w := contentionWork(clients, len(policies), *runs); w > maxContentionWork {
			var asked []string
			if *sweep {
				asked = append(asked, fmt.Sprintf("--sweep (%d to %d clients)", clients[0], clients[len(clients)-1]))
			} else {
				asked = append(asked, fmt.Sprintf("--clients %d", c.Clients))
			}
			if *all {
				asked = append(asked, fmt.Sprintf("--all (%d policies)", len(policies)))
			}
			asked = append(asked, fmt.Sprintf("--runs %d", *runs))
			advice := fmt.Sprintf("lower --runs (at most %d here)", int(maxContentionWork/(w/float64(*runs))))
			if !*sweep {
				advice += " or --clients"
			}
			return tooMuchWork(stderr, "contention", asked, w, maxContentionWork,
				"units of work (clients × (clients + 1000) per run and policy)", advice)
		}
	}
	means, err := contention.Sweep(c, clients, policies, *runs)
	if err != nil {
		return fail("%s", flagError(err, "contention: ", contentionFields))
	}
	reports := make([]contentionReport, len(means))
	for i, m := range means {
		mc := m.Config
		reports[i] = contentionReport{
			Policy: mc.Policy, Clients: mc.Clients, Runs: m.Runs, TimeMs: m.TimeMS(),
			Writes: m.Writes, Reads: m.Reads, Calls: m.Calls, Counted: mc.Count.String(),
			BaseMs: ms(mc.Base), CapMs: ms(mc.Cap), FirstExponent: mc.FirstExponent,
			NetMs: ms(mc.Net), NetSDMs: ms(mc.NetSD), Seed: mc.Seed,
		}
	}
	if *asJSON {
		var v any = reports
		if len(reports) == 1 {
			v = reports[0]
		}
		return writeJSON(stdout, stderr, "contention", v)
	}
	fmt.Fprintf(stdout, "base %v, cap %v, first window %v, hops |Normal(%v, %v)|, calls = %s; means over %d runs from seed %d\n\n",
		c.Base, c.Cap, c.Base<<c.FirstExponent, c.Net, c.NetSD, c.Count, *runs, c.Seed)
	t := table.New("policy", "clients", "time ms", "writes", "reads", "calls")
	for _, r := range reports {
		t.Add(r.Policy, r.Clients, table.Num("%.0f", r.TimeMs), table.Num("%.1f", r.Writes), table.Num("%.1f", r.Reads), table.Num("%.1f", r.Calls))
	}
	fmt.Fprint(stdout, t)
	return 0
}

const contentionHelp = `usage: backofflab contention [flags]

Simulates Brooker's optimistic-concurrency experiment: every client reads a
versioned row and writes it back; a write succeeds only if the version is
unchanged; a failed client backs off by its policy, reads again and retries
until it commits. Prints the means over the runs: time until the last commit
(ms), writes, reads, and calls (what --count counts). The defaults are
Brooker's parameters.

  backofflab contention --clients 100 --policy full --json
  backofflab contention --all --set wide
  backofflab contention --all --sweep --runs 100 --json
`
