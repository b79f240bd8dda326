package zoo

import (
	"context"
	"slices"
	"strings"
	"testing"
	"testing/cryptotest"
	"time"

	awsretry "github.com/aws/aws-sdk-go-v2/aws/retry"
)

// awsClient finds the AWS loopback row whose settings contain part.
func awsClient(t *testing.T, part string) HTTPClient {
	t.Helper()
	for _, c := range AWSClients() {
		if strings.Contains(c.Settings, part) {
			return c
		}
	}
	t.Fatalf("no AWS row with settings containing %q", part)
	return HTTPClient{}
}

// A real SQS client over loopback, retrying with the SDK's standard retryer
// at the pinned version: a client of its own per caller makes 3 attempts
// (standard.go DefaultMaxAttempts) with first waits under 50 ms (BaseDelay
// 50 ms, full jitter: jitter_backoff.go backoffDelay2026) and gives up; one
// client shared by all callers shares one quota of 500 tokens (standard.go
// DefaultRetryRateTokens), 14 per retry on a 503 (35 retries for the whole
// cohort) and 5 per retry on a throttling error (100 retries), whose waits
// start from 1 s; the fix serves every caller.
func TestAWSOverLoopback(t *testing.T) {
	if testing.Short() {
		t.Skip("real sockets and a few seconds of real time")
	}
	for _, c := range []struct {
		settings          string
		clients           int
		outage            time.Duration
		retries, served   int // retries -1: not pinned
		firstHi, someOver time.Duration
	}{
		// The outages leave seconds of margin after the last retry the
		// retryer can choose, for a loaded machine or the race detector;
		// the runs end when every caller has given up.
		{"a client per caller, defaults", 50, 3 * time.Second, 2 * 50, 0, 50 * time.Millisecond, 0},
		{"for all callers, defaults", 50, 3 * time.Second, 500 / 14, 0, 50 * time.Millisecond, 0},
		{"throttling", 200, 5 * time.Second, 500 / 5, 0, time.Second, 50 * time.Millisecond},
		{"MaxAttempts 20", 50, time.Second, -1, 50, 50 * time.Millisecond, 0},
	} {
		t.Run(c.settings, func(t *testing.T) {
			r, err := RunHTTP(context.Background(), awsClient(t, c.settings), c.clients, c.outage, 1)
			if err != nil {
				t.Fatal(err)
			}
			if c.retries >= 0 && len(r.Retries) != c.retries {
				t.Errorf("%d retries, want %d", len(r.Retries), c.retries)
			}
			if r.Served != c.served {
				t.Errorf("%d of %d callers served, want %d", r.Served, c.clients, c.served)
			}
			if len(r.FirstWaits) == 0 {
				t.Fatal("the retryer reported no wait")
			}
			over := false
			for _, w := range r.FirstWaits {
				if w < 0 || w >= c.firstHi {
					t.Fatalf("a first wait of %v, outside [0, %v)", w, c.firstHi)
				}
				over = over || w > c.someOver
			}
			if c.someOver > 0 && !over {
				t.Errorf("no first wait over %v: throttling errors should wait from a 1 s base", c.someOver)
			}
		})
	}
}

// The standard retryer draws its jitter from crypto/rand (the SDK's
// internal/rand), not from a generator an option can seed. Only a test can
// fix it, through testing/cryptotest.SetGlobalRandom; a program cannot.
func TestAWSJitterIsCryptoRand(t *testing.T) {
	var runs [2][]time.Duration
	for i := range runs {
		cryptotest.SetGlobalRandom(t, 7)
		r := awsretry.NewStandard()
		for attempt := 1; attempt <= 4; attempt++ {
			d, err := r.RetryDelay(attempt, down{})
			if err != nil {
				t.Fatal(err)
			}
			runs[i] = append(runs[i], d)
		}
	}
	if !slices.Equal(runs[0], runs[1]) {
		t.Errorf("with crypto/rand's global source seeded alike, the waits differ: %v, %v", runs[0], runs[1])
	}
	r := awsretry.NewStandard()
	a, _ := r.RetryDelay(1, down{})
	b, _ := r.RetryDelay(1, down{})
	c, _ := r.RetryDelay(1, down{})
	if a == b && b == c {
		t.Errorf("three unseeded draws all %v", a)
	}
}
