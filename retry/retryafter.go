package retry

import (
	"fmt"
	"math"
	"net/http"
	"strings"
	"time"
)

// ParseRetryAfter parses the value of a Retry-After header (RFC 9110
// §10.2.3) received at now, and returns the wait it asks for. The value is
// either delay-seconds, a string of ASCII digits, or an HTTP-date in any of
// the three forms http.ParseTime accepts. A date in the past asks for no
// wait; a number of seconds too large for a Duration saturates at the
// largest Duration. Anything else, including a negative or fractional
// number, is an error.
func ParseRetryAfter(value string, now time.Time) (time.Duration, error) {
	v := strings.Trim(value, " \t")
	if v == "" {
		return 0, fmt.Errorf("retry: empty Retry-After: want delay-seconds or an HTTP-date")
	}
	if digits(v) {
		const most = math.MaxInt64 / int64(time.Second) // whole seconds a Duration holds
		var secs int64
		for i := 0; i < len(v); i++ {
			d := int64(v[i] - '0')
			if secs > (most-d)/10 {
				return math.MaxInt64, nil // saturate: absurd but well-formed
			}
			secs = secs*10 + d
		}
		return time.Duration(secs) * time.Second, nil
	}
	t, err := http.ParseTime(v)
	if err != nil {
		if len(v) > 40 {
			v = v[:40] + "…"
		}
		return 0, fmt.Errorf("retry: Retry-After %q is neither delay-seconds nor an HTTP-date", v)
	}
	return max(t.Sub(now), 0), nil
}

// digits reports whether s is non-empty and all ASCII digits.
func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
