package deadline

import "testing"

// BenchmarkRun reports requests simulated per second in the lesson's
// setting, for each mode.
func BenchmarkRun(b *testing.B) {
	for _, m := range Modes() {
		b.Run(m.String(), func(b *testing.B) {
			c := Lesson().WithMode(m)
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				r, err := Run(c)
				if err != nil {
					b.Fatal(err)
				}
				n += r.Requests
			}
			b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "requests/s")
		})
	}
}
