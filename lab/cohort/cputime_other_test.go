//go:build !unix

package cohort

import "time"

// cpuTime reports false: this system gives no process CPU time.
func cpuTime() (time.Duration, bool) { return 0, false }
