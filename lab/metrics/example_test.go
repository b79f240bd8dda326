package metrics_test

import (
	"fmt"
	"time"

	"github.com/backofflab/backofflab/lab/metrics"
)

// Six hundred clients retry at the same instant. The reported peak depends
// on the slot width it is measured at, so a peak is always printed with it.
func Example() {
	times := make([]time.Duration, 600)
	for i := range times {
		times[i] = time.Second
	}
	fine, _ := metrics.Count(times, time.Millisecond)
	peaks, _ := metrics.PeakSweep(fine, []time.Duration{time.Millisecond, 200 * time.Millisecond, time.Second})
	for _, p := range peaks {
		fmt.Println(p)
	}
	// Output:
	// 600000/s (600 in 1ms at 1s)
	// 3000/s (600 in 200ms at 1s)
	// 600/s (600 in 1s at 1s)
}

// The coefficient of variation of the gaps between events separates even
// spacing (0) from bursts (far above 1).
func ExampleInterArrivalCV() {
	even := []time.Duration{0, 10 * time.Millisecond, 20 * time.Millisecond, 30 * time.Millisecond}
	bursts := []time.Duration{time.Second, time.Second, time.Second, 2 * time.Second, 2 * time.Second, 2 * time.Second}
	a, _ := metrics.InterArrivalCV(even)
	b, _ := metrics.InterArrivalCV(bursts)
	fmt.Printf("even %.2f, bursts %.2f\n", a, b)
	// Output:
	// even 0.00, bursts 2.00
}

// Counting at a fine slot once and rebinning gives every wider slot without
// keeping the events.
func ExampleHistogram_Rebin() {
	h := metrics.Histogram{Slot: 100 * time.Millisecond, Counts: []int{1, 2, 3, 4, 5}}
	wide, _ := h.Rebin(200 * time.Millisecond)
	fmt.Println(wide.Counts, wide.Peak())
	// Output:
	// [3 7 5] 35/s (7 in 200ms at 200ms)
}

// A service that is back at 600 ms meets the fullest slot from then on,
// not the run's peak, which came while it was still down.
func ExampleHistogram_PeakFrom() {
	h := metrics.Histogram{Slot: 200 * time.Millisecond, Counts: []int{0, 9, 0, 3, 5}}
	fmt.Println(h.Peak())
	fmt.Println(h.PeakFrom(600 * time.Millisecond))
	// Output:
	// 45/s (9 in 200ms at 200ms)
	// 25/s (5 in 200ms at 800ms)
}

// A server that takes at most 240 requests per 200 ms slot (1200/s) serves
// the first part of each slot's arrivals and has to refuse the rest.
func ExampleHistogram_Clip() {
	arrivals := metrics.Histogram{Slot: 200 * time.Millisecond, Counts: []int{0, 615, 300, 120}}
	served, refused, _ := arrivals.Clip(240)
	fmt.Println("served: ", served.Counts, served.Total())
	fmt.Println("refused:", refused.Counts, refused.Total())
	// Output:
	// served:  [0 240 240 120] 600
	// refused: [0 375 60 0] 435
}

// The same measurement repeated: mean ± standard deviation, then the count
// and the range.
func ExampleSpreadOf() {
	peaks := []float64{925, 880, 990, 941, 902}
	fmt.Println(metrics.SpreadOf(peaks))
	// Output:
	// 928 ± 42 (n = 5, 880 to 990)
}

// The busy slots of a histogram: the slots that hold events.
func ExampleHistogram_BusyTable() {
	h, err := metrics.Count([]time.Duration{time.Second, time.Second, 3 * time.Second}, time.Second)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(h.BusyTable())
	// Output:
	// slot at  count
	//      1s      2
	//      3s      1
	// slots with events: 2 of 4
}

// Two streams measured in 1 s slots: one in step, one spread evenly.
func ExampleMeasureTable() {
	inStep := metrics.Times{time.Second, time.Second, time.Second, time.Second}
	even := metrics.Times{0, time.Second, 2 * time.Second, 3 * time.Second}
	t, err := metrics.MeasureTable([]metrics.Stream{{Name: "in step", Source: inStep}, {Name: "even", Source: even}}, time.Second)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(t)
	// Output:
	// stream   events           peak         CV
	// in step       4  4 in 1s at 1s  undefined
	// even          4  1 in 1s at 0s       0.00
}

// A cohort's last answer, a tenth of a second and then six seconds after
// the dependency came back: the bounds, not the milliseconds, that a run
// in real time repeats.
func ExampleRecovery() {
	fmt.Println(metrics.Recovery(100*time.Millisecond), "|", metrics.Recovery(3*time.Second), "|", metrics.Recovery(6*time.Second))
	// Output:
	// under 2 s | 2 to 5 s | over 5 s
}
