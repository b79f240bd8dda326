package zoo

import (
	"context"
	"testing"

	backoffv5 "github.com/cenkalti/backoff/v5"

	"github.com/backofflab/backofflab/retry"
)

// First-attempt overhead: the cost of calling an operation that succeeds at
// once through each library, as a service pays it on every healthy call.
// Each library gets what a service keeps between calls: this project's
// Retrier (with its budget and breaker) and cenkalti's options.
func BenchmarkFirstAttempt(b *testing.B) {
	ctx := context.Background()
	b.Run("backofflab-retry.Do", func(b *testing.B) {
		var r retry.Retrier
		op := func(context.Context) error { return nil }
		b.ReportAllocs()
		for b.Loop() {
			if err := r.Do(ctx, op); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("backofflab-package-Do", func(b *testing.B) {
		op := func(context.Context) error { return nil }
		b.ReportAllocs()
		for b.Loop() {
			if err := retry.Do(ctx, op); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cenkalti-backoff-v5.Retry", func(b *testing.B) {
		op := func() (struct{}, error) { return struct{}{}, nil }
		b.ReportAllocs()
		for b.Loop() {
			if _, err := backoffv5.Retry(ctx, op); err != nil {
				b.Fatal(err)
			}
		}
	})
}
