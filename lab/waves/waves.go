// Package waves is the Waves lesson's model of a client population retrying
// through an outage on an exponential schedule, with and without jitter.
//
// All N clients fail at t = 0, when their dependency goes down for Outage.
// Attempt i (i = 1..B) is nominally at dᵢ = Base·2ⁱ⁻¹ after the failure;
// with jitter of width w it is at
//
//	tᵢ = dᵢ·(1 − w/2 + w·u),  u uniform in [0, 1),
//
// anywhere in [dᵢ(1 − w/2), dᵢ(1 + w/2)), a band centred on dᵢ, so jitter
// spreads the attempts without delaying them on average. The draws u come
// from the lessons' seeded generator (package lcg), client-major: client 0's
// B draws in attempt order, then client 1's, and so on, every draw taken
// whether or not its attempt is made. A client's attempts are walked in
// order: an attempt at t ≥ Window ends the client and is not counted (the
// observation window is over); any other attempt is counted in histogram
// slot ⌊t/Slot⌋, and if t ≥ Outage it succeeds and the client stops.
// Each attempt is placed relative to the shared failure, not to the
// client's previous attempt, so with wide jitter a client's attempt can
// come earlier than its previous one (the bands [dᵢ(1 − w/2), dᵢ(1 + w/2))
// of neighbouring attempts overlap once w > 2/3); the walk still follows
// attempt order.
//
// Times are whole nanoseconds (time.Duration): dᵢ·(1 − w/2 + w·u) is
// computed in float64 and truncated, so slot boundaries and the outage and
// window comparisons are exact integer arithmetic. With [lcg.DefaultSeed]
// these conventions reproduce the lesson's figures exactly: for 600 clients,
// a 1 s base, a 20 s outage and 200 ms slots, 3000/s and 3600 attempts
// without jitter, 925/s and 3323 attempts at full width, 1240/s at half
// width.
//
// The model streams: it keeps one histogram over [0, Window) and no
// per-client state, so its memory does not grow with the number of
// clients.
//
// The lesson's notebooks and the backofflab figures command share the
// rest of the package, so that a figure in a file is the figure in the
// notebook: the lesson's settings (Lesson, and Exercise with its
// ExerciseCapacity) and their With modifiers, sweeps (Config.EachJitter and
// its siblings with RunEach, whose Results name each run by its width;
// SweepSlots and SweepEach over SlotWidths; OverSeeds over Seeds), tables
// (Results.Table, SlotSweeps.Table, SeedTable and the lessons' other tables) and the figures
// (Result.Figure, CompareFigure, Result.CapacityFigure, OverlayFigure,
// SlotFigure, JitterFigure, BaseFigure), which lab/static and lab/interactive draw.
package waves

import (
	"fmt"
	"time"

	"github.com/backofflab/backofflab/lab/lcg"
	"github.com/backofflab/backofflab/lab/metrics"
	"github.com/backofflab/backofflab/lab/schedule"
)

// Limits on a Config, which keep a run's time and memory bounded.
const (
	// MaxClients is the largest population a Config may have.
	MaxClients = 10_000_000
	// MaxAttempts is the most attempts per client a Config may have.
	MaxAttempts = 64
	// MaxJitter is the widest jitter band: w = 2 spreads attempt i over
	// [0, 2dᵢ).
	MaxJitter = 2.0
)

// Config describes one run of the model. Every field must be set; Lesson
// returns the lesson's values to start from.
type Config struct {
	// Clients is the number of clients N that fail together at t = 0,
	// in [1, MaxClients].
	Clients int
	// Attempts is the number of attempts B each client makes at most, in
	// [1, MaxAttempts].
	Attempts int
	// Base is the nominal time of the first attempt; attempt i is nominally
	// at Base·2ⁱ⁻¹. It must be positive.
	Base time.Duration
	// Outage is how long the dependency is down: attempts at t ≥ Outage
	// succeed. It must not be negative.
	Outage time.Duration
	// Window is the observation window: an attempt at t ≥ Window ends its
	// client uncounted. It must be positive.
	Window time.Duration
	// Jitter is the relative width w of the band each attempt is drawn
	// from, in [0, MaxJitter]: 0 is no jitter, 1 is "full width" (±50 %).
	Jitter float64
	// Slot is the histogram's slot width. It must be positive, and Window
	// must span at most metrics.MaxSlots slots.
	Slot time.Duration
	// Seed seeds the generator, in [0, 2³¹).
	Seed int64
}

// Lesson returns the Waves lesson's configuration without jitter: 600
// clients, 6 attempts from a 1 s base (1, 2, 4, 8, 16, 32 s), a 20 s outage,
// a 40 s window, 200 ms slots and lcg.DefaultSeed. Change a setting with a
// With modifier: Lesson().WithJitter(1) is the run at full width.
func Lesson() Config {
	return Config{
		Clients:  600,
		Attempts: 6,
		Base:     time.Second,
		Outage:   20 * time.Second,
		Window:   40 * time.Second,
		Jitter:   0,
		Slot:     200 * time.Millisecond,
		Seed:     lcg.DefaultSeed,
	}
}

// Validate returns nil if every field is in range, or an error naming the
// first field that is not and its allowed range.
func (c Config) Validate() error {
	switch {
	case c.Clients < 1 || c.Clients > MaxClients:
		return fmt.Errorf("waves: clients %d out of range: want 1 <= clients <= %d", c.Clients, MaxClients)
	case c.Attempts < 1 || c.Attempts > MaxAttempts:
		return fmt.Errorf("waves: attempts %d out of range: want 1 <= attempts <= %d", c.Attempts, MaxAttempts)
	case c.Base <= 0:
		return fmt.Errorf("waves: base %v out of range: want base > 0", c.Base)
	case c.Outage < 0:
		return fmt.Errorf("waves: outage %v out of range: want outage >= 0", c.Outage)
	case c.Window <= 0:
		return fmt.Errorf("waves: window %v out of range: want window > 0", c.Window)
	case !(c.Jitter >= 0 && c.Jitter <= MaxJitter): // also rejects NaN
		return fmt.Errorf("waves: jitter %v out of range: want 0 <= jitter <= %g", c.Jitter, MaxJitter)
	case c.Slot <= 0:
		return fmt.Errorf("waves: slot %v out of range: want slot > 0", c.Slot)
	case c.Seed < 0 || c.Seed >= lcg.Modulus:
		return fmt.Errorf("waves: seed %d out of range: want 0 <= seed < 2^31 (%d)", c.Seed, int64(lcg.Modulus))
	}
	if n := (c.Window-1)/c.Slot + 1; n > metrics.MaxSlots {
		return fmt.Errorf("waves: slot %v out of range for window %v: %d slots, want at most %d (slot >= %v)",
			c.Slot, c.Window, n, metrics.MaxSlots, (c.Window-1)/metrics.MaxSlots+1)
	}
	return nil
}

// Model is a validated Config, ready to run. Running it is deterministic:
// the same Model gives the same Result every time.
type Model struct {
	cfg     Config
	nominal []time.Duration // dᵢ, i = 1..B at index i−1
}

// New validates c and returns its model.
func New(c Config) (*Model, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	p := Policy(c)
	m := &Model{cfg: c, nominal: make([]time.Duration, c.Attempts)}
	for i := range m.nominal {
		m.nominal[i] = p.Ceiling(i)
	}
	return m, nil
}

// Policy returns the retry policy behind the model's attempt times:
// schedule.UniformJitter with c's Base and Jitter, doubling, uncapped.
// Attempt i of a client is at Policy(c).Delay(i−1, 0, g) for that client's
// i-th draw from g, an offset from the shared failure rather than a sleep
// after the previous attempt.
func Policy(c Config) schedule.UniformJitter {
	return schedule.UniformJitter{Base: c.Base, Width: c.Jitter}
}

// Config returns the model's configuration.
func (m *Model) Config() Config { return m.cfg }

// Nominal returns the un-jittered time dᵢ = Base·2ⁱ⁻¹ of attempt i
// (1-based), saturating at the largest Duration. It is 0 for i outside
// [1, Attempts].
func (m *Model) Nominal(i int) time.Duration {
	if i < 1 || i > len(m.nominal) {
		return 0
	}
	return m.nominal[i-1]
}

// Outcome says what became of one attempt.
type Outcome int

const (
	// Failed: the attempt came during the outage and was refused. It is
	// counted, and the client tries again if it has attempts left.
	Failed Outcome = iota
	// Succeeded: the attempt came at or after the end of the outage. It is
	// counted, and the client stops.
	Succeeded
	// PastWindow: the attempt would come at or after the end of the
	// observation window. It is not counted, and the client stops.
	PastWindow
)

// String returns "failed", "succeeded" or "past window".
func (o Outcome) String() string {
	switch o {
	case Failed:
		return "failed"
	case Succeeded:
		return "succeeded"
	case PastWindow:
		return "past window"
	}
	return fmt.Sprintf("Outcome(%d)", int(o))
}

// Counted reports whether attempts with this outcome appear in the
// histogram and the totals.
func (o Outcome) Counted() bool { return o == Failed || o == Succeeded }

// Attempt is one attempt of one client.
type Attempt struct {
	// Client is the client's index, from 0.
	Client int
	// N is the attempt's number, from 1.
	N int
	// At is the attempt's time after the shared failure. For a PastWindow
	// attempt it is at least Window, and capped at the largest Duration.
	At time.Duration
	// Outcome is what became of it.
	Outcome Outcome
}
