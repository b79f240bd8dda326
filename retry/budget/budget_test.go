package budget

import (
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func TestZeroBudgetIsTenPercentOverTenSeconds(t *testing.T) {
	var b Budget
	if got, want := b.Config(), (Config{Ratio: 0.1, Buckets: 10, Width: time.Second}); got != want {
		t.Fatalf("zero Budget config = %+v, want %+v", got, want)
	}
	if b.AllowRetry(t0) {
		t.Fatal("a budget with no requests allowed a retry")
	}
	b.RecordRequests(t0, 9)
	if b.AllowRetry(t0) {
		t.Fatal("9 requests allowed a retry at 10 %")
	}
	b.RecordRequest(t0)
	if !b.AllowRetry(t0) {
		t.Fatal("10 requests refused the first retry at 10 %")
	}
	if b.AllowRetry(t0) {
		t.Fatal("10 requests allowed a second retry at 10 %")
	}
	if got := b.Counts(t0); got != (Counts{Requests: 10, Retries: 1}) {
		t.Fatalf("counts = %+v, want 10 requests, 1 retry", got)
	}
}

func TestRatioIsExactAtIntegerBoundaries(t *testing.T) {
	for _, ratio := range []float64{0.01, 0.07, 0.1, 0.29, 0.3, 0.57, 1} {
		for _, requests := range []int{1, 3, 10, 70, 100, 1000} {
			b, err := New(Config{Ratio: ratio})
			if err != nil {
				t.Fatal(err)
			}
			b.RecordRequests(t0, requests)
			allowed := 0
			for b.AllowRetry(t0) {
				allowed++
			}
			// floor of the exact product, which float rounding may put a hair below an integer
			want := int(math.Floor(ratio*float64(requests) + 1e-6))
			if allowed != want {
				t.Errorf("ratio %v of %d requests allowed %d retries, want %d", ratio, requests, allowed, want)
			}
		}
	}
}

func TestWindowSlidesBucketByBucket(t *testing.T) {
	var b Budget // ten one-second buckets; the first time seen starts bucket 0
	b.RecordRequests(t0, 20)
	if got := b.Counts(t0).Requests; got != 20 {
		t.Fatalf("requests in window at +0s = %d, want 20", got)
	}
	b.RecordRequests(t0.Add(5*time.Second), 10)
	for _, tc := range []struct {
		at   time.Duration
		want int64
	}{
		{9*time.Second + 999*time.Millisecond, 30},
		{10 * time.Second, 10}, // bucket 0 has left the window
		{14*time.Second + 999*time.Millisecond, 10},
		{15 * time.Second, 0},
		{time.Hour, 0},
	} {
		t.Run(fmt.Sprintf("+%v", tc.at), func(t *testing.T) {
			if got := b.Counts(t0.Add(tc.at)).Requests; got != tc.want {
				t.Errorf("requests in window at +%v = %d, want %d", tc.at, got, tc.want)
			}
		})
	}
}

func TestTimeGoingBackwardsCountsAsLatest(t *testing.T) {
	var b Budget
	b.RecordRequests(t0.Add(20*time.Second), 10)
	b.RecordRequests(t0, 10) // earlier than the latest: recorded at the latest
	if got := b.Counts(t0.Add(20 * time.Second)).Requests; got != 20 {
		t.Fatalf("requests = %d, want 20 (the late record lands in the newest bucket)", got)
	}
	if got := b.Counts(t0.Add(29 * time.Second)).Requests; got != 20 {
		t.Fatalf("requests 9 s later = %d, want 20", got)
	}
	if got := b.Counts(t0.Add(30 * time.Second)).Requests; got != 0 {
		t.Fatalf("requests 10 s later = %d, want 0", got)
	}
}

func TestMinRetriesLetsAQuietClientRetry(t *testing.T) {
	b, err := New(Config{MinRetries: 2})
	if err != nil {
		t.Fatal(err)
	}
	b.RecordRequest(t0)
	if !b.AllowRetry(t0) || !b.AllowRetry(t0) {
		t.Fatal("MinRetries 2 refused one of the first two retries")
	}
	if b.AllowRetry(t0) {
		t.Fatal("MinRetries 2 allowed a third retry with 1 request")
	}
	// The allowance is per window: after it slides, two more.
	if !b.AllowRetry(t0.Add(10*time.Second)) || !b.AllowRetry(t0.Add(10*time.Second)) {
		t.Fatal("the allowance did not renew with the window")
	}
}

// Under a sustained outage every request fails and its client asks to retry
// up to twice. The budget must keep retries at or under 10 % of requests in
// every window, and should not refuse much below it either.
func TestSustainedOutageCapsRetriesAtRatio(t *testing.T) {
	var b Budget
	var requests, retries int
	for ms := 0; ms < 60_000; ms += 10 { // 60 s, one request per 10 ms
		now := t0.Add(time.Duration(ms) * time.Millisecond)
		b.RecordRequest(now)
		requests++
		for range 2 {
			if b.AllowRetry(now) {
				retries++
			}
		}
		c := b.Counts(now)
		if float64(c.Retries) > 0.1*float64(c.Requests)+1e-9 {
			t.Fatalf("at +%dms the window holds %d retries for %d requests: over 10 %%", ms, c.Retries, c.Requests)
		}
	}
	amplification := float64(requests+retries) / float64(requests)
	if amplification > 1.1 || amplification < 1.09 {
		t.Fatalf("amplification %.4f, want in [1.09, 1.10]", amplification)
	}
}

func TestConcurrentUseStaysWithinRatio(t *testing.T) {
	var b Budget
	var wg sync.WaitGroup
	var mu sync.Mutex
	allowed := 0
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n := 0
			for i := range 1000 {
				now := t0.Add(time.Duration(i%5) * time.Millisecond)
				b.RecordRequest(now)
				if g%2 == 0 && b.AllowRetry(now) {
					n++
				}
			}
			mu.Lock()
			allowed += n
			mu.Unlock()
		}()
	}
	wg.Wait()
	c := b.Counts(t0)
	if c.Requests != 16000 || c.Retries != int64(allowed) {
		t.Fatalf("counts %+v, want 16000 requests and %d retries", c, allowed)
	}
	if allowed > 1600 {
		t.Fatalf("%d retries allowed for 16000 requests: over 10 %%", allowed)
	}
}

func TestValidateNamesTheParameterAndRange(t *testing.T) {
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{Ratio: -0.1}, "budget: ratio -0.1 out of range: want 0 < ratio <= 1"},
		{Config{Ratio: 1.5}, "budget: ratio 1.5 out of range"},
		{Config{Ratio: math.NaN()}, "budget: ratio NaN out of range"},
		{Config{Buckets: -1}, "budget: buckets -1 out of range: want 1 <= buckets <= 3600"},
		{Config{Buckets: 3601}, "budget: buckets 3601 out of range"},
		{Config{Width: time.Nanosecond}, "budget: width 1ns out of range: want 1µs <= width <= 1h0m0s"},
		{Config{Width: -time.Second}, "budget: width -1s out of range"},
		{Config{Width: 2 * time.Hour}, "budget: width 2h0m0s out of range"},
		{Config{MinRetries: -3}, "budget: min retries -3 out of range: want 0 <= min retries <= 1073741824"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			_, err := New(tc.cfg)
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("New(%+v) error = %v, want prefix %q", tc.cfg, err, tc.want)
			}
		})
	}
	for _, ok := range []Config{{}, {Ratio: 1, Buckets: 3600, Width: time.Hour, MinRetries: 1 << 30}, {Ratio: 1e-9, Buckets: 1, Width: time.Microsecond}} {
		if err := ok.Validate(); err != nil {
			t.Errorf("Validate(%+v) = %v, want nil", ok, err)
		}
	}
}

func TestAbsurdTimesDoNotPanic(t *testing.T) {
	b, err := New(Config{Width: time.Microsecond, Buckets: 3600})
	if err != nil {
		t.Fatal(err)
	}
	for _, now := range []time.Time{{}, time.Unix(math.MaxInt64/2, 0), time.Unix(-math.MaxInt64/2, 0), t0} {
		b.RecordRequest(now)
		b.AllowRetry(now)
		b.Counts(now)
	}
}

func FuzzNew(f *testing.F) {
	f.Add(0.1, 10, int64(time.Second), 0)
	f.Add(-1.0, -1, int64(-1), -1)
	f.Add(1.0, 3600, int64(time.Hour), 1<<30)
	f.Add(math.Inf(1), 1<<40, int64(math.MaxInt64), math.MaxInt)
	f.Fuzz(func(t *testing.T, ratio float64, buckets int, width int64, minRetries int) {
		cfg := Config{Ratio: ratio, Buckets: buckets, Width: time.Duration(width), MinRetries: minRetries}
		b, err := New(cfg)
		if err != nil {
			if b != nil || !strings.HasPrefix(err.Error(), "budget: ") || !strings.Contains(err.Error(), "want") {
				t.Fatalf("New(%+v) = %v, %v: want nil and a 'budget: ... want ...' error", cfg, b, err)
			}
			return
		}
		got := b.Config()
		if !(got.Ratio > 0 && got.Ratio <= 1) || got.Buckets < 1 || got.Width < MinWidth {
			t.Fatalf("accepted config %+v has fields out of range", got)
		}
		b.RecordRequests(t0, 100)
		allowed := 0
		for b.AllowRetry(t0) && allowed <= 200 {
			allowed++
		}
		if limit := got.Ratio*100 + float64(got.MinRetries); float64(allowed) > limit+1e-6 {
			t.Fatalf("%+v allowed %d retries for 100 requests, limit %v", got, allowed, limit)
		}
	})
}

func BenchmarkRecordAndAllow(b *testing.B) {
	var bud Budget
	now := t0
	for b.Loop() {
		now = now.Add(time.Millisecond)
		bud.RecordRequest(now)
		bud.AllowRetry(now)
	}
}

func BenchmarkRecordAndAllowParallel(b *testing.B) {
	var bud Budget
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			now := time.Now()
			bud.RecordRequest(now)
			bud.AllowRetry(now)
		}
	})
}
