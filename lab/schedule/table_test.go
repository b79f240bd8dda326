package schedule_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/backofflab/backofflab/lab/lcg"
	"github.com/backofflab/backofflab/lab/schedule"
)

// The waits lesson 00 compares: one line per policy, the first eight waits.
func ExampleDelayTable() {
	t, err := schedule.DelayTable(100*time.Millisecond, 3200*time.Millisecond, 8, lcg.DefaultSeed)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(t)
	// Output:
	// retry n                      0      1       2      3      4       5       6      7
	// exponential (no jitter)  100ms  200ms   400ms  800ms   1.6s    3.2s    3.2s   3.2s
	// full jitter               57ms  127ms   361ms  131ms  142ms   948ms   970ms  520ms
	// equal jitter              79ms  163ms   380ms  466ms  871ms  2.074s  2.085s  1.86s
	// decorrelated jitter      214ms  444ms  1.212s  679ms  272ms   312ms   354ms  256ms
	// uniform jitter           107ms  227ms   561ms  531ms  942ms  2.548s   2.57s  2.12s
	// constant wait            100ms  100ms   100ms  100ms  100ms   100ms   100ms  100ms
	// immediate (no wait)         0s     0s      0s     0s     0s      0s      0s     0s
}

func TestDelayTableRefusesBadInput(t *testing.T) {
	if _, err := schedule.DelayTable(0, time.Second, 3, 1); err == nil || !strings.Contains(err.Error(), "base") {
		t.Errorf("base 0: %v, want an error naming the base", err)
	}
	if _, err := schedule.DelayTable(time.Second, time.Second, 3, -1); err == nil || !strings.Contains(err.Error(), "seed") {
		t.Errorf("seed -1: %v, want an error naming the seed", err)
	}
}

// The waits before the third retry (n = 2) of five clients under full
// jitter: each drawn from [0, 400 ms).
func ExampleWaits() {
	fmt.Println(schedule.Waits(schedule.FullJitter{Base: 100 * time.Millisecond}, 2, 5, lcg.MustNew(lcg.DefaultSeed)))
	fmt.Println(schedule.Waits(schedule.Exponential{Base: 100 * time.Millisecond}, 2, 3, nil))
	fmt.Println(schedule.Waits(schedule.Exponential{}, 2, 0, nil) == nil)
	// Output:
	// [228.767579ms 253.266608ms 360.972239ms 65.540114ms 35.585017ms]
	// [400ms 400ms 400ms]
	// true
}

// A lineup's names and parameters, as lesson 05 shows them.
func ExampleLineupTable() {
	fmt.Print(schedule.LineupTable([]schedule.Named{
		{Name: schedule.NameFull, Policy: schedule.FullJitter{Base: 100 * time.Millisecond, Cap: 3200 * time.Millisecond}},
		{Name: schedule.NameConstant, Policy: schedule.Constant{Base: 100 * time.Millisecond}},
	}))
	// Output:
	// policy    parameters
	// full      full(base=100ms cap=3.2s mult=2)
	// constant  constant(base=100ms)
}
