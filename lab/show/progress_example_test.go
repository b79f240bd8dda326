package show_test

import (
	"fmt"

	"github.com/backofflab/backofflab/lab/show"
)

// A long cell counts its work on a progress bar. In a notebook the bar is
// one output block redrawn in place; the notebook saves its last state.
func ExampleProgress() {
	bar, err := show.NewProgress("storms", 4, "storms")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, name := range []string{"exponential", "full jitter", "defaults", "tuned"} {
		bar.Doing(fmt.Sprintf("running %q", name))
		// … run the storm …
		if err := bar.Add(1); err != nil {
			fmt.Println(err)
			return
		}
	}
	fmt.Println(bar.Text())
	fmt.Println(bar.Add(1))
	// Output:
	// storms: 4 of 4 storms done
	// show: progress Add(1) with 4 of 4 storms done: want 0 <= n <= 0
}
