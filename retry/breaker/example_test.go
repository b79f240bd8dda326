package breaker_test

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/backofflab/backofflab/retry/breaker"
)

// A breaker trips after three consecutive failures, refuses requests while
// open, lets one probe through when its jittered timeout (1–1.5 s, drawn
// from a seeded generator) has passed, and closes when the probe
// succeeds.
func Example() {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	b, err := breaker.New(breaker.Config{
		Failures:    3,
		OpenTimeout: time.Second,
		Rand:        rand.New(rand.NewPCG(1, 0)),
		OnStateChange: func(from, to breaker.State, at time.Time) {
			fmt.Printf("%v  %v → %v\n", at.Sub(start), from, to)
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for i := range 3 {
		now := start.Add(time.Duration(i) * 100 * time.Millisecond)
		p, _ := b.Allow(now)
		p.Failed(now)
	}
	_, err = b.Allow(start.Add(time.Second))
	fmt.Println("at 1s:", err)
	fmt.Println("open until", b.OpenUntil().Sub(start))
	now := b.OpenUntil()
	p, err := b.Allow(now)
	fmt.Println("probe allowed:", err == nil)
	p.Succeeded(now.Add(20 * time.Millisecond))
	// Output:
	// 200ms  closed → open
	// at 1s: breaker: circuit open, request refused
	// open until 1.319211595s
	// 1.319211595s  open → half-open
	// probe allowed: true
	// 1.339211595s  half-open → closed
}
