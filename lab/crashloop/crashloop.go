package crashloop

import (
	"fmt"
	"time"

	"github.com/backofflab/backofflab/lab/schedule"
	"github.com/backofflab/backofflab/lab/synchrony"
	"github.com/backofflab/backofflab/lab/table"
)

// Config is one instance of a dependency that restarts at t = 0 and a
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
// The clients are synchrony.Cohort's: each makes its first attempt at t = 0 (or
// within Spread), and after every refusal waits as Cohort.Policy says and
// tries again, until it is served or the next attempt would come at or
// after Cohort.Horizon. Cohort.Outage and MaxAttempts are not used: the
// instance decides what is refused. Within a slot the instance takes
// requests in the order of their times, and a retry due within the slot of
// its refusal comes at the start of the next slot. The waits are drawn from one
// lcg.LCG seeded with Cohort.Seed, in the order the refusals happen.
type Config struct {
	// Cohort is the clients and their policy (see above).
	Cohort synchrony.Cohort
	// Slot is the model's step, in [1ms, 1s]; Cohort.Horizon/Slot must be
	// at most synchrony.MaxEvents.
	Slot time.Duration
	// Warm is what a warm instance serves per slot, and Cold what it
	// serves while warming, 1 <= Cold <= Warm <= synchrony.MaxParticipants.
	Warm, Cold int
	// WarmUp is the uptime the instance needs to become warm, and Restart
	// the time a restart takes, each in [0, synchrony.MaxHorizon].
	WarmUp, Restart time.Duration
	// Gate keeps the instance out of traffic until it is warm.
	Gate bool
}

// A Result is what happened to the instance and the clients.
type Result struct {
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
func (w Config) Validate() error {
	if err := w.Cohort.Validate(); err != nil {
		return err
	}
	switch {
	case w.Slot < time.Millisecond || w.Slot > time.Second:
		return fmt.Errorf("crashloop: slot %v out of range: want 1ms <= slot <= 1s", w.Slot)
	case int64(w.Cohort.Horizon/w.Slot) > synchrony.MaxEvents:
		return fmt.Errorf("crashloop: slot %v out of range for horizon %v: want horizon/slot <= %d", w.Slot, w.Cohort.Horizon, synchrony.MaxEvents)
	case w.Cold < 1 || w.Cold > w.Warm || w.Warm > synchrony.MaxParticipants:
		return fmt.Errorf("crashloop: cold %d, warm %d out of range: want 1 <= cold <= warm <= %d", w.Cold, w.Warm, synchrony.MaxParticipants)
	case w.WarmUp < 0 || w.WarmUp > synchrony.MaxHorizon:
		return fmt.Errorf("crashloop: warm-up %v out of range: want 0 <= warm-up <= %v", w.WarmUp, synchrony.MaxHorizon)
	case w.Restart < 0 || w.Restart > synchrony.MaxHorizon:
		return fmt.Errorf("crashloop: restart %v out of range: want 0 <= restart <= %v", w.Restart, synchrony.MaxHorizon)
	}
	return nil
}

// The lesson's setting for the crash loop, used by Lesson.
const (
	// LessonWarm is what the lesson's warm instance serves per synchrony.LessonSlot:
	// 2000 requests a second.
	LessonWarm = 20
	// LessonCold is what it serves per slot while warming: a tenth.
	LessonCold = 2
	// LessonWarmUp is the uptime it needs to warm.
	LessonWarmUp = 5 * time.Second
	// LessonRestart is the time a restart takes.
	LessonRestart = time.Second
)

// Lesson returns the lesson's crash-loop setting: synchrony.Lesson's thousand
// clients under policy p against an instance restarting at t = 0 that
// serves LessonWarm requests per synchrony.LessonSlot when warm and LessonCold while
// it warms for LessonWarmUp, restarts in LessonRestart, and has a readiness
// gate if gate is set.
func Lesson(p schedule.Policy, gate bool) Config {
	return Config{
		Cohort: synchrony.Lesson().WithPolicy(p),
		Slot:   synchrony.LessonSlot,
		Warm:   LessonWarm, Cold: LessonCold,
		WarmUp: LessonWarmUp, Restart: LessonRestart,
		Gate: gate,
	}
}

// String describes the instance on one line, its gate left out (the
// lesson compares both), e.g. "restarts at 0 in 1s; serves 2 per 10ms
// during its first 5s of uptime, 20 per 10ms when warm".
func (w Config) String() string {
	return fmt.Sprintf("restarts at 0 in %v; serves %d per %v during its first %v of uptime, %d per %v when warm",
		w.Restart, w.Cold, w.Slot, w.WarmUp, w.Warm, w.Slot)
}

// Table runs the lesson's crash loop under each policy of a lineup, with
// and without a readiness gate, and returns one line per run: the restarts,
// when the instance was first warm ("never" if it was not), the clients
// served, the last served and the attempts; a note describes the instance.
func Table(lineup []schedule.Named) (table.Table, error) {
	t := table.New("policy", "readiness gate", "restarts", "warm at", "clients served", "last served", "attempts")
	for _, p := range lineup {
		for _, gate := range []bool{false, true} {
			r, err := Run(Lesson(p.Policy, gate))
			if err != nil {
				return table.Table{}, fmt.Errorf("%s: %w", p.Name, err)
			}
			warm := table.Num("never")
			if r.Warm > 0 {
				warm = table.Num("%v", r.Warm)
			}
			t.Add(p.Name, table.Num("%v", gate), r.Restarts, warm, r.Served, r.Last.Round(time.Millisecond), r.Attempts)
		}
	}
	t.Note("the instance %v", Lesson(nil, false))
	return t, nil
}
