package tabletest

import (
	"testing"

	"github.com/backofflab/backofflab/lab/table"
)

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	failed []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) { r.failed = append(r.failed, format) }

func TestHas(t *testing.T) {
	tb := table.New("policy", "calls")
	tb.Add("full", 12)
	r := &recorder{TB: t}
	Has(r, "calls", tb, "full       12", "policy")
	if len(r.failed) != 0 {
		t.Errorf("Has failed on lines the table holds: %v", r.failed)
	}
	Has(r, "calls", tb, "full       12", "equal", "13")
	if len(r.failed) != 2 {
		t.Errorf("Has reported %d missing lines, want 2 (equal, 13)", len(r.failed))
	}
}
