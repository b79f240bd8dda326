package notebook

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"image"
	_ "image/jpeg" // image.DecodeConfig of saved JPEGs
	_ "image/png"  // and PNGs
	"maps"
	"slices"
	"strings"
)

// A shown is one thing a code cell shows a reader, in the form two runs are compared by: what it
// is (what), and either its text, or its kind (such as "PNG 864×922" or "interactive chart"),
// size and a SHA-256 of its data.
type shown struct {
	what string
	text string
	kind string // "" for text, compared exactly
	size int
	hash string
}

// equal reports whether s and o show the same. Of a measured cell's data only the kind counts.
func (s shown) equal(o shown, measured bool) bool {
	switch {
	case s.what != o.what || s.kind != o.kind:
		return false
	case s.kind == "":
		return s.text == o.text
	default:
		return measured || s.hash == o.hash
	}
}

func (s shown) digest() string {
	if s.kind == "" {
		return fmt.Sprintf("text, %s, sha256 %s", size(len(s.text)), sum([]byte(s.text)))
	}
	return fmt.Sprintf("%s, %s, sha256 %s", s.kind, size(s.size), s.hash)
}

func (s shown) String() string {
	if s.kind != "" {
		return s.what + ": " + s.digest()
	}
	return s.what + ":\n" + s.text
}

// textMIME lists the text outputs a reader sees, in the order they are compared; the data of the
// other MIME types (images, and HTML that draws a chart) are compared by hash.
var textMIME = []string{"text/plain", "text/markdown", "text/latex", "text/html"}

// shownBy returns what cell c shows a reader: what it printed on standard output and on standard
// error (each as one text, however the run split it into outputs), its errors, and each of its
// displays, in order, MIME type by MIME type.
func shownBy(c Cell) []shown {
	var stdout, stderr strings.Builder
	var errs, displays []shown
	n := 0
	for _, o := range c.Outputs {
		switch o.OutputType {
		case "stream":
			if o.Name == "stderr" {
				stderr.WriteString(string(o.Text))
			} else {
				stdout.WriteString(string(o.Text))
			}
		case "error":
			errs = append(errs, shown{what: "error", text: o.EName + ": " + o.EValue + "\n" + stripANSI(strings.Join(o.Traceback, "\n"))})
		case "display_data", "execute_result":
			n++
			mimes := make([]string, 0, len(o.Data))
			for m := range o.Data {
				mimes = append(mimes, m)
			}
			slices.SortFunc(mimes, func(a, b string) int {
				if ra, rb := textRank(a), textRank(b); ra != rb {
					return ra - rb
				}
				return strings.Compare(a, b)
			})
			for _, m := range mimes {
				displays = append(displays, describe(fmt.Sprintf("display %d %s", n, m), m, string(o.Data[m])))
			}
		}
	}
	var out []shown
	if stdout.Len() > 0 {
		out = append(out, shown{what: "stdout", text: stdout.String()})
	}
	if stderr.Len() > 0 {
		out = append(out, shown{what: "stderr", text: stderr.String()})
	}
	out = append(out, errs...)
	return append(out, displays...)
}

// textRank orders a display's MIME types: the text ones first, in textMIME's order, then the rest.
func textRank(mime string) int {
	if i := slices.Index(textMIME, mime); i >= 0 {
		return i
	}
	return len(textMIME)
}

// describe returns one MIME datum of a display as it is compared: text exactly, an image, an
// interactive chart or an explorable by its hash, with what a person needs to tell two apart.
func describe(what, mime, data string) shown {
	hashed := func(kind string, b []byte) shown { return shown{what: what, kind: kind, size: len(b), hash: sum(b)} }
	switch {
	case strings.HasPrefix(mime, "image/") && mime != "image/svg+xml":
		raw, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(data), ""))
		if err != nil {
			return hashed("not base64", []byte(data))
		}
		kind := strings.ToUpper(strings.TrimPrefix(mime, "image/"))
		if cfg, _, err := image.DecodeConfig(bytes.NewReader(raw)); err == nil {
			kind = fmt.Sprintf("%s %d×%d", kind, cfg.Width, cfg.Height)
		}
		return hashed(kind, raw)
	case mime == "text/html" && strings.Contains(data, "backofflab-explorable"):
		return hashed("explorable", []byte(data))
	case mime == "text/html" && strings.Contains(data, "backofflab-chart"):
		return hashed("interactive chart", []byte(data))
	case slices.Contains(textMIME, mime):
		return shown{what: what, text: data}
	default: // image/svg+xml, JSON, JavaScript, widgets: data, not prose
		return hashed("data", []byte(data))
	}
}

func sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

func size(n int) string {
	if n < 1000 {
		return fmt.Sprintf("%d B", n)
	}
	return fmt.Sprintf("%.1f kB", float64(n)/1000)
}

// Compare returns how the outputs of a fresh run of a notebook differ from its saved ones, code
// cell by code cell: what each cell printed on standard output and on standard error (each
// compared as one text, however the run split it into stream outputs), its errors, and what it
// displayed, in order: text (text/plain, text/markdown, text/latex, and HTML that draws no
// chart) exactly; images, interactive charts and explorables (HTML holding a backofflab-chart or
// backofflab-explorable element) by a SHA-256 of their data, since the lessons render them
// deterministically. A cell tagged measured draws a run whose numbers vary from run to run (real
// time, or a library's own unseeded randomness): its text is still compared exactly, its images
// and charts by kind only (format and pixel size, interactive chart or explorable). Cells tagged
// skip-execution are left out: their saved outputs are empty (Check checks them when a run
// executes them).
func Compare(saved, fresh *Notebook) []Problem {
	sc, fc := codeCells(saved), codeCells(fresh)
	if len(sc) != len(fc) {
		return []Problem{{0, fmt.Sprintf("the fresh run has %d code cells, the saved notebook %d", len(fc), len(sc))}}
	}
	var probs []Problem
	for k, i := range sc {
		s, f := saved.Cells[i], fresh.Cells[fc[k]]
		if fc[k] != i || s.Source != f.Source {
			probs = append(probs, Problem{fc[k] + 1, fmt.Sprintf("is not the saved notebook's cell %d: the two notebooks hold different code", i+1)})
			continue
		}
		if s.HasTag(TagSkipExecution) {
			continue
		}
		if msg := difference(shownBy(s), shownBy(f), s.HasTag(TagMeasured)); msg != "" {
			probs = append(probs, Problem{i + 1, msg})
		}
	}
	return probs
}

// codeCells returns the indexes of the notebook's code cells.
func codeCells(nb *Notebook) []int {
	var out []int
	for i, c := range nb.Cells {
		if c.CellType == "code" {
			out = append(out, i)
		}
	}
	return out
}

// difference says how got differs from want, or returns "" when they are the same.
func difference(want, got []shown, measured bool) string {
	var b strings.Builder
	for i := range max(len(want), len(got)) {
		switch {
		case i >= len(got):
			fmt.Fprintf(&b, "\nthe fresh run lacks the saved %s", want[i])
		case i >= len(want):
			fmt.Fprintf(&b, "\nthe fresh run shows what the saved notebook does not: %s", got[i])
		case !want[i].equal(got[i], measured):
			if want[i].kind != "" || got[i].kind != "" {
				fmt.Fprintf(&b, "\n%s differs:\n  saved: %s\n  fresh: %s", want[i].what, want[i].digest(), got[i].digest())
			} else {
				fmt.Fprintf(&b, "\n%s differs:\nfresh:\n%s\nsaved:\n%s", want[i].what, got[i].text, want[i].text)
			}
		}
	}
	if b.Len() == 0 {
		return ""
	}
	return "the fresh run differs from the saved outputs (not deterministic, or the notebook is stale: run scripts/build-notebooks):" + b.String()
}

// CompareCellShape compares code cell n (counted from 1 among all cells) of saved and fresh as
// Compare does, with each stream's text first passed through shape (which masks what may differ,
// such as numbers) and the cell taken as tagged measured (images and charts by kind), and returns
// the problems of that cell only.
func CompareCellShape(saved, fresh *Notebook, n int, shape func(string) string) []Problem {
	if n < 1 || n > len(saved.Cells) || n > len(fresh.Cells) {
		return []Problem{{Cell: n, Message: fmt.Sprintf("no cell %d: the notebooks hold %d and %d cells", n, len(saved.Cells), len(fresh.Cells))}}
	}
	s, f := *saved, *fresh
	s.Cells, f.Cells = slices.Clone(saved.Cells), slices.Clone(fresh.Cells)
	for _, nb := range []*Notebook{&s, &f} {
		c := nb.Cells[n-1]
		c.Outputs = slices.Clone(c.Outputs)
		for k, o := range c.Outputs {
			if o.OutputType == "stream" {
				o.Text = Text(shape(string(o.Text)))
				c.Outputs[k] = o
			}
		}
		tags, _ := c.Metadata["tags"].([]any)
		c.Metadata = maps.Clone(c.Metadata)
		if c.Metadata == nil {
			c.Metadata = map[string]any{}
		}
		c.Metadata["tags"] = append(slices.Clone(tags), TagMeasured)
		nb.Cells[n-1] = c
	}
	var out []Problem
	for _, p := range Compare(&s, &f) {
		if p.Cell == n {
			out = append(out, p)
		}
	}
	return out
}
