package lcg

import "github.com/backofflab/backofflab/lab/table"

// DrawTable returns the first n draws of the generator seeded with seed, one
// line each: the draw's number, the new state and u = state / 2³¹, to six
// decimals. It returns the error of New for a seed out of range.
func DrawTable(seed int64, n int) (table.Table, error) {
	g, err := New(seed)
	if err != nil {
		return table.Table{}, err
	}
	t := table.New("draw", "new state", "u")
	for i := 1; i <= n; i++ {
		u := g.Float64()
		t.Add(i, g.State(), table.Num("%.6f", u))
	}
	return t, nil
}
