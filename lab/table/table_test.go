package table_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/backofflab/backofflab/lab/table"
)

func Example() {
	t := table.New("run", "attempts", "peak", "last")
	t.Add("no jitter", 3600, table.Num("%.0f/s", 3000.0), 21*time.Second)
	t.Add("full width", 3323, table.Num("%.0f/s", 925.0), 31500*time.Millisecond)
	t.Note("(one run each, seed %d)", 42)
	fmt.Print(t)
	// Output:
	// run         attempts    peak   last
	// no jitter       3600  3000/s    21s
	// full width      3323   925/s  31.5s
	// (one run each, seed 42)
}

func ExampleTable_HTML() {
	t := table.New("policy", "finish\ns")
	t.Add("full <jitter>", table.Num("%.2f", 9.875))
	fmt.Println(t.HTML())
	// Output:
	// <div class="backofflab-table"><table style="border-collapse:collapse;font-variant-numeric:tabular-nums;margin:4px 0"><thead><tr><th style="text-align:left;vertical-align:bottom;padding:2px 8px">policy</th><th style="text-align:right;vertical-align:bottom;padding:2px 8px">finish<br>s</th></tr></thead><tbody><tr><td style="text-align:left;padding:2px 8px;white-space:pre">full &lt;jitter&gt;</td><td style="text-align:right;padding:2px 8px;white-space:pre">9.88</td></tr></tbody></table></div>
}

func TestTwoLineHeaderIsBottomAligned(t *testing.T) {
	tb := table.New("policy", "finish\ns", "calls")
	tb.Add("exponential", 12.5, 480)
	want := "             finish\n" +
		"policy            s  calls\n" +
		"exponential    12.5    480\n"
	if got := tb.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestColumnAlignment(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cells []any
		want  string
	}{
		{"numbers right", []any{"a", 1, 2.5, time.Second}, "a  1  2.5  1s"},
		{"text left", []any{"a", "b", table.Text("c"), struct{}{}}, "a  b  c  {}"},
		{"a text cell makes its column left", []any{"a", "x", 1}, "a  x  1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tb := table.New("h", "hh", "hhh", "hhhh")
			tb.Add(tc.cells...)
			tb.Add("bb", 10, 20.25, 12*time.Second)
			lines := strings.Split(strings.TrimSuffix(tb.String(), "\n"), "\n")
			if len(lines) != 3 {
				t.Fatalf("got %d lines, want 3:\n%s", len(lines), tb)
			}
			if got := strings.Join(strings.Fields(lines[1]), "  "); got != tc.want {
				t.Errorf("row %q, want %q", got, tc.want)
			}
			// Every line ends where the widest does, or earlier only by trailing spaces trimmed.
			for _, l := range lines {
				if strings.HasSuffix(l, " ") {
					t.Errorf("line %q ends in a space", l)
				}
			}
		})
	}
	tb := table.New("name", "n")
	tb.Add("a", 1).Add("bbb", 100)
	if got, want := tb.String(), "name    n\na       1\nbbb   100\n"; got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
}

func TestRaggedRowsAndEmptyCells(t *testing.T) {
	tb := table.New("a", "b")
	tb.Add("x")
	tb.Add("y", 2, "extra")
	tb.Add("z", "")
	want := "a  b\nx\ny  2  extra\nz\n"
	if got := tb.String(); got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
	h := tb.HTML()
	if n := strings.Count(h, "<td"); n != 9 {
		t.Errorf("HTML has %d cells, want 3 rows × 3 columns:\n%s", n, h)
	}
	if !strings.Contains(h, `<td style="text-align:right;padding:2px 8px;white-space:pre">2</td>`) {
		t.Errorf("the number column is not right-aligned in HTML:\n%s", h)
	}
}

func TestTitleAndNotes(t *testing.T) {
	tb := table.New("k", "v")
	tb.Title = fmt.Sprintf("Peaks at %v", time.Second)
	tb.Add("a", 1)
	tb.Note("(means over %d seeds)", 40)
	if got, want := tb.String(), "Peaks at 1s\nk  v\na  1\n(means over 40 seeds)\n"; got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
	h := tb.HTML()
	for _, want := range []string{">Peaks at 1s</caption>", "<p style=\"margin:2px 0\">(means over 40 seeds)</p>"} {
		if !strings.Contains(h, want) {
			t.Errorf("HTML lacks %q:\n%s", want, h)
		}
	}
}

func TestHTMLEscapesEverything(t *testing.T) {
	tb := table.New(`<b>"h"</b>`)
	tb.Title = "<script>"
	tb.Add("a & b")
	tb.Note("<i>")
	h := tb.HTML()
	for _, bad := range []string{"<b>", "<script>", "<i>", "a & b"} {
		if strings.Contains(h, bad) {
			t.Errorf("HTML holds %q unescaped:\n%s", bad, h)
		}
	}
}

func TestZeroTable(t *testing.T) {
	var tb table.Table
	if s := tb.String(); s != "" {
		t.Errorf("zero table prints %q, want nothing", s)
	}
	if h := tb.HTML(); strings.Contains(h, "<th") || strings.Contains(h, "<td") {
		t.Errorf("zero table's HTML has cells: %s", h)
	}
}

func TestWideRunesAlign(t *testing.T) {
	tb := table.New("μ", "n")
	tb.Add("± 1 µs", 1)
	tb.Add("x", 10)
	if got, want := tb.String(), "μ        n\n± 1 µs   1\nx       10\n"; got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
}
