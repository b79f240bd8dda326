package explore_test

import (
	"fmt"

	"github.com/backofflab/backofflab/lab/cohort"
	"github.com/backofflab/backofflab/lab/explore"
)

// The jitter-width explorable holds one frame per width; its readouts are
// the lab's numbers for each run.
func ExampleJitterWidth() {
	e, err := explore.JitterWidth()
	if err != nil {
		panic(err)
	}
	fmt.Println(e.Controls[0].Label, len(e.Frames), "frames")
	fmt.Println(e.Frames[0].Readout)
	fmt.Println(e.Frames[20].Readout)
	// Output:
	// jitter width 21 frames
	// jitter width 0%: 3600 attempts, peak 3000/s (600 in one 200ms slot)
	// jitter width 100%: 3323 attempts, peak 925/s (185 in one 200ms slot)
}

// The In Phase board holds one frame per policy; each button notes the
// run's finish, calls and idle time, and the playhead steps over the
// shared ruler a bar of the calls panel at a time.
func ExampleInPhaseBoard() {
	e, err := explore.InPhaseBoard(cohort.Lesson(), cohort.Lineup())
	if err != nil {
		panic(err)
	}
	fmt.Println(len(e.Frames), "frames,", e.Playhead.Positions(), "playhead positions")
	fmt.Println(e.Controls[0].Values[1], "·", e.Controls[0].Notes[1])
	// Output:
	// 5 frames, 258 playhead positions
	// full jitter · 7.224s · 465 calls · idle 1.503s
}
