// Package budget implements a retry budget: a client may retry only while
// its recent retries stay under a fixed fraction of its recent requests.
//
// The Google SRE book recommends such a per-client budget (10 % of requests)
// because a per-request attempt limit alone does not bound the total: with
// three attempts per request, a dependency that fails everything receives
// three times its normal load at the moment it can least take it. A budget
// bounds the extra load instead: over any window, retries ≤ Ratio·requests
// (plus an optional small allowance, MinRetries, for clients too quiet for
// the ratio to ever allow one).
//
// "Recent" is a sliding window of Buckets buckets, each Width long (ten
// one-second buckets by default). The window advances a bucket at a time, so
// counts older than Buckets·Width fall out of it in Width-sized steps.
//
// Every method takes the current time explicitly, so the same Budget serves a
// live client (pass time.Now()) and a tick-based simulation (pass the
// simulated clock). Time that goes backwards is treated as the latest time
// seen, so the window never moves back. A Budget is safe for concurrent use.
package budget

import (
	"fmt"
	"sync"
	"time"
)

// Defaults used for zero Config fields and by the zero Budget.
const (
	// DefaultRatio is the fraction of requests that may be retried: 10 %,
	// the SRE book's per-client retry budget.
	DefaultRatio = 0.1
	// DefaultBuckets is the number of buckets in the sliding window.
	DefaultBuckets = 10
	// DefaultWidth is the time each bucket covers.
	DefaultWidth = time.Second
)

// Limits on Config fields; New rejects values outside them.
const (
	// MaxRatio is the largest Ratio: a budget of one retry per request.
	MaxRatio = 1.0
	// MaxBuckets is the largest number of buckets.
	MaxBuckets = 3600
	// MinWidth and MaxWidth bound a bucket's width.
	MinWidth = time.Microsecond
	MaxWidth = time.Hour
	// MaxMinRetries bounds MinRetries.
	MaxMinRetries = 1 << 30
)

// Config sets a Budget's parameters. A zero field means its default, so the
// zero Config is the SRE book's budget: 10 % over ten one-second buckets.
type Config struct {
	// Ratio is the largest allowed ratio of retries to requests in the
	// window, in (0, 1]; 0 means DefaultRatio.
	Ratio float64
	// Buckets is the number of buckets in the window, in [1, 3600]; 0 means
	// DefaultBuckets.
	Buckets int
	// Width is the time one bucket covers, in [1µs, 1h]; 0 means
	// DefaultWidth.
	Width time.Duration
	// MinRetries is a number of retries allowed per window on top of the
	// ratio, in [0, 2^30], so that a client sending a request now and then
	// can still retry one. 0 (the default) means none: a pure ratio.
	MinRetries int
}

// Validate reports the first field that is out of range, naming it and the
// allowed range. Zero fields are valid: they mean the defaults.
func (c Config) Validate() error {
	switch {
	case !(c.Ratio >= 0 && c.Ratio <= MaxRatio): // also rejects NaN
		return fmt.Errorf("budget: ratio %v out of range: want 0 < ratio <= %v (0 means the default %v)", c.Ratio, MaxRatio, DefaultRatio)
	case c.Buckets < 0 || c.Buckets > MaxBuckets:
		return fmt.Errorf("budget: buckets %d out of range: want 1 <= buckets <= %d (0 means the default %d)", c.Buckets, MaxBuckets, DefaultBuckets)
	case c.Width != 0 && (c.Width < MinWidth || c.Width > MaxWidth):
		return fmt.Errorf("budget: width %v out of range: want %v <= width <= %v (0 means the default %v)", c.Width, MinWidth, MaxWidth, DefaultWidth)
	case c.MinRetries < 0 || c.MinRetries > MaxMinRetries:
		return fmt.Errorf("budget: min retries %d out of range: want 0 <= min retries <= %d", c.MinRetries, MaxMinRetries)
	}
	return nil
}

// withDefaults returns c with every zero field replaced by its default.
func (c Config) withDefaults() Config {
	if c.Ratio == 0 {
		c.Ratio = DefaultRatio
	}
	if c.Buckets == 0 {
		c.Buckets = DefaultBuckets
	}
	if c.Width == 0 {
		c.Width = DefaultWidth
	}
	return c
}

// Counts is what a Budget's window holds at some moment.
type Counts struct {
	// Requests is the number of requests recorded in the window.
	Requests int64
	// Retries is the number of retries the budget allowed in the window.
	Retries int64
}

// Budget is a retry budget over a sliding window. The zero Budget is ready
// to use with the default Config. A Budget must not be copied after first
// use.
type Budget struct {
	mu      sync.Mutex
	cfg     Config    // with defaults filled in, once ready
	ready   bool      // cfg and slots are set up
	slots   []bucket  // ring: the bucket for epoch e is slots[e mod len]
	origin  time.Time // the first time seen: epoch 0 starts there
	latest  int64     // newest epoch seen; the window is (latest-len, latest]
	started bool      // origin is set
}

// bucket holds the counts of one Width-long stretch of time, its epoch.
type bucket struct {
	epoch    int64
	requests int64
	retries  int64
}

// New returns a Budget with the given Config, or an error naming the first
// parameter that is out of range.
func New(cfg Config) (*Budget, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	b := &Budget{}
	b.setup(cfg)
	return b, nil
}

// setup fills in the configuration; the caller holds b.mu or owns b.
func (b *Budget) setup(cfg Config) {
	b.cfg = cfg.withDefaults()
	b.slots = make([]bucket, b.cfg.Buckets)
	b.ready = true
}

// Config returns the Budget's parameters, with defaults filled in.
func (b *Budget) Config() Config {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.init()
	return b.cfg
}

// init sets up a zero Budget; the caller holds b.mu.
func (b *Budget) init() {
	if !b.ready {
		b.setup(Config{})
	}
}

// RecordRequest records one request (a first attempt, not a retry) made at
// now.
func (b *Budget) RecordRequest(now time.Time) {
	b.RecordRequests(now, 1)
}

// RecordRequests records n requests made at now; n <= 0 records nothing.
// A simulation that lets many requests arrive in one tick calls it once.
func (b *Budget) RecordRequests(now time.Time, n int) {
	if n <= 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.slot(now).requests += int64(n)
}

// AllowRetry reports whether one more retry at now stays within the budget,
// and if so records it. A retry is allowed when, counting it, the window's
// retries do not exceed Ratio·requests + MinRetries. Retries are not
// requests: they do not raise the allowance themselves.
func (b *Budget) AllowRetry(now time.Time) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.slot(now)
	c := b.counts()
	if !b.allows(c) {
		return false
	}
	s.retries++
	return true
}

// allows reports whether one more retry fits the window's counts c.
func (b *Budget) allows(c Counts) bool {
	// The small slack keeps products such as 0.29·100 = 28.999999999999996
	// from refusing a retry the ratio allows exactly.
	allowance := b.cfg.Ratio*float64(c.Requests) + float64(b.cfg.MinRetries) + 1e-9
	return float64(c.Retries+1) <= allowance
}

// Counts returns the requests and retries in the window at now.
func (b *Budget) Counts(now time.Time) Counts {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.slot(now)
	return b.counts()
}

// slot advances the window to now and returns the bucket now falls in; the
// caller holds b.mu.
func (b *Budget) slot(now time.Time) *bucket {
	b.init()
	if !b.started {
		b.origin, b.started = now, true
	}
	if e := epoch(now, b.origin, b.cfg.Width); e > b.latest {
		b.latest = e
	}
	e := b.latest // time that went backwards counts as the latest time seen
	n := int64(len(b.slots))
	s := &b.slots[((e%n)+n)%n]
	if s.epoch != e {
		*s = bucket{epoch: e}
	}
	return s
}

// counts sums the buckets inside the window; the caller holds b.mu and has
// just called slot.
func (b *Budget) counts() Counts {
	var c Counts
	oldest := b.latest - int64(len(b.slots)) + 1
	for i := range b.slots {
		s := &b.slots[i]
		if s.epoch >= oldest && s.epoch <= b.latest {
			c.Requests += s.requests
			c.Retries += s.retries
		}
	}
	return c
}

// epoch is the index of the Width-long stretch of time, counted from
// origin, that t falls in. Sub saturates instead of overflowing, so even
// absurd times give a monotonic answer.
func epoch(t, origin time.Time, width time.Duration) int64 {
	d := t.Sub(origin)
	q := int64(d / width)
	if d%width < 0 {
		q--
	}
	return q
}
