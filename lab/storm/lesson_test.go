package storm_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/backofflab/backofflab/lab/lcg"
	"github.com/backofflab/backofflab/lab/schedule"
	"github.com/backofflab/backofflab/lab/storm"
	"github.com/backofflab/backofflab/retry"
	"github.com/backofflab/backofflab/retry/breaker"
)

// The lesson's Config sets every field and is valid as it is.
func TestLesson(t *testing.T) {
	c := storm.Lesson()
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	want := storm.Config{Policy: storm.RetryDefaults, Clients: 200, Outage: 3 * time.Second, Attempts: 20,
		Deadline: 15 * time.Second, Base: 100 * time.Millisecond, Cap: 10 * time.Second, Slot: 10 * time.Millisecond,
		Seed: lcg.DefaultSeed}
	if c.Policy != want.Policy || c.Clients != want.Clients || c.Outage != want.Outage || c.Attempts != want.Attempts ||
		c.Deadline != want.Deadline || c.Base != want.Base || c.Cap != want.Cap || c.Slot != want.Slot || c.Seed != want.Seed ||
		c.Capacity != 0 || c.Backoff != nil {
		t.Errorf("Lesson() = %+v, want %+v", c, want)
	}
}

// Each modifier sets its field on a copy and leaves the receiver alone.
func TestModifiers(t *testing.T) {
	base := storm.Lesson()
	bc := breaker.Config{Failures: 2}
	c := base.WithPolicy(schedule.NameEqual).WithClients(7).WithOutage(time.Second).WithAttempts(4).
		WithDeadline(time.Minute).WithBase(time.Millisecond).WithCap(storm.Uncapped).WithCapacity(30).
		WithSeed(9).WithBackoff(retry.FullJitter{Base: time.Millisecond}).WithBreaker(bc)
	if c.Policy != schedule.NameEqual || c.Clients != 7 || c.Outage != time.Second || c.Attempts != 4 ||
		c.Deadline != time.Minute || c.Base != time.Millisecond || c.Cap != storm.Uncapped || c.Capacity != 30 ||
		c.Seed != 9 || c.Backoff != (retry.FullJitter{Base: time.Millisecond}) || c.Breaker.Failures != 2 {
		t.Errorf("modifiers gave %+v", c)
	}
	if l := storm.Lesson(); base.Policy != l.Policy || base.Clients != l.Clients || base.Cap != l.Cap || base.Backoff != nil || base.Breaker.Failures != 0 {
		t.Errorf("the modifiers changed their receiver: %+v", base)
	}
}

func TestCheckPolicy(t *testing.T) {
	for _, name := range append(schedule.Names(), storm.RetryDefaults) {
		t.Run(name, func(t *testing.T) {
			if err := storm.CheckPolicy(name); err != nil {
				t.Error(err)
			}
		})
	}
	for _, name := range []string{"defaults", "none", "flat", "", "Full"} {
		t.Run("reject "+name, func(t *testing.T) {
			err := storm.CheckPolicy(name)
			if err == nil || !strings.Contains(err.Error(), "retry-defaults") {
				t.Errorf("CheckPolicy(%q) = %v, want an error listing the names", name, err)
			}
		})
	}
}

// RunEach checks every run before it starts any: a bad name among good
// ones costs no run. In virtual time (testing/synctest), where the lesson's
// storm would take seconds and refusing first takes none.
func TestRunEachChecksFirst(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		_, err := storm.RunEach(storm.InMemory(context.Background()), storm.Lesson().EachPolicy(schedule.NameFull, "linear"))
		if err == nil || !strings.Contains(err.Error(), `unknown policy "linear"`) {
			t.Fatalf("RunEach with an unknown name = %v", err)
		}
		if d := time.Since(start); d != 0 {
			t.Errorf("RunEach took %v of virtual time before refusing: it ran the good policy first", d)
		}
	})
}

// Results come back in the order asked for and are found by name. In
// virtual time (testing/synctest).
func TestRunEachOf(t *testing.T) {
	synctest.Test(t, testRunEachOf)
}

func testRunEachOf(t *testing.T) {
	c := storm.Lesson().WithClients(10).WithOutage(50 * time.Millisecond).WithBase(20 * time.Millisecond)
	rs, err := storm.RunEach(storm.InMemory(context.Background()), c.EachPolicy(schedule.NameImmediate, schedule.NameConstant))
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 2 || rs[0].Config.Policy != schedule.NameImmediate || rs[1].Config.Policy != schedule.NameConstant {
		t.Fatalf("RunEach gave %d results", len(rs))
	}
	if got := rs.Of(schedule.NameConstant); got.Config.Policy != schedule.NameConstant || !got.Recovered {
		t.Errorf("Of(constant) = policy %q, recovered %v", got.Config.Policy, got.Recovered)
	}
	if got := rs.Of(schedule.NameFull); got.Config.Policy != "" {
		t.Errorf("Of(full) = %+v, want the zero Result: no such run", got.Config)
	}
	// Immediate retries at once: far more requests than constant's 20 ms
	// waits over the same outage.
	if imm, con := len(rs.Of(schedule.NameImmediate).Arrivals), len(rs.Of(schedule.NameConstant).Arrivals); imm <= con {
		t.Errorf("immediate sent %d requests, constant %d: want immediate more", imm, con)
	}
}

// A storm stopped by its caller says why: the context's cause, not a bare
// context.Canceled.
func TestRunReturnsTheCause(t *testing.T) {
	stop := errors.New("operator pressed stop")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(stop)
	_, err := storm.Run(ctx, storm.Lesson().WithClients(3).WithOutage(20*time.Millisecond))
	if !errors.Is(err, stop) {
		t.Fatalf("Run with a cancelled context = %v, want the cause %q", err, stop)
	}
}
