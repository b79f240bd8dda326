package cohort

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

func TestMeanSE(t *testing.T) {
	for _, c := range []struct {
		xs       []float64
		mean, se float64
	}{
		{nil, 0, 0},
		{[]float64{7}, 7, 0},
		{[]float64{1, 2, 3, 4}, 2.5, math.Sqrt(5.0/3) / 2}, // sample variance 5/3, √4 = 2
		{[]float64{5, 5, 5}, 5, 0},
	} {
		t.Run(fmt.Sprint(c.xs), func(t *testing.T) {
			mean, se := meanSE(c.xs)
			if math.Abs(mean-c.mean) > 1e-12 || math.Abs(se-c.se) > 1e-12 {
				t.Errorf("meanSE(%v) = %v, %v; want %v, %v", c.xs, mean, se, c.mean, c.se)
			}
		})
	}
}

func TestSummaryMeanSE(t *testing.T) {
	// Flat retry has no randomness: every seed finishes at 4.52 s.
	constant, err := Average(Lesson().WithPolicy(lineupOf("constant").Policy), 5)
	if err != nil {
		t.Fatal(err)
	}
	mean, se := constant.MeanSE(func(r Result) float64 { return r.Finish.Seconds() })
	if mean != 4.52 || se != 0 {
		t.Errorf("constant finish = %v ± %v, want 4.52 ± 0", mean, se)
	}
	// Full jitter varies from seed to seed; the mean agrees with FinishMs.
	full, err := Average(Lesson().WithPolicy(lineupOf("full").Policy), 10)
	if err != nil {
		t.Fatal(err)
	}
	mean, se = full.MeanSE(func(r Result) float64 { return float64(r.Finish.Milliseconds()) })
	if math.Abs(mean-full.FinishMs) > 1e-9 || se <= 0 || se > 1000 {
		t.Errorf("full finish = %v ± %v ms, want %v ± a positive SE under 1 s", mean, se, full.FinishMs)
	}
}

func TestScoreboard(t *testing.T) {
	b, err := NewBoard(Lesson(), Lineup())
	if err != nil {
		t.Fatal(err)
	}
	rows := b.Scoreboard()
	if len(rows) != len(Lineup()) {
		t.Fatalf("%d rows, want %d", len(rows), len(Lineup()))
	}
	for i, r := range rows {
		res := b.Results[i]
		if r.Policy != Lineup()[i].Name || r.Seeds != 1 || r.FinishMs != ms(res.Finish) || r.Calls != float64(res.Calls) ||
			r.IdleMs != ms(res.Idle) || r.Admitted != 60 || r.PeakPer100ms != float64(res.PeakPer100ms) {
			t.Errorf("row %d = %+v, want the run %+v", i, r.Summary, res)
		}
	}
	out := rows.Table().String()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 8 || lines[7] != "(one run)" {
		t.Fatalf("scoreboard:\n%s", out)
	}
	// One run's counts print without decimals.
	if f := strings.Fields(lines[2]); f[0] != "exponential" || f[1] != "25.62" || f[2] != "556" || f[3] != "300" {
		t.Errorf("exponential line %q", lines[2])
	}
}

func TestRowsTable(t *testing.T) {
	rows, err := Table(Lesson(), Lineup(), 3)
	if err != nil {
		t.Fatal(err)
	}
	out := rows.Table().String()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 8 || lines[7] != "(means over 3 seeds)" {
		t.Fatalf("table:\n%s", out)
	}
	head := strings.Fields(lines[1])
	if head[0] != "policy" || head[1] != "s" || head[len(head)-1] != "unfinished" || !strings.HasPrefix(strings.TrimSpace(lines[0]), "finish") {
		t.Errorf("header %q\n%q", lines[0], lines[1])
	}
	// Columns line up: every line has the same length.
	for i, l := range lines[:7] {
		if len(l) != len(lines[0]) {
			t.Errorf("line %d is %d wide, header %d:\n%s", i, len(l), len(lines[0]), out)
		}
	}
	if f := strings.Fields(lines[6]); f[0] != "constant" || f[1] != "4.52" || f[2] != "2252.0" || f[3] != "1800.0" {
		t.Errorf("constant line %q", lines[6])
	}
	if none := Rows(nil).Table().String(); len(strings.Split(none, "\n")) != 3 {
		t.Errorf("no rows: %q; want the header only", none)
	}
}

func TestCapRowsTable(t *testing.T) {
	rows, err := CapTable(Lesson(), DefaultCaps[:2], 2)
	if err != nil {
		t.Fatal(err)
	}
	out := rows.Table().String()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 11 || !strings.HasPrefix(strings.TrimSpace(lines[1]), "cap  policy") {
		t.Fatalf("cap table:\n%s", out)
	}
	// Exponential capped at 100 ms is constant retry every 100 ms.
	if f := strings.Fields(lines[2]); f[0] != "100ms" || f[1] != "exponential" || f[2] != "4.52" || f[3] != "2252.0" {
		t.Errorf("first line %q", lines[2])
	}
	if f := strings.Fields(lines[6]); f[0] != "200ms" || f[1] != "exponential" || f[2] != "4.62" {
		t.Errorf("fifth line %q", lines[6])
	}
}
