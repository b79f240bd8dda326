package main

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Bounds on the work one command line may ask for. Each flag is checked
// against its own range, but ranges multiply: contention --clients 5000
// --runs 100000, each in range, is about 1.7 hours on a 2-core machine.
// Each bound below is about ten minutes of work on such a machine, and a
// command line over it is refused before anything runs, with an error
// naming the flags to lower.
const (
	// maxContentionWork bounds contention's runs, weighted by their size:
	// the sum over runs of clients·(clients + 1000). A run of 5000 clients
	// takes about 0.1 s on a loaded 2-core machine, a run of 100 about
	// 0.5 ms (the lesson's five policies on average).
	maxContentionWork = 1e11
	// maxCohortWork bounds cohort's client-runs: clients × seeds ×
	// policies, about half a microsecond each (a single run is bounded by
	// its own call budget, --max-calls).
	maxCohortWork = 1e9
	// maxStormTime bounds storm's real time: every run can last until the
	// clients' deadline.
	maxStormTime = 30 * time.Minute
)

// contentionWork is the work of contention runs of the given client counts,
// each for every policy, runs times.
func contentionWork(clients []int, policies, runs int) float64 {
	per := 0.0
	for _, c := range clients {
		per += float64(c) * float64(c+1000)
	}
	return per * float64(policies) * float64(runs)
}

// tooMuchWork prints "backofflab CMD: <flags> make <work> <unit>, more
// than the <limit> one command may take (about ten minutes on a 2-core
// machine): <advice>", the flags joined as "a, b and c", and returns exit
// status 2.
func tooMuchWork(stderr io.Writer, cmd string, flags []string, work, limit float64, unit, advice string) int {
	asked := flags[len(flags)-1]
	if len(flags) > 1 {
		asked = strings.Join(flags[:len(flags)-1], ", ") + " and " + asked
	}
	return usageError(stderr, cmd, "%s make %.2g %s, more than the %.0g one command may take (about ten minutes on a 2-core machine): %s",
		asked, work, unit, limit, advice)
}

// plural returns "1 policy", "5 policies".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// withDashes rewrites the parameter names of a lab package's error message
// as the flags that set them: each flag's name, its dashes read as spaces
// ("max-calls" as "max calls"), becomes the flag ("--max-calls") wherever
// it stands as a whole word.
func withDashes(msg string, flags ...string) string {
	words := make([]string, len(flags))
	for i, f := range flags {
		words[i] = regexp.QuoteMeta(strings.ReplaceAll(f, "-", " "))
	}
	// Longer names first, so that "max calls" is tried before "max".
	slices.SortFunc(words, func(a, b string) int { return len(b) - len(a) })
	re := regexp.MustCompile(`\b(` + strings.Join(words, "|") + `)\b`)
	return re.ReplaceAllStringFunc(msg, func(w string) string { return "--" + strings.ReplaceAll(w, " ", "-") })
}
