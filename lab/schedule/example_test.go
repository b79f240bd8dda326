package schedule_test

import (
	"fmt"
	"time"

	"github.com/backofflab/backofflab/lab/lcg"
	"github.com/backofflab/backofflab/lab/schedule"
)

// The first six waits of each policy for one client, drawn from the lessons'
// default seed, with a 100 ms base and a 2 s cap. Exponential doubles and
// stops at the cap; the jittered policies scatter below (full, equal) or
// around (uniform) that window; decorrelated grows from its own last wait.
func Example() {
	base, cap := 100*time.Millisecond, 2*time.Second
	for _, name := range schedule.Names() {
		p, err := schedule.New(schedule.Config{Name: name, Base: base, Cap: cap, Width: 1})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%-13s", name)
		for _, d := range schedule.Delays(p, 6, lcg.MustNew(lcg.DefaultSeed)) {
			fmt.Printf("%8v", d.Round(time.Millisecond))
		}
		fmt.Println()
	}
	// Output:
	// exponential     100ms   200ms   400ms   800ms    1.6s      2s
	// full             57ms   127ms   361ms   131ms   142ms   592ms
	// equal            79ms   163ms   380ms   466ms   871ms  1.296s
	// decorrelated    214ms   444ms  1.212s   679ms   272ms   312ms
	// uniform         107ms   227ms   561ms   531ms   942ms  1.592s
	// constant        100ms   100ms   100ms   100ms   100ms   100ms
	// immediate          0s      0s      0s      0s      0s      0s
}

// Exponential backoff without a cap saturates at the largest Duration
// instead of overflowing, however many retries have failed.
func ExampleExponential() {
	p := schedule.Exponential{Base: time.Second}
	fmt.Println(p.Delay(0, 0, nil), p.Delay(3, 0, nil))
	fmt.Println(p.Delay(100, 0, nil))
	fmt.Println(schedule.Exponential{Base: time.Second, Cap: time.Minute}.Delay(10_000, 0, nil))
	// Output:
	// 1s 8s
	// 2562047h47m16.854775807s
	// 1m0s
}

// New reports a bad parameter by name, with the range it must lie in.
func ExampleNew() {
	_, err := schedule.New(schedule.Config{Name: "uniform", Base: time.Second, Width: 2.5})
	fmt.Println(err)
	_, err = schedule.New(schedule.Config{Name: "full", Base: time.Second, Cap: time.Millisecond})
	fmt.Println(err)
	_, err = schedule.New(schedule.Config{Name: "jittery", Base: time.Second})
	fmt.Println(err)
	// Output:
	// schedule: width 2.5 out of range: want 0 <= width <= 2
	// schedule: cap 1ms below base 1s: want cap >= base, or cap = 0 for uncapped
	// schedule: unknown policy "jittery": want one of exponential, full, equal, decorrelated, uniform, constant, immediate
}

// Delays threads each wait into the next call, which is what decorrelated
// jitter needs: every wait lies between the base and three times the last.
func ExampleDelays() {
	p := schedule.Decorrelated{Base: time.Second, Cap: time.Minute}
	fmt.Println(schedule.Delays(p, 5, lcg.MustNew(lcg.DefaultSeed)))
	// Output:
	// [2.143837897s 4.439052629s 12.115380176s 6.791475285s 2.723598225s]
}

// Half-width uniform jitter keeps each wait within ±25 % of the un-jittered
// one: here within [750ms, 1.25s) around the first retry's 1 s.
func ExampleUniformJitter() {
	p := schedule.UniformJitter{Base: time.Second, Width: 0.5}
	r := lcg.MustNew(lcg.DefaultSeed)
	for range 5 {
		fmt.Println(p.Delay(0, 0, r).Round(time.Millisecond))
	}
	// Output:
	// 1.036s
	// 1.067s
	// 1.201s
	// 832ms
	// 794ms
}
