package synchrony

import (
	"fmt"
	"time"

	"github.com/backofflab/backofflab/lab/schedule"
)

// Warmup is one instance of a dependency that restarts at t = 0 and a
// cohort of clients that retry against it: the crash loop a synchronised
// cohort can cause, and the readiness gate that ends it.
//
// The instance is down for Restart, then comes up cold. While it warms
// (its caches and pools fill during its first WarmUp of uptime) it serves
// at most Cold requests per Slot, and a slot that brings it more fails its
// readiness probe: it is restarted, refusing everything for Restart, and
// comes up cold again. A warm instance serves Warm requests per slot and
// refuses the rest at once, without falling over. With Gate, the instance
// takes traffic only once it is warm: until then every request is refused
// before it reaches the instance, so nothing can knock it over while it
// warms.
//
// The clients are Cohort's: each makes its first attempt at t = 0 (or
// within Spread), and after every refusal waits as Cohort.Policy says and
// tries again, until it is served or the next attempt would come at or
// after Cohort.Horizon. Cohort.Outage and MaxAttempts are not used: the
// instance decides what is refused. Within a slot the instance takes
// requests in the order of their times, and a retry due within the slot of
// its refusal comes at the start of the next slot. The waits are drawn from one
// lcg.LCG seeded with Cohort.Seed, in the order the refusals happen.
type Warmup struct {
	// Cohort is the clients and their policy (see above).
	Cohort Cohort
	// Slot is the model's step, in [1ms, 1s]; Cohort.Horizon/Slot must be
	// at most MaxEvents.
	Slot time.Duration
	// Warm is what a warm instance serves per slot, and Cold what it
	// serves while warming, 1 <= Cold <= Warm <= MaxParticipants.
	Warm, Cold int
	// WarmUp is the uptime the instance needs to become warm, and Restart
	// the time a restart takes, each in [0, MaxHorizon].
	WarmUp, Restart time.Duration
	// Gate keeps the instance out of traffic until it is warm.
	Gate bool
}

// A WarmupResult is what happened to the instance and the clients.
type WarmupResult struct {
	// Restarts counts the times the instance failed its readiness probe.
	Restarts int
	// Warm is when the instance first became warm (0 if it never did
	// before the horizon).
	Warm time.Duration
	// Served counts the clients served, and Last is when the last of them
	// was (0 if none).
	Served int
	Last   time.Duration
	// Attempts counts every attempt the clients made.
	Attempts int
}

// Validate reports the first parameter that is out of range.
func (w Warmup) Validate() error {
	if err := w.Cohort.Validate(); err != nil {
		return err
	}
	switch {
	case w.Slot < time.Millisecond || w.Slot > time.Second:
		return fmt.Errorf("synchrony: slot %v out of range: want 1ms <= slot <= 1s", w.Slot)
	case int64(w.Cohort.Horizon/w.Slot) > MaxEvents:
		return fmt.Errorf("synchrony: slot %v out of range for horizon %v: want horizon/slot <= %d", w.Slot, w.Cohort.Horizon, MaxEvents)
	case w.Cold < 1 || w.Cold > w.Warm || w.Warm > MaxParticipants:
		return fmt.Errorf("synchrony: cold %d, warm %d out of range: want 1 <= cold <= warm <= %d", w.Cold, w.Warm, MaxParticipants)
	case w.WarmUp < 0 || w.WarmUp > MaxHorizon:
		return fmt.Errorf("synchrony: warm-up %v out of range: want 0 <= warm-up <= %v", w.WarmUp, MaxHorizon)
	case w.Restart < 0 || w.Restart > MaxHorizon:
		return fmt.Errorf("synchrony: restart %v out of range: want 0 <= restart <= %v", w.Restart, MaxHorizon)
	}
	return nil
}

// The lesson's setting for the crash loop, used by WarmupLesson.
const (
	// WarmupWarm is what the lesson's warm instance serves per LessonSlot:
	// 2000 requests a second.
	WarmupWarm = 20
	// WarmupCold is what it serves per slot while warming: a tenth.
	WarmupCold = 2
	// WarmupTime is the uptime it needs to warm.
	WarmupTime = 5 * time.Second
	// WarmupRestart is the time a restart takes.
	WarmupRestart = time.Second
)

// WarmupLesson returns the lesson's crash-loop setting: Lesson's thousand
// clients under policy p against an instance restarting at t = 0 that
// serves WarmupWarm requests per LessonSlot when warm and WarmupCold while
// it warms for WarmupTime, restarts in WarmupRestart, and has a readiness
// gate if gate is set.
func WarmupLesson(p schedule.Policy, gate bool) Warmup {
	return Warmup{
		Cohort: Lesson().WithPolicy(p),
		Slot:   LessonSlot,
		Warm:   WarmupWarm, Cold: WarmupCold,
		WarmUp: WarmupTime, Restart: WarmupRestart,
		Gate: gate,
	}
}

// String describes the instance on one line, its gate left out (the
// lesson compares both), e.g. "restarts at 0 in 1s; serves 2 per 10ms
// during its first 5s of uptime, 20 per 10ms when warm".
func (w Warmup) String() string {
	return fmt.Sprintf("restarts at 0 in %v; serves %d per %v during its first %v of uptime, %d per %v when warm",
		w.Restart, w.Cold, w.Slot, w.WarmUp, w.Warm, w.Slot)
}
