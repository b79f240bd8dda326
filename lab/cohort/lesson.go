package cohort

import (
	"fmt"
	"slices"
	"time"

	"github.com/backofflab/backofflab/lab/schedule"
	"github.com/backofflab/backofflab/lab/table"
)

// The In Phase lesson's tables beyond the policy tables themselves: each
// reads one claim of the lesson off Tables or a Trace, so that a notebook
// cell shows it in one call and the command line prints the same.

// String describes the setting in one line: "60 clients, limit 8, 120ms
// per call, outage until 3s, horizon 10m0s".
func (c Config) String() string {
	return fmt.Sprintf("%d clients, limit %d, %v per call, outage until %v, horizon %v", c.Clients, c.Limit, c.Service, c.Outage, c.Horizon)
}

// WorkFloor describes the work floor: "work floor: 60 × 120ms / 8 = 900ms".
func (c Config) WorkFloor() string {
	return fmt.Sprintf("work floor: %d × %v / %d = %v", c.Clients, c.Service, c.Limit, c.Work())
}

// seconds is the finish of a run in seconds, the measure of the lesson's
// "± SE" claims about time.
func seconds(r Result) float64 { return r.Finish.Seconds() }

// Admitted returns, per policy of the main table, the admitted calls in
// each seed (their least and most), the service they take and that service
// spread over the limit (the work), and the mean refusals: every policy
// does the same work, and the refusals are what differs.
func (t Tables) Admitted(c Config) table.Table {
	tb := table.New("policy", "admitted in each seed", "service", fmt.Sprintf("work at limit %d", c.Limit), "refusals (mean)")
	byAdmitted := func(a, b Result) int { return a.Admitted - b.Admitted }
	for _, r := range t.Main {
		lo, hi := slices.MinFunc(r.Runs, byAdmitted).Admitted, slices.MaxFunc(r.Runs, byAdmitted).Admitted
		service := time.Duration(hi) * c.Service
		tb.Add(r.Policy, table.Num("%d to %d (%d seeds)", lo, hi, len(r.Runs)), service, service/time.Duration(c.Limit), table.Num("%.1f", r.Calls-r.Admitted))
	}
	return tb
}

// Recovery returns the main setting's two ends: exponential backoff's
// finish and idle share of its recovery, and full jitter's finish and calls
// after the outage, each a mean ± its standard error over the seeds.
func (t Tables) Recovery(c Config) table.Table {
	exp, full := t.Main.Of(schedule.NameExponential), t.Main.Of(schedule.NameFull)
	tb := table.New("policy", "finish s", "idle s", "recovery s", "idle share", "calls after the outage")
	tb.Add(exp.Policy, table.Num("%.2f", exp.FinishMs/1000), table.Num("%.2f", exp.IdleMs/1000), table.Num("%.2f", exp.RecoveryMs/1000),
		table.Num("%.1f%%", 100*exp.IdleFraction), table.Num("%.0f", exp.CallsRecovery))
	finish, se := full.MeanSE(seconds)
	calls, cse := full.MeanSE(func(r Result) float64 { return float64(r.CallsRecovery) })
	tb.Add(full.Policy, table.Num("%.2f ± %.2f", finish, se), table.Num("%.2f", full.IdleMs/1000), table.Num("%.2f", full.RecoveryMs/1000),
		table.Num("%.1f%%", 100*full.IdleFraction), table.Num("%.1f ± %.1f", calls, cse))
	tb.Note("means ± standard errors over %d seeds, for %d clients", full.Seeds, c.Clients)
	return tb
}

// BackoffCalls returns which backoff policy (all but the constant wait)
// made the fewest calls in the main setting, and how much later than full
// jitter equal jitter finishes, beside equal jitter's own standard error.
func (t Tables) BackoffCalls() table.Table {
	fewest := t.Main.Of(schedule.NameExponential)
	for _, r := range t.Main {
		if r.Policy != schedule.NameConstant && r.Calls < fewest.Calls {
			fewest = r
		}
	}
	full, _ := t.Main.Of(schedule.NameFull).MeanSE(seconds)
	equal, se := t.Main.Of(schedule.NameEqual).MeanSE(seconds)
	tb := table.New("", "")
	tb.Add("fewest calls of the backoff policies", table.Text("%s (%.1f)", fewest.Policy, fewest.Calls))
	tb.Add("equal jitter finishes after full jitter by", table.Text("%.2f s (its own SE %.2f s)", equal-full, se))
	return tb
}

// WorstBucket returns the bucket after the outage with the most calls and
// how many calls the dependency can admit in a bucket.
func (tr *Trace) WorstBucket() Count {
	var worst Count
	for _, b := range tr.Buckets(Bucket) {
		if b.Capacity > 0 && b.Calls() > worst.Calls() {
			worst = b
		}
	}
	return worst
}

// WaveTable returns one line per wave (Waves): its retry number, its first
// call, its calls and admitted calls, its width and the silence before the
// next wave.
func (tr *Trace) WaveTable() table.Table {
	waves := tr.Waves()
	tb := table.New("retry", "first call", "calls", "admitted", "width", "next wave after")
	for i, w := range waves {
		row := []any{w.Retry, w.First, w.Calls, w.Admitted, w.Width()}
		if i+1 < len(waves) {
			row = append(row, waves[i+1].First-w.Last)
		}
		tb.Add(row...)
	}
	return tb
}

// BetweenWaves returns how many calls fall in the silences between waves.
func (tr *Trace) BetweenWaves() int {
	waves, between := tr.Waves(), 0
	for _, a := range tr.Attempts {
		for i := 1; i < len(waves); i++ {
			if a.At > waves[i-1].Last && a.At < waves[i].First {
				between++
			}
		}
	}
	return between
}

// SpreadTable returns the spread table: per window the first attempts
// were spread over, the width of the first burst and of the last burst
// that still holds every client, the change between the two and against
// the window itself, the waves that stay whole and the finish; a note gives
// the largest distance of a burst from its window.
func (t Tables) SpreadTable() table.Table {
	tb := table.New("spread", "first burst ms", "while whole ms", "change", "vs spread", "waves whole", "finish s")
	worst := 0.0
	for _, r := range t.Spread {
		vs := 100 * (r.Held/r.SpreadMs - 1)
		worst = max(worst, -vs, vs)
		tb.Add(r.Spread, table.Num("%.1f", r.Initial), table.Num("%.1f", r.Held), table.Num("%+.1f%%", 100*(r.Held/r.Initial-1)),
			table.Num("%+.1f%%", vs), r.HeldWaves, table.Num("%.2f", r.FinishMs/1000))
	}
	if len(t.Spread) > 0 {
		tb.Note("largest distance of a burst from its spread: %.1f%% (%d seeds)", worst, t.Spread[0].Seeds)
	}
	return tb
}

// WaveWidths returns the mean width of every wave, by retry number, of the
// spread table's row for the given window, or an error naming the windows
// the table has.
func (t Tables) WaveWidths(spread time.Duration) (table.Table, error) {
	var have []time.Duration
	for _, r := range t.Spread {
		if r.Spread != spread {
			have = append(have, r.Spread)
			continue
		}
		tb := table.New("retry", "mean width ms")
		for k, w := range r.Widths {
			tb.Add(k, table.Num("%.1f", w))
		}
		return tb, nil
	}
	return table.Table{}, fmt.Errorf("cohort: the spread table has no spread %v: want one of %v", spread, have)
}

// ConstantWait returns the main setting's fastest policy and what the
// constant wait's speed costs: its calls against full jitter's, and its
// calls during the outage as tries per client.
func (t Tables) ConstantWait(c Config) table.Table {
	fastest := t.Main[0]
	for _, r := range t.Main {
		if r.FinishMs < fastest.FinishMs {
			fastest = r
		}
	}
	full, constant := t.Main.Of(schedule.NameFull), t.Main.Of(schedule.NameConstant)
	tb := table.New("", "")
	tb.Add("fastest policy", table.Text("%s, %.2f s", fastest.Policy, fastest.FinishMs/1000))
	tb.Add("constant wait's calls", table.Text("%.0f, %.1f× full jitter's %.1f", constant.Calls, constant.Calls/full.Calls, full.Calls))
	tb.Add("during the outage", table.Text("%.0f calls = %d clients × %.0f tries each", constant.CallsOutage, c.Clients, constant.CallsOutage/float64(c.Clients)))
	return tb
}

// CapTable returns the cap table's rows for one policy against the
// constant wait: per cap, the finish and calls (full jitter's as a mean ±
// SE), how much faster or slower than the constant wait, the share of its
// calls, and the idle share of the recovery; a row that equals the constant
// wait says so.
func (t Tables) CapTable(policy string) table.Table {
	constant := t.Main.Of(schedule.NameConstant)
	tb := table.New(schedule.Label(policy)+", cap", "finish s", "vs constant", "calls", "share of constant's", "idle share of the recovery", "")
	for _, r := range t.Caps {
		if r.Policy != policy {
			continue
		}
		finish, se := r.MeanSE(seconds)
		calls, cse := r.MeanSE(func(x Result) float64 { return float64(x.Calls) })
		same := ""
		if r.FinishMs == constant.FinishMs && r.Calls == constant.Calls && r.IdleMs == constant.IdleMs {
			same = "= constant wait"
		}
		tb.Add(r.Cap, table.Num("%.2f ± %.2f", finish, se), table.Num("%+.2f s", finish-constant.FinishMs/1000), table.Num("%.0f ± %.0f", calls, cse),
			table.Num("%.2f", calls/constant.Calls), table.Num("%.1f%%", 100*r.IdleFraction), same)
	}
	tb.Note("constant wait: %.2f s, %.0f calls", constant.FinishMs/1000, constant.Calls)
	return tb
}

// PeakTable returns, for rows, full jitter's worst 100 ms as a mean ± SE
// beside exponential backoff's.
func PeakTable(rows Rows) table.Table {
	full, exp := rows.Of(schedule.NameFull), rows.Of(schedule.NameExponential)
	peak, se := full.MeanSE(func(r Result) float64 { return float64(r.PeakPer100ms) })
	tb := table.New("policy", "worst 100 ms (calls)")
	tb.Add(full.Policy, table.Num("%.1f ± %.1f", peak, se))
	tb.Add(exp.Policy, table.Num("%.0f", exp.PeakPer100ms))
	tb.Note("means over %d seeds", full.Seeds)
	return tb
}

// FloorTable returns, for the overload setting c and its rows, each
// finished policy's finish and recovery against the work floor: no run can
// end before the outage plus the floor.
func FloorTable(c Config, rows Rows) table.Table {
	tb := table.New("policy", "finish s", "after the outage s", "× the work floor")
	for _, r := range rows { // a policy that never finishes has no time to set against the floor
		if r.Unfinished == 0 {
			tb.Add(r.Policy, table.Num("%.2f", r.FinishMs/1000), table.Num("%.2f", r.RecoveryMs/1000), table.Num("%.2f×", r.RecoveryMs/float64(c.Work().Milliseconds())))
		}
	}
	tb.Note("%d clients, limit %d: work floor %v after the %v outage, so no run can end before %v", c.Clients, c.Limit, c.Work(), c.Outage, c.Outage+c.Work())
	return tb
}

// OverloadCalls returns the overload setting's two failures: the constant
// wait's calls against full jitter's, and the clients exponential backoff
// leaves unfinished at the horizon, with its idle share.
func OverloadCalls(c Config, rows Rows) table.Table {
	full, constant, exp := rows.Of(schedule.NameFull), rows.Of(schedule.NameConstant), rows.Of(schedule.NameExponential)
	calls, se := full.MeanSE(func(r Result) float64 { return float64(r.Calls) })
	tb := table.New("", "")
	tb.Add("calls", table.Text("full jitter %.0f ± %.0f, constant wait %.0f: %.1f× as many", calls, se, constant.Calls, constant.Calls/calls))
	tb.Add("exponential", table.Text("%d to %d of %d clients unfinished at %v over %d seeds, idle %.1f%% of the recovery",
		exp.UnfinishedMin, exp.UnfinishedMax, c.Clients, c.Horizon, exp.Seeds, 100*exp.IdleFraction))
	return tb
}

// PairTable returns two policies side by side in the main, no-outage and
// overload settings: their finish, calls and worst 100 ms.
func (t Tables) PairTable(a, b string) table.Table {
	la, lb := schedule.Label(a), schedule.Label(b)
	tb := table.New("setting", la+" s", lb+" s", la+" calls", lb+" calls", la+" peak/100ms", lb+" peak/100ms")
	for _, s := range []struct {
		name string
		rows Rows
	}{{"main (cap 3.2s)", t.Main}, {"no outage", t.NoOutage}, {"overload", t.Overload}} {
		x, y := s.rows.Of(a), s.rows.Of(b)
		tb.Add(s.name, table.Num("%.2f", x.FinishMs/1000), table.Num("%.2f", y.FinishMs/1000), table.Num("%.0f", x.Calls), table.Num("%.0f", y.Calls),
			table.Num("%.0f", x.PeakPer100ms), table.Num("%.0f", y.PeakPer100ms))
	}
	return tb
}

// RulerTable returns each policy's finish on the board and its share of
// the ruler (the slowest finish); notes name the ruler's end and the
// tallest burst that sets the calls panels' scale.
func (b *Board) RulerTable() table.Table {
	tb := table.New("policy", "finishes at", "share of the ruler")
	for i, r := range b.Results {
		tb.Add(b.Names[i], r.Finish, table.Num("%.0f%%", 100*r.Finish.Seconds()/b.End.Seconds()))
	}
	tb.Note("ruler: 0 to %v (the slowest finish)", b.End)
	for i, r := range b.Results {
		if r.PeakPer100ms == b.Tallest {
			tb.Note("calls scale: up to the tallest burst, %d calls in 100 ms (%s)", b.Tallest, b.Names[i])
			break
		}
	}
	return tb
}

// BusyTable returns, per policy on the board, the calls after the outage,
// the distinct milliseconds they fall in and the calls per busy
// millisecond: clients in phase share their milliseconds.
func (b *Board) BusyTable() table.Table {
	tb := table.New("policy", "calls after the outage", "distinct milliseconds", "calls per busy millisecond")
	for i, tr := range b.Traces {
		busy, calls := map[time.Duration]bool{}, 0
		for _, a := range tr.Attempts {
			if a.At >= b.Config.Outage {
				busy[a.At] = true
				calls++
			}
		}
		tb.Add(b.Names[i], calls, len(busy), table.Num("%.1f", float64(calls)/float64(len(busy))))
	}
	return tb
}

// StartTable returns, per policy on the board, the calls at t = 0, the
// calls in the first bucket and the finish.
func (b *Board) StartTable() table.Table {
	tb := table.New("policy", "calls at t = 0", "calls in the first 100 ms", "finish")
	for i, tr := range b.Traces {
		atZero := 0
		for _, a := range tr.Attempts {
			if a.At == 0 {
				atZero++
			}
		}
		tb.Add(b.Names[i], atZero, tr.Buckets(Bucket)[0].Calls(), b.Results[i].Finish)
	}
	return tb
}

// RecoveryLine describes the named policy's run on the board in one line:
// its worst 100 ms (beside the board's tallest), its worst millisecond after
// the outage and its idle share of the recovery.
func (b *Board) RecoveryLine(name string) (string, error) {
	i, err := b.index(name)
	if err != nil {
		return "", err
	}
	r := b.Results[i]
	return fmt.Sprintf("%s: worst 100 ms %d calls (the board's tallest: %d), worst millisecond after the outage %d calls; idle %v of %v (%.1f%%)",
		schedule.Label(name), r.PeakPer100ms, b.Tallest, r.PeakPerMs, r.Idle, r.Recovery, 100*r.IdleFraction()), nil
}
