package storm

import (
	"context"
	"time"

	"github.com/backofflab/backofflab/lab"
	"github.com/backofflab/backofflab/lab/lcg"
	"github.com/backofflab/backofflab/retry"
	"github.com/backofflab/backofflab/retry/breaker"
)

// Lesson returns the storm of lesson 11, every field set: 200 clients, a
// 3 s outage, 20 attempts and a 15 s deadline per client, schedules with
// retry.DefaultPolicy's base and cap (100 ms, 10 s), 10 ms slots, unlimited
// capacity, the lessons' seed, and package retry's defaults.
func Lesson() Config {
	def := retry.DefaultPolicy.(retry.FullJitter)
	return Config{
		Policy:   RetryDefaults,
		Clients:  DefaultClients,
		Outage:   DefaultOutage,
		Attempts: DefaultAttempts,
		Deadline: DefaultDeadline,
		Base:     def.Base,
		Cap:      def.Cap,
		Slot:     DefaultSlot,
		Seed:     lcg.DefaultSeed,
	}
}

// WithPolicy returns c running policy name: RetryDefaults or one of
// schedule.Names().
func (c Config) WithPolicy(name string) Config { c.Policy = name; return c }

// WithClients returns c with n clients.
func (c Config) WithClients(n int) Config { c.Clients = n; return c }

// WithOutage returns c with the server failing for d.
func (c Config) WithOutage(d time.Duration) Config { c.Outage = d; return c }

// WithAttempts returns c with an attempt limit of n per call.
func (c Config) WithAttempts(n int) Config { c.Attempts = n; return c }

// WithDeadline returns c with each client's deadline d.
func (c Config) WithDeadline(d time.Duration) Config { c.Deadline = d; return c }

// WithBase returns c with the schedule policies' first window d.
func (c Config) WithBase(d time.Duration) Config { c.Base = d; return c }

// WithCap returns c with the schedule policies' cap d (0, Uncapped, for
// none).
func (c Config) WithCap(d time.Duration) Config { c.Cap = d; return c }

// WithCapacity returns c with a server that answers at most n requests
// per slot after the outage (0: unlimited).
func (c Config) WithCapacity(n int) Config { c.Capacity = n; return c }

// WithSeed returns c with the clients' generators seeded from seed.
func (c Config) WithSeed(seed int64) Config { c.Seed = seed; return c }

// WithBackoff returns c with p replacing RetryDefaults' wait schedule.
func (c Config) WithBackoff(p retry.Policy) Config { c.Backoff = p; return c }

// WithBreaker returns c with bc as RetryDefaults' per-client breaker.
func (c Config) WithBreaker(bc breaker.Config) Config { c.Breaker = bc; return c }

// Results are several runs, in the order they were made.
type Results []Result

// Of returns the first result whose Config.Policy is name, or the zero
// Result if there is none.
func (rs Results) Of(name string) Result {
	return lab.Of(rs, func(r Result) string { return r.Config.Policy }, name)
}

// EachPolicy returns c once under each of names, in order: the configs
// of a comparison, for RunEach.
func (c Config) EachPolicy(names ...string) []Config {
	cs := make([]Config, len(names))
	for i, name := range names {
		cs[i] = c.WithPolicy(name)
	}
	return cs
}

// RunEach runs every configuration, one after the other (lab.RunEach): it
// checks them all before the first run starts, and stops at the first
// error. Address the results by name: rs.Of(RetryDefaults).
func RunEach(ctx context.Context, cs []Config) (Results, error) {
	return lab.RunEach(cs, func(c Config) (Result, error) { return Run(ctx, c) })
}
