package deadline_test

import (
	"fmt"
	"os"
	"text/tabwriter"
	"time"

	"github.com/backofflab/backofflab/lab/deadline"
)

// The lesson's comparison: the same 1000 requests, the same draws, three
// ways of treating the deadline.
func Example() {
	rs, err := deadline.Compare(deadline.Lesson())
	if err != nil {
		fmt.Println(err)
		return
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "mode\tattempts\twasted\tin time\tlate\tgave up")
	for _, r := range rs {
		fmt.Fprintf(tw, "%v\t%d\t%d\t%d\t%d\t%d\n", r.Mode, r.Attempts, r.Wasted, r.InTime, r.Late, r.GaveUp)
	}
	tw.Flush()
	fmt.Println("wasted attempts saved by checking before sleeping:", rs.Of(deadline.Oblivious).Wasted-rs.Of(deadline.CheckBeforeSleep).Wasted)
	// Output:
	// mode                attempts  wasted  in time  late  gave up
	// oblivious           3291      306     627      100   0
	// check on wake       3030      45      627      10    259
	// check before sleep  2953      0       624      0     307
	// wasted attempts saved by checking before sleeping: 306
}

// An optimistic worst case in the check lets some doomed attempts through.
func ExampleConfig_WithWorst() {
	c := deadline.Lesson().WithMode(deadline.CheckBeforeSleep)
	for _, worst := range []time.Duration{c.AttemptMax, 100 * time.Millisecond} {
		r, err := deadline.Run(c.WithWorst(worst))
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println("worst case", worst, "wasted", r.Wasted, "attempts")
	}
	// Output:
	// worst case 250ms wasted 0 attempts
	// worst case 100ms wasted 24 attempts
}

// The model is one short file; a lesson prints it with
// fmt.Print(deadline.Reference()).
func ExampleReference() {
	src := deadline.Reference()
	fmt.Println(src.Path, src.Lines() <= 200)
	// Output:
	// lab/deadline/reference.go true
}
