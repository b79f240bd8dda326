package waves_test

import (
	"fmt"
	"time"

	"github.com/janpfeifer/must"

	"github.com/backofflab/backofflab/lab/metrics"
	"github.com/backofflab/backofflab/lab/waves"
)

// The lesson's table: the same 600 clients and seed, three jitter widths.
// The peak falls with the width; the total barely moves.
func Example() {
	for _, w := range []float64{0, 0.5, 1} {
		r, err := waves.Run(waves.Lesson().WithJitter(w))
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("jitter %3.0f%%: %4d attempts, peak %v\n", 100*w, r.Total, r.Peak())
	}
	// Output:
	// jitter   0%: 3600 attempts, peak 3000/s (600 in 200ms at 1s)
	// jitter  50%: 3600 attempts, peak 1240/s (248 in 200ms at 800ms)
	// jitter 100%: 3323 attempts, peak 925/s (185 in 200ms at 1.2s)
}

// Why the full-width total is below 3600: some clients succeed one attempt
// early, and some sixth attempts fall past the 40 s window.
func ExampleResult() {
	c := waves.Lesson().WithJitter(1)
	r, _ := waves.Run(c)
	fmt.Println("planned:              ", r.Planned())
	fmt.Println("after early successes:", r.Planned()-r.SkippedAfterSuccess)
	fmt.Println("after the window:     ", r.Planned()-r.SkippedAfterSuccess-r.SkippedPastWindow)
	// Output:
	// planned:               3600
	// after early successes: 3437
	// after the window:      3323
}

// Count once at 1 ms, then read the peak at any wider slot: without jitter
// the spike is 600 attempts in one millisecond, and every wider slot
// understates it.
func ExampleModel_Histogram() {
	m, _ := waves.New(waves.Lesson())
	fine, _ := m.Histogram(time.Millisecond)
	widths := []time.Duration{time.Millisecond, 10 * time.Millisecond, 200 * time.Millisecond, time.Second}
	peaks, _ := metrics.PeakSweep(fine, widths)
	for _, p := range peaks {
		fmt.Println(p)
	}
	// Output:
	// 600000/s (600 in 1ms at 1s)
	// 60000/s (600 in 10ms at 1s)
	// 3000/s (600 in 200ms at 1s)
	// 600/s (600 in 1s at 1s)
}

// Each attempt, in client-major order, with what became of it. At full
// width neighbouring bands overlap ([0.5d, 1.5d) and [d, 3d)), so a
// client's attempt can come before its previous one: the model places
// each attempt relative to the shared failure, not to the previous one.
func ExampleModel_Attempts() {
	c := waves.Lesson().WithJitter(1)
	m, _ := waves.New(c)
	for a := range m.Attempts() {
		if a.Client > 0 {
			break
		}
		fmt.Printf("client %d attempt %d at %v: %v\n", a.Client, a.N, a.At.Round(time.Millisecond), a.Outcome)
	}
	// Output:
	// client 0 attempt 1 at 1.072s: failed
	// client 0 attempt 2 at 2.266s: failed
	// client 0 attempt 3 at 5.61s: failed
	// client 0 attempt 4 at 5.311s: failed
	// client 0 attempt 5 at 9.423s: failed
	// client 0 attempt 6 at 25.479s: succeeded
}

// The lesson's jitter widths side by side: the peak falls as the band
// widens; the total starts to fall once bands reach past the outage and
// the window.
func ExampleResults_Table() {
	rs, err := waves.RunEach(waves.Lesson().EachJitter(waves.JitterWidths()...))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(rs.Table())
	// Output:
	// run          planned  done early  past window  counted  peak
	// no jitter       3600           0            0     3600  3000/s (600 in 200ms at 1s)
	// jitter 25%      3600           0            0     3600  1540/s (308 in 200ms at 800ms)
	// jitter 50%      3600           0            0     3600  1240/s (248 in 200ms at 800ms)
	// jitter 75%      3600         113           91     3396  1015/s (203 in 200ms at 1.2s)
	// jitter 100%     3600         163          114     3323  925/s (185 in 200ms at 1.2s)
}

// One run measured at every slot width from 1 ms to 1 s: without jitter
// the count in the fullest slot never changes, so the reported rate falls
// in proportion to the width.
func ExampleSweepSlots() {
	synced, _ := waves.SweepSlots(waves.Lesson(), waves.SlotWidths())
	jittered, _ := waves.SweepSlots(waves.Lesson().WithJitter(1), waves.SlotWidths())
	t, _ := waves.SlotSweeps{synced, jittered}.Table()
	fmt.Print(t)
	// Output:
	// slot       no jitter  jitter 100%
	//   1ms  600000/s (600)   6000/s (6)
	//   2ms  300000/s (600)   4500/s (9)
	//   5ms  120000/s (600)  2200/s (11)
	//  10ms   60000/s (600)  1400/s (14)
	//  20ms   30000/s (600)  1300/s (26)
	//  50ms   12000/s (600)   980/s (49)
	// 100ms    6000/s (600)   950/s (95)
	// 200ms    3000/s (600)  925/s (185)
	// 500ms    1200/s (600)  862/s (431)
	//    1s     600/s (600)  581/s (581)
}

// A run's label names what differs from the lesson's run.
func ExampleConfig_Label() {
	fmt.Println(waves.Lesson().Label())
	fmt.Println(waves.Exercise().Label())
	// Output:
	// no jitter
	// 2000 clients, outage 30s, jitter 100%
}

// The 2000-client exercise: jitter cuts the peak by 3.25 and it is still
// 2.56 times the recovering service's capacity.
func ExampleExercise() {
	jittered, _ := waves.Run(waves.Exercise())
	synced, _ := waves.Run(waves.Exercise().WithJitter(0))
	fmt.Println("without jitter:", synced.Peak())
	fmt.Println("with jitter:   ", jittered.Peak())
	fmt.Printf("cut ×%.2f, %g × capacity\n",
		synced.Peak().PerSecond()/jittered.Peak().PerSecond(),
		jittered.Peak().PerSecond()/waves.ExerciseCapacity)
	// Output:
	// without jitter: 10000/s (2000 in 200ms at 1s)
	// with jitter:    3075/s (615 in 200ms at 1.2s)
	// cut ×3.25, 2.5625 × capacity
}

// The same run over many seeds: the lessons' seed gives a typical peak,
// not a lucky one.
func ExampleRunEach() {
	c := waves.Lesson().WithJitter(1)
	rs, err := waves.RunEach(c.EachSeed(waves.Seeds(200)...))
	if err != nil {
		fmt.Println(err)
		return
	}
	peaks := make([]float64, len(rs))
	for i, r := range rs {
		peaks[i] = r.Peak().PerSecond()
	}
	fmt.Println(metrics.SpreadOf(peaks))
	// Output:
	// 937 ± 54 (n = 200, 810 to 1115)
}

// Where the full-width run's clients stop: 163 succeed at their fifth
// attempt, which jitter moved past the end of the 20 s outage, and 114
// sixth attempts fall past the 40 s window.
func ExampleModel_ByAttempt() {
	c := waves.Lesson().WithJitter(1)
	m, _ := waves.New(c)
	for i, t := range m.ByAttempt() {
		fmt.Printf("attempt %d: %3d failed, %3d succeeded, %3d past window\n", i+1, t.Failed, t.Succeeded, t.PastWindow)
	}
	// Output:
	// attempt 1: 600 failed,   0 succeeded,   0 past window
	// attempt 2: 600 failed,   0 succeeded,   0 past window
	// attempt 3: 600 failed,   0 succeeded,   0 past window
	// attempt 4: 600 failed,   0 succeeded,   0 past window
	// attempt 5: 437 failed, 163 succeeded,   0 past window
	// attempt 6:  48 failed, 275 succeeded, 114 past window
}

// A sweep's runs are named by what the sweep varies: the run at full
// width is rs.Jitter(1), wherever it sits in the sweep.
func ExampleResults_Jitter() {
	rs, err := waves.RunEach(waves.Lesson().EachJitter(0, 1))
	if err != nil {
		fmt.Println(err)
		return
	}
	synced, jittered := rs.Jitter(0), rs.Jitter(1)
	fmt.Printf("%v → %v\n", synced.Peak(), jittered.Peak())
	// Output:
	// 3000/s (600 in 200ms at 1s) → 925/s (185 in 200ms at 1.2s)
}

// The With modifiers return a changed copy, so a setting reads as one
// expression; Run validates it.
func ExampleConfig_WithJitter() {
	r, err := waves.Run(waves.Lesson().WithClients(2000).WithJitter(1))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Config.Label(), r.Peak())
	_, err = waves.Run(waves.Lesson().WithJitter(3))
	fmt.Println(err)
	// Output:
	// 2000 clients, jitter 100% 3075/s (615 in 200ms at 1.2s)
	// waves: jitter 3 out of range: want 0 <= jitter <= 2
}

// How typical the lessons' seed is: the full-width run at its own seed
// beside the same run over 200 other seeds.
func ExampleSeedTable() {
	s, err := waves.OverSeeds(waves.Lesson().WithJitter(1), waves.Seeds(200))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(waves.SeedTable(s))
	// Output:
	// run          seeds                         peak (per second)                attempts                           cut
	// jitter 100%  seed 1513241                  925                              3323                               ×3.24
	//              200 seeds                     937 ± 54 (n = 200, 810 to 1115)  3337 ± 12 (n = 200, 3302 to 3375)  3.21 ± 0.18 (n = 200, 2.69 to 3.70)
	//              lower peak than seed 1513241  89 of 200
}

// In a notebook cell, after the lesson's first explicit error check,
// must.M1 turns a call's error into a panic, which the kernel shows: a
// cell stays about its subject.
func ExampleRunEach_must() {
	rs := must.M1(waves.RunEach(waves.Lesson().EachJitter(0, 1)))
	fmt.Println(rs.Jitter(0).Peak().PerSecond() / rs.Jitter(1).Peak().PerSecond())
	// Output:
	// 3.2432432432432434
}

// What fills the fullest slot: at half width only first attempts, at full
// width the first wave and the overlapping second one.
func ExampleModel_PeakByAttempt() {
	for _, w := range []float64{0.5, 1} {
		m, err := waves.New(waves.Lesson().WithJitter(w))
		if err != nil {
			fmt.Println(err)
			return
		}
		p, by := m.PeakByAttempt()
		fmt.Println(p, by)
	}
	// Output:
	// 1240/s (248 in 200ms at 800ms) [248 0 0 0 0 0]
	// 925/s (185 in 200ms at 1.2s) [122 63 0 0 0 0]
}

// Without jitter a wave is the whole cohort in one slot; at full width the
// same 600 first attempts spread over a band 1 s wide, about 600/s.
func ExampleModel_Wave() {
	for _, w := range []float64{0, 1} {
		m, err := waves.New(waves.Lesson().WithJitter(w))
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("jitter %v: wave 1 peaks at %v\n", w, m.Wave(1).Peak())
	}
	// Output:
	// jitter 0: wave 1 peaks at 3000/s (600 in 200ms at 1s)
	// jitter 1: wave 1 peaks at 625/s (125 in 200ms at 800ms)
}

// The model is one short file; a lesson prints it with
// fmt.Print(waves.Reference()).
func ExampleReference() {
	src := waves.Reference()
	fmt.Println(src.Path)
	fmt.Println(src.Lines() <= 200)
	// Output:
	// lab/waves/reference.go
	// true
}
