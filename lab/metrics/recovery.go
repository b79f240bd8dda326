package metrics

import "time"

// Recovery names how long after a dependency came back the last client of
// a cohort was served, late, in bounds that a real-time run's noise cannot
// move: "under 2 s", "2 to 5 s" or "over 5 s". On a busy machine the
// network and the scheduler delay every attempt, and a cohort that retries
// in step adds those delays up round after round, so a last client that
// the design serves at once may come up to a second late. A design that
// looks again within a second or so (a fixed schedule's next attempt, a
// short breaker) is still under 2 s; one that stays away for seconds (an
// open breaker, a wide backoff window) is over 5 s, since noise only makes
// clients later.
func Recovery(late time.Duration) string {
	switch {
	case late < 2*time.Second:
		return "under 2 s"
	case late < 5*time.Second:
		return "2 to 5 s"
	}
	return "over 5 s"
}
