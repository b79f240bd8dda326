// Package table holds the lessons' tables: rows of cells under a header,
// written as aligned text (for the command line and any plain output) or as
// an HTML table (for a notebook, where lab/show displays both forms).
//
// A model builds its tables with [New] and [Table.Add] and returns them;
// whoever prints them chooses the form:
//
//	t := table.New("run", "attempts", "peak")
//	t.Add("no jitter", 3600, table.Num("%.0f/s", 3000.0))
//	fmt.Print(t) // aligned text
//	show.Table(t) // in a notebook: an HTML table, with the text as text/plain
//
// Numbers are right-aligned and text left-aligned: a column whose cells are
// all numbers (Go integers and floats, time.Duration, or cells made with
// [Num]) is right-aligned, header included; any other column is
// left-aligned.
package table

import (
	"fmt"
	"html"
	"strings"
	"time"
	"unicode/utf8"
)

// Cell is one cell of a table: its text and whether it is a number, which
// right-aligns its column (see the package documentation).
type Cell struct {
	Text   string
	Number bool
}

// Num returns a number cell formatted with fmt.Sprintf(format, args...):
// Num("%.2f", x), Num("%d of %d", n, total), Num("%v ± %v", m, se).
func Num(format string, args ...any) Cell {
	return Cell{Text: fmt.Sprintf(format, args...), Number: true}
}

// Text returns a text cell, left-aligned unless it sits in a column of
// numbers.
func Text(format string, args ...any) Cell {
	return Cell{Text: fmt.Sprintf(format, args...)}
}

// CellOf returns v as a cell: a Cell as it is; a string as text; a Go
// integer or float (%v) or a time.Duration (its String) as a number; any
// other value as text, formatted with %v.
func CellOf(v any) Cell {
	switch v := v.(type) {
	case Cell:
		return v
	case string:
		return Cell{Text: v}
	case time.Duration:
		return Cell{Text: v.String(), Number: true}
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, float32, float64:
		return Cell{Text: fmt.Sprint(v), Number: true}
	}
	return Cell{Text: fmt.Sprint(v)}
}

// Table is a table of cells: a title, a header, rows and notes. The zero
// Table is an empty table; [New] starts one with a header.
type Table struct {
	// Title, if not empty, is written above the table.
	Title string
	// Head names the columns. A name with a line break ("finish\ns")
	// takes two header lines.
	Head []string
	// Rows are the table's lines, each a cell per column. A row shorter
	// than the header leaves its last columns empty; a longer one adds
	// columns without a name.
	Rows [][]Cell
	// Notes are lines written under the table, such as "(means over 40
	// seeds)".
	Notes []string
}

// New returns a table with the given column names.
func New(head ...string) Table { return Table{Head: head} }

// Add appends a row, each value made a cell by [CellOf], and returns t.
func (t *Table) Add(cells ...any) *Table {
	row := make([]Cell, len(cells))
	for i, c := range cells {
		row[i] = CellOf(c)
	}
	t.Rows = append(t.Rows, row)
	return t
}

// Note appends a line under the table, formatted with fmt.Sprintf, and
// returns t.
func (t *Table) Note(format string, args ...any) *Table {
	t.Notes = append(t.Notes, fmt.Sprintf(format, args...))
	return t
}

// columns returns the number of columns: the header's or the longest
// row's.
func (t Table) columns() int {
	n := len(t.Head)
	for _, r := range t.Rows {
		n = max(n, len(r))
	}
	return n
}

// right reports, per column, whether it is right-aligned: every non-empty
// cell of the column is a number, and there is at least one.
func (t Table) right() []bool {
	n := t.columns()
	right := make([]bool, n)
	seen := make([]bool, n)
	for k := range right {
		right[k] = true
	}
	for _, r := range t.Rows {
		for k, c := range r {
			if c.Text == "" {
				continue
			}
			seen[k] = true
			right[k] = right[k] && c.Number
		}
	}
	for k := range right {
		right[k] = right[k] && seen[k]
	}
	return right
}

// headLines returns the header as lines of cells: one line per line break
// in the tallest name, names bottom-aligned.
func (t Table) headLines() [][]string {
	n := t.columns()
	split := make([][]string, n)
	tall := 0
	for k := range n {
		if k < len(t.Head) && t.Head[k] != "" {
			split[k] = strings.Split(t.Head[k], "\n")
		}
		tall = max(tall, len(split[k]))
	}
	lines := make([][]string, tall)
	for i := range lines {
		lines[i] = make([]string, n)
		for k, s := range split {
			if j := i - (tall - len(s)); j >= 0 {
				lines[i][k] = s[j]
			}
		}
	}
	return lines
}

// String returns the table as aligned text: the title, the header, the
// rows, two spaces between columns, then the notes, each line ending in a
// newline and without trailing spaces.
func (t Table) String() string {
	n := t.columns()
	right := t.right()
	head := t.headLines()
	width := make([]int, n)
	for _, l := range head {
		for k, s := range l {
			width[k] = max(width[k], utf8.RuneCountInString(s))
		}
	}
	for _, r := range t.Rows {
		for k, c := range r {
			width[k] = max(width[k], utf8.RuneCountInString(c.Text))
		}
	}
	var b strings.Builder
	line := func(cells []string) {
		var l strings.Builder
		for k := range n {
			s := ""
			if k < len(cells) {
				s = cells[k]
			}
			if k > 0 {
				l.WriteString("  ")
			}
			pad := strings.Repeat(" ", width[k]-utf8.RuneCountInString(s))
			if right[k] {
				l.WriteString(pad + s)
			} else {
				l.WriteString(s + pad)
			}
		}
		b.WriteString(strings.TrimRight(l.String(), " ") + "\n")
	}
	if t.Title != "" {
		b.WriteString(t.Title + "\n")
	}
	for _, l := range head {
		line(l)
	}
	for _, r := range t.Rows {
		cells := make([]string, len(r))
		for k, c := range r {
			cells[k] = c.Text
		}
		line(cells)
	}
	for _, note := range t.Notes {
		b.WriteString(note + "\n")
	}
	return b.String()
}

// HTML returns the table as an HTML fragment: a <table
// class="backofflab-table"> with the title as its caption, the header in
// <thead> (a line break in a name as <br>), numbers right-aligned in
// tabular figures, then each note in a <p>. Every text is escaped.
func (t Table) HTML() string {
	n := t.columns()
	right := t.right()
	align := func(k int) string {
		if right[k] {
			return "right"
		}
		return "left"
	}
	var b strings.Builder
	b.WriteString(`<div class="backofflab-table">`)
	b.WriteString(`<table style="border-collapse:collapse;font-variant-numeric:tabular-nums;margin:4px 0">`)
	if t.Title != "" {
		b.WriteString(`<caption style="caption-side:top;text-align:left;font-weight:bold;padding:2px 0">` + html.EscapeString(t.Title) + `</caption>`)
	}
	if t.columns() > 0 && len(t.Head) > 0 {
		b.WriteString("<thead><tr>")
		for k := range n {
			name := ""
			if k < len(t.Head) {
				name = t.Head[k]
			}
			lines := strings.Split(name, "\n")
			for i := range lines {
				lines[i] = html.EscapeString(lines[i])
			}
			fmt.Fprintf(&b, `<th style="text-align:%s;vertical-align:bottom;padding:2px 8px">%s</th>`, align(k), strings.Join(lines, "<br>"))
		}
		b.WriteString("</tr></thead>")
	}
	b.WriteString("<tbody>")
	for _, r := range t.Rows {
		b.WriteString("<tr>")
		for k := range n {
			text := ""
			if k < len(r) {
				text = r[k].Text
			}
			fmt.Fprintf(&b, `<td style="text-align:%s;padding:2px 8px;white-space:pre">%s</td>`, align(k), html.EscapeString(text))
		}
		b.WriteString("</tr>")
	}
	b.WriteString("</tbody></table>")
	for _, note := range t.Notes {
		b.WriteString(`<p style="margin:2px 0">` + html.EscapeString(note) + `</p>`)
	}
	b.WriteString("</div>")
	return b.String()
}
