package retry_test

import (
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/backofflab/backofflab/retry"
)

var now = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func TestParseRetryAfter(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Duration
	}{
		{"0", 0},
		{"1", time.Second},
		{" 120\t", 2 * time.Minute},
		{"007", 7 * time.Second},
		{"9223372036", 9223372036 * time.Second},
		{"9223372037", math.MaxInt64},
		{"99999999999999999999999999", math.MaxInt64},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second},
		{"Sunday, 01-Mar-26 12:00:30 GMT", 30 * time.Second}, // RFC 850
		{"Sun Mar  1 12:00:05 2026", 5 * time.Second},        // asctime
		{now.Add(-time.Hour).Format(http.TimeFormat), 0},     // in the past
	} {
		t.Run(fmt.Sprintf("%q", tc.in), func(t *testing.T) {
			got, err := retry.ParseRetryAfter(tc.in, now)
			if err != nil || got != tc.want {
				t.Errorf("ParseRetryAfter(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
			}
		})
	}
	for _, bad := range []string{"", "  ", "-5", "+5", "1.5", "1e3", "soon", "0x10", "5 s", "Sun, 01 Mar 2026"} {
		if got, err := retry.ParseRetryAfter(bad, now); err == nil || got != 0 || !strings.HasPrefix(err.Error(), "retry: ") {
			t.Errorf("ParseRetryAfter(%q) = %v, %v; want 0 and a 'retry: ' error", bad, got, err)
		}
	}
}

func FuzzParseRetryAfter(f *testing.F) {
	for _, s := range []string{"0", "120", "-1", "1.5", "99999999999999999999", "", "Sun, 01 Mar 2026 12:00:30 GMT",
		"Sunday, 01-Mar-26 12:00:30 GMT", "Sun Mar  1 12:00:05 2026", "Fri, 31 Dec 9999 23:59:59 GMT", "\t7 "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := retry.ParseRetryAfter(s, now)
		if d < 0 {
			t.Fatalf("ParseRetryAfter(%q) = %v: negative", s, d)
		}
		if err != nil {
			if d != 0 {
				t.Fatalf("ParseRetryAfter(%q) = %v with error %v: want 0", s, d, err)
			}
			return
		}
		v := strings.Trim(s, " \t")
		if n, perr := strconv.ParseUint(v, 10, 64); perr == nil && n < math.MaxInt64/uint64(time.Second) {
			if d != time.Duration(n)*time.Second {
				t.Fatalf("ParseRetryAfter(%q) = %v, want %d s", s, d, n)
			}
		}
	})
}

func FuzzConfigValidation(f *testing.F) {
	f.Add(3, int64(0), int64(0), 503, int64(time.Millisecond), false, false)
	f.Add(-1, int64(-1), int64(-1), 99, int64(-1), true, true)
	f.Add(1000, int64(24*time.Hour), int64(24*time.Hour), 599, int64(0), false, true)
	f.Add(math.MaxInt, int64(math.MaxInt64), int64(math.MinInt64), 600, int64(math.MaxInt64), true, false)
	f.Fuzz(func(t *testing.T, attempts int, attemptTO, maxRA int64, status int, base int64, noBudget, noBreaker bool) {
		cfg := retry.TransportConfig{
			Config: retry.Config{
				MaxAttempts: attempts, AttemptTimeout: time.Duration(attemptTO), MaxRetryAfter: time.Duration(maxRA),
				Policy:        retry.FullJitter{Base: time.Duration(base)},
				DisableBudget: noBudget, DisableBreaker: noBreaker,
			},
			RetryStatus: []int{status},
		}
		tr, err := retry.NewTransport(cfg)
		r, rerr := retry.New(cfg.Config)
		if (rerr != nil) && err == nil {
			t.Fatalf("NewTransport accepted %+v that New rejects: %v", cfg, rerr)
		}
		if err != nil {
			if tr != nil || !strings.HasPrefix(err.Error(), "retry: ") || !strings.Contains(err.Error(), "want") {
				t.Fatalf("NewTransport(%+v) = %v, %v: want nil and a 'retry: ... want ...' error", cfg, tr, err)
			}
			return
		}
		if r == nil || attempts < 0 || attempts > 1000 || attemptTO < 0 || maxRA < 0 || base <= 0 || status < 400 || status > 599 {
			t.Fatalf("accepted out-of-range config %+v", cfg)
		}
	})
}
