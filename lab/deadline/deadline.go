// Package deadline simulates retrying requests that each have a deadline,
// to show what the deadline check before a backoff sleep saves.
//
// A request's caller waits until its deadline and no longer. A retry loop
// spends that same budget on its sleeps and its attempts, and an attempt that
// ends after the deadline is wasted: it costs the dependency as much as any
// other, and nobody reads its answer. The check is one comparison before each
// sleep,
//
//	wait + worst-case attempt ≤ time left before the deadline,
//
// and a client that fails it gives up at once instead of sleeping into a
// deadline it cannot meet (retry.Fits). The comparison is ≤: an attempt that
// would end exactly at the deadline fits. A check written with <, as some
// retry loops write it, gives that attempt up; the two differ only at that
// one instant. Run compares three clients on the same requests: one that
// never looks at the deadline, one that looks only when it wakes up, and
// one that checks before it sleeps (Mode); Compare runs all three and
// returns Rows, addressed by mode: rs.Of(CheckBeforeSleep).
//
// # The model
//
// Requests start at t = 0, or at times drawn uniformly from [0, Spread).
// The dependency fails every attempt that starts before Outage and answers
// every attempt that starts at or after it. Every attempt, failed or not,
// takes a time drawn uniformly from [AttemptMin, AttemptMax]; the check
// assumes attempts take at most Worst (in Lesson, AttemptMax: the true
// worst case). After a failed attempt the client asks its schedule.Policy
// for the wait (n = the number of failures before this one, prev = the
// previous wait) and, unless its Mode stops it, sleeps and tries again, up
// to MaxAttempts attempts in all. The first attempt is always made.
//
// # Randomness
//
// Request i draws from its own lcg.LCG, seeded from Seed and i (see
// StreamSeed): first its start (when Spread is positive), then, for each
// attempt, its duration followed by the wait after it. The modes differ only
// in when a request stops, so every mode sees the same start, the same
// attempt times and the same waits for every request, and their results
// compare request by request.
//
// Run, in reference.go, is the whole model and needs no faster engine;
// [Reference] returns its source for a lesson to print.
package deadline

import (
	"errors"
	"fmt"
	"time"

	"github.com/backofflab/backofflab/lab"
	"github.com/backofflab/backofflab/lab/lcg"
	"github.com/backofflab/backofflab/lab/schedule"
	"github.com/backofflab/backofflab/lab/table"
)

// Limits on a Config; Validate names the one that is exceeded.
const (
	// MaxRequests is the most requests one run simulates.
	MaxRequests = 1 << 20
	// MaxAttempts is the largest Config.MaxAttempts.
	MaxAttempts = 1000
	// MaxDuration bounds every duration of a Config.
	MaxDuration = 24 * time.Hour
)

// Mode is how a client treats its request's deadline.
type Mode int

const (
	// Oblivious never looks at the deadline: it sleeps and retries until
	// an attempt succeeds or it runs out of attempts, as a retry layer does
	// that was never told the caller's deadline.
	Oblivious Mode = iota
	// CheckOnWake sleeps, then retries only if the deadline has not
	// passed yet. Its sleeps can still run past the deadline, and the
	// attempt it makes on waking can be one that cannot finish in time.
	CheckOnWake
	// CheckBeforeSleep gives up before sleeping unless the wait plus a
	// worst-case attempt fits the time left (retry.Fits): it never sleeps into a
	// deadline it cannot meet, and, as long as its worst case is true,
	// never makes a retry that ends after the deadline.
	CheckBeforeSleep
)

// Modes returns the three modes, from the one that ignores the deadline to
// the one that checks before sleeping.
func Modes() []Mode { return []Mode{Oblivious, CheckOnWake, CheckBeforeSleep} }

// String returns the mode's name: "oblivious", "check on wake" or "check
// before sleep".
func (m Mode) String() string {
	switch m {
	case Oblivious:
		return "oblivious"
	case CheckOnWake:
		return "check on wake"
	case CheckBeforeSleep:
		return "check before sleep"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// Config describes one run. The zero Config is not runnable; start from
// Lesson.
type Config struct {
	// Requests is the number of requests, in [1, MaxRequests].
	Requests int
	// Spread is the window over which the requests start, in
	// [0, MaxDuration]; 0 means all of them start at t = 0.
	Spread time.Duration
	// Outage is when the dependency starts answering, in [0, MaxDuration].
	Outage time.Duration
	// Budget is each request's deadline, measured from its start, in
	// (0, MaxDuration].
	Budget time.Duration
	// AttemptMin and AttemptMax bound the time an attempt takes:
	// 0 < AttemptMin <= AttemptMax <= MaxDuration.
	AttemptMin, AttemptMax time.Duration
	// Worst is the attempt time the deadline check assumes, in
	// (0, MaxDuration]; AttemptMax is the true worst case. A Worst
	// below AttemptMax is an optimistic check, which lets some doomed
	// attempts through.
	Worst time.Duration
	// MaxAttempts is the most attempts per request, the first included,
	// in [1, MaxAttempts].
	MaxAttempts int
	// Policy is the wait before each retry; it must not be nil.
	Policy schedule.Policy
	// Mode is how the client treats the deadline.
	Mode Mode
	// Seed seeds the requests' generators, in [0, 2³¹).
	Seed int64
}

// Lesson returns the lesson's setting: 1000 requests starting over 10 s,
// a dependency down for the first 5 s, a 2 s budget per request, attempts of
// 50 to 250 ms, at most 6 attempts, full jitter from a 100 ms base capped at
// 2 s, the check's worst case the true one, mode Oblivious, seed
// lcg.DefaultSeed. About half of the requests start during the outage.
// Change what you study with the With methods.
func Lesson() Config {
	return Config{
		Requests:    1000,
		Spread:      10 * time.Second,
		Outage:      5 * time.Second,
		Budget:      2 * time.Second,
		AttemptMin:  50 * time.Millisecond,
		AttemptMax:  250 * time.Millisecond,
		Worst:       250 * time.Millisecond,
		MaxAttempts: 6,
		Policy:      schedule.FullJitter{Base: 100 * time.Millisecond, Cap: 2 * time.Second},
		Seed:        lcg.DefaultSeed,
	}
}

// WithMode returns c with clients that treat the deadline as m does.
func (c Config) WithMode(m Mode) Config { c.Mode = m; return c }

// WithPolicy returns c with p as the wait before each retry.
func (c Config) WithPolicy(p schedule.Policy) Config { c.Policy = p; return c }

// WithBudget returns c with a deadline of d after each request's start.
func (c Config) WithBudget(d time.Duration) Config { c.Budget = d; return c }

// WithWorst returns c with a deadline check that assumes attempts take at
// most d (AttemptMax is the true worst case).
func (c Config) WithWorst(d time.Duration) Config { c.Worst = d; return c }

// WithOutage returns c with a dependency that fails every attempt starting
// before d.
func (c Config) WithOutage(d time.Duration) Config { c.Outage = d; return c }

// WithRequests returns c with n requests.
func (c Config) WithRequests(n int) Config { c.Requests = n; return c }

// WithMaxAttempts returns c with at most n attempts per request, the first
// included.
func (c Config) WithMaxAttempts(n int) Config { c.MaxAttempts = n; return c }

// WithSeed returns c with the given seed.
func (c Config) WithSeed(seed int64) Config { c.Seed = seed; return c }

// Validate reports the first parameter that is out of range, naming it and
// the range allowed.
func (c Config) Validate() error {
	switch {
	case c.Requests < 1 || c.Requests > MaxRequests:
		return fmt.Errorf("deadline: requests %d out of range: want 1 <= requests <= %d", c.Requests, MaxRequests)
	case c.Spread < 0 || c.Spread > MaxDuration:
		return fmt.Errorf("deadline: spread %v out of range: want 0 <= spread <= %v", c.Spread, MaxDuration)
	case c.Outage < 0 || c.Outage > MaxDuration:
		return fmt.Errorf("deadline: outage %v out of range: want 0 <= outage <= %v", c.Outage, MaxDuration)
	case c.Budget <= 0 || c.Budget > MaxDuration:
		return fmt.Errorf("deadline: budget %v out of range: want 0 < budget <= %v", c.Budget, MaxDuration)
	case c.AttemptMin <= 0 || c.AttemptMin > MaxDuration:
		return fmt.Errorf("deadline: attempt min %v out of range: want 0 < attempt min <= %v", c.AttemptMin, MaxDuration)
	case c.AttemptMax < c.AttemptMin || c.AttemptMax > MaxDuration:
		return fmt.Errorf("deadline: attempt max %v out of range: want attempt min (%v) <= attempt max <= %v", c.AttemptMax, c.AttemptMin, MaxDuration)
	case c.Worst <= 0 || c.Worst > MaxDuration:
		return fmt.Errorf("deadline: worst %v out of range: want 0 < worst <= %v (attempt max, %v, is the true worst case)", c.Worst, MaxDuration, c.AttemptMax)
	case c.MaxAttempts < 1 || c.MaxAttempts > MaxAttempts:
		return fmt.Errorf("deadline: max attempts %d out of range: want 1 <= max attempts <= %d", c.MaxAttempts, MaxAttempts)
	case c.Policy == nil:
		return errors.New("deadline: policy is nil: want a schedule.Policy")
	case c.Mode < Oblivious || c.Mode > CheckBeforeSleep:
		return fmt.Errorf("deadline: mode %d out of range: want Oblivious, CheckOnWake or CheckBeforeSleep", int(c.Mode))
	case c.Seed < 0 || c.Seed >= lcg.Modulus:
		return fmt.Errorf("deadline: seed %d out of range: want 0 <= seed < 2^31 (%d)", c.Seed, int64(lcg.Modulus))
	}
	return nil
}

// Result counts what happened to the requests and their attempts. Every
// request ends in exactly one of InTime, Late, GaveUp and Exhausted.
type Result struct {
	// Mode is the mode of the run.
	Mode Mode
	// Requests is the number of requests.
	Requests int
	// Attempts is the number of attempts made, first attempts included.
	Attempts int
	// Wasted is the number of attempts that ended after their request's
	// deadline: work the dependency did for a caller who had gone.
	Wasted int
	// InTime is the number of requests answered by their deadline.
	InTime int
	// Late is the number of requests answered only after their deadline.
	Late int
	// GaveUp is the number of requests the client abandoned because of the
	// deadline: before a sleep (CheckBeforeSleep) or on waking after it
	// had passed (CheckOnWake).
	GaveUp int
	// Exhausted is the number of requests that made MaxAttempts attempts
	// without an answer.
	Exhausted int
}

// WastedShare returns Wasted/Attempts, or 0 if there were no attempts.
func (r Result) WastedShare() float64 {
	if r.Attempts == 0 {
		return 0
	}
	return float64(r.Wasted) / float64(r.Attempts)
}

// Rows are the results of one setting in several modes.
type Rows []Result

// Of returns the result of mode m, or the zero Result if rs holds none.
func (rs Rows) Of(m Mode) Result { return lab.Of(rs, func(r Result) Mode { return r.Mode }, m) }

// Compare runs c once in each of Modes (c.Mode is ignored) and returns the
// results in that order; address them by mode: rs.Of(CheckBeforeSleep).
func Compare(c Config) (Rows, error) {
	var out Rows
	for _, m := range Modes() {
		c.Mode = m
		r, err := Run(c)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// StreamSeed returns the seed of request i's generator in a run seeded
// with seed: a hash of the two (the finaliser of SplitMix64), reduced to
// [0, 2³¹). Hashing, rather than seeding request i with seed + i, keeps the
// requests' streams unrelated: the k-th states of an LCG seeded with s and
// s + 1 always differ by the same amount (aᵏ mod 2³¹), which would tie
// neighbouring requests' draws together.
func StreamSeed(seed int64, i int) int64 {
	z := uint64(seed)<<32 ^ uint64(uint32(i))
	z += 0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	z ^= z >> 31
	return int64(z >> 33)
}

// String describes the setting in one line, its mode left out (Compare runs
// every mode): "1000 requests over 10s, outage 5s, budget 2s, attempts 50ms
// to 250ms, at most 6 attempts, full(base=100ms cap=2s mult=2), seed
// 1513241".
func (c Config) String() string {
	return fmt.Sprintf("%d requests over %v, outage %v, budget %v, attempts %v to %v, at most %d attempts, %v, seed %d",
		c.Requests, c.Spread, c.Outage, c.Budget, c.AttemptMin, c.AttemptMax, c.MaxAttempts, c.Policy, c.Seed)
}

// Table returns one line per mode: its attempts, those wasted (and their
// share), the requests answered in time and late, those given up and those
// that ran out of attempts; where the rows hold the oblivious client and
// the check before sleeping, a note says what the check saves.
func (rs Rows) Table() table.Table {
	t := table.New("mode", "attempts", "wasted", "share", "in time", "late", "gave up", "exhausted")
	modes := map[Mode]bool{}
	for _, r := range rs {
		t.Add(r.Mode.String(), r.Attempts, r.Wasted, table.Num("%.1f%%", 100*r.WastedShare()), r.InTime, r.Late, r.GaveUp, r.Exhausted)
		modes[r.Mode] = true
	}
	if modes[Oblivious] && modes[CheckBeforeSleep] {
		ob, check := rs.Of(Oblivious), rs.Of(CheckBeforeSleep)
		t.Note("the check saves %d attempts (%d of them wasted) and answers %d fewer requests in time",
			ob.Attempts-check.Attempts, ob.Wasted, ob.InTime-check.InTime)
	}
	return t
}

// WorstTable runs c with each assumed worst attempt (see Config.Worst;
// c.AttemptMax is the true worst case) and returns, per assumption, the
// wasted attempts and the requests answered in time.
func WorstTable(c Config, worsts ...time.Duration) (table.Table, error) {
	t := table.New("check assumes attempts take at most", "really up to", "wasted attempts", "answered in time")
	for _, w := range worsts {
		r, err := Run(c.WithWorst(w))
		if err != nil {
			return table.Table{}, err
		}
		t.Add(w, c.AttemptMax, r.Wasted, r.InTime)
	}
	return t, nil
}
