package lab

import "fmt"

// Of returns the first element of xs whose key is k, or the zero E when
// none has it (as http.Header.Get returns "" for a missing key). It is the
// one lookup behind every model's results by name, so that a cell names the
// row it means, rows.Of(schedule.NameFull), rather than its place, rows[1].
func Of[S ~[]E, E any, K comparable](xs S, key func(E) K, k K) E {
	for _, x := range xs {
		if key(x) == k {
			return x
		}
	}
	var zero E
	return zero
}

// A Config is a model's configuration: it can say whether it may run.
type Config interface {
	Validate() error
}

// RunEach validates every one of cs, then runs run on each in order and
// returns the results in that order: the one shape of every model's
// RunEach. A config out of range stops it before the first run (so a bad
// last config does not cost the runs before it), and so does the first
// failed run; either error names the config's place, and its Label if it
// has one.
func RunEach[S ~[]C, C Config, R any](cs S, run func(C) (R, error)) ([]R, error) {
	for i, c := range cs {
		if err := c.Validate(); err != nil {
			return nil, fmt.Errorf("%s: %w", place(i, len(cs), c), err)
		}
	}
	out := make([]R, len(cs))
	for i, c := range cs {
		r, err := run(c)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", place(i, len(cs), c), err)
		}
		out[i] = r
	}
	return out, nil
}

// place names run i of n, with c's label if it has one.
func place(i, n int, c any) string {
	if l, ok := c.(interface{ Label() string }); ok {
		return fmt.Sprintf("run %d of %d (%s)", i+1, n, l.Label())
	}
	return fmt.Sprintf("run %d of %d", i+1, n)
}
