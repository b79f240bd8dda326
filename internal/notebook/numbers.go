package notebook

import (
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// A ProseNumber is a number that a Markdown cell states in its prose: "25.6 s", "8 %", "3.25×",
// "600 000/s", "8m32s". Numbers in code spans, in math, in link targets and HTML tags, list and
// heading markers, the numbers that name a lesson ("lesson 07", "**06 · In Phase**"), and those of
// a question (a guess's options: "nearer 300, 30 or 3?") are not claims and are left out.
type ProseNumber struct {
	Cell    int     // the Markdown cell, counted from 1 as Problem counts cells
	Text    string  // as written, its unit included
	Value   float64 // its value, the unit left off
	Unit    string  // "", "s", "ms", "µs", "min", "%", "×" or "/s"
	Places  int     // decimal places written: the precision the number claims
	Hedged  bool    // "about", "nearly", "roughly", "≈" … just before it
	Context string  // the words around it
}

// An OutputNumber is a number that a code cell's text output prints.
type OutputNumber struct {
	Cell    int     // the code cell, counted from 1
	Text    string  // as printed
	Value   float64 // its value; a Go duration's in seconds
	Context string  // the output line it is on

	duration bool // a Go duration (1.5s, 100ms): a prose number without a unit may read it in ms
}

// Where says where a prose number was found.
type Where int

// Where a prose number can be found, nearest first.
const (
	// Beside: in the output of a code cell of the number's own section (between the headings
	// around it) or of the code cell just before its Markdown cell.
	Beside Where = iota
	// Elsewhere: only in the output of another code cell of the notebook.
	Elsewhere
	// InCode: in no output, but written in a code cell's source (a setting the code passes).
	InCode
	// Nowhere: neither in any output nor in any code: a number no cell computed.
	Nowhere
)

func (w Where) String() string {
	return [...]string{"beside its output", "elsewhere in the notebook", "in code only", "nowhere"}[w]
}

// A NumberCheck is one prose number and where it was found: the matching output numbers (the
// cells beside it when it is Beside, the notebook's otherwise) and, to read it against, the
// output numbers beside it nearest in value.
type NumberCheck struct {
	ProseNumber
	Where   Where
	Matches []OutputNumber // the output numbers that match it, nearest cells first; none for InCode and Nowhere
	Nearest []OutputNumber // the output numbers beside it nearest in value (at most three)
}

// CheckNumbers lists every number the Markdown cells of nb state, each with where it was found
// among the numbers the code cells print (their text outputs: stdout, stderr and text/plain) and,
// failing that, among the literals of the code cells. A prose number matches an output number
// when the output number, rounded to the decimal places the prose writes, is the prose number
// (25.6 matches 25.62; 4.52 does not match 4.5). An integer prose number ending in zeros
// (2 270, 900) is read at that precision only when a word such as "about" hedges it. A prose
// duration also matches the same duration printed in another unit (0.1 s matches 100ms), and a
// composite one (1 min 6 s, 8m32s) each of its parts. Signs are ignored: prose says "0.31 s
// sooner" where a table prints -0.31 s. Matching is a help to a reader, not a proof: a wrong
// number can match an unrelated output, and a number written in words ("a third") is not seen.
func CheckNumbers(nb *Notebook) []NumberCheck {
	outputs := make(map[int][]OutputNumber) // by code cell index
	var code []float64
	for i, c := range nb.Cells {
		if c.CellType != "code" {
			continue
		}
		outputs[i] = OutputNumbers(i+1, c)
		code = append(code, codeNumbers(string(c.Source))...)
	}
	var all []OutputNumber
	for i := range nb.Cells {
		all = append(all, outputs[i]...)
	}
	var checks []NumberCheck
	for i, c := range nb.Cells {
		if c.CellType != "markdown" {
			continue
		}
		var beside []OutputNumber
		for _, j := range besideCells(nb, i) {
			beside = append(beside, outputs[j]...)
		}
		for _, p := range ProseNumbers(i+1, string(c.Source)) {
			ch := NumberCheck{ProseNumber: p, Where: Nowhere, Nearest: nearest(p, beside, 3)}
			if m := matching(p, beside); len(m) > 0 {
				ch.Where, ch.Matches = Beside, m
			} else if m := matching(p, all); len(m) > 0 {
				ch.Where, ch.Matches = Elsewhere, m
			} else if slices.ContainsFunc(code, p.matchesValue) {
				ch.Where = InCode
			}
			checks = append(checks, ch)
		}
	}
	return checks
}

// besideCells returns the code cells whose outputs a Markdown cell i reads: those of its section
// (from the heading at or before it to the next heading) and the code cell just before it.
func besideCells(nb *Notebook, i int) []int {
	heading := func(k int) bool {
		c := nb.Cells[k]
		return c.CellType == "markdown" && headingLine.MatchString(string(c.Source))
	}
	start := i
	for start > 0 && !heading(start) {
		start--
	}
	end := i + 1
	for end < len(nb.Cells) && !heading(end) {
		end++
	}
	var cells []int
	for k := i - 1; k >= 0; k-- {
		if nb.Cells[k].CellType == "code" {
			if k < start {
				cells = append(cells, k)
			}
			break
		}
	}
	for k := start; k < end; k++ {
		if nb.Cells[k].CellType == "code" {
			cells = append(cells, k)
		}
	}
	return cells
}

var headingLine = regexp.MustCompile(`(?m)^#{1,6} `)

// matching returns the output numbers among outs that p matches.
func matching(p ProseNumber, outs []OutputNumber) []OutputNumber {
	var m []OutputNumber
	for _, o := range outs {
		if p.matchesOutput(o) {
			m = append(m, o)
		}
	}
	return m
}

// nearest returns the n output numbers of outs nearest in value to p, nearest first.
func nearest(p ProseNumber, outs []OutputNumber, n int) []OutputNumber {
	type scored struct {
		o OutputNumber
		d float64
	}
	var s []scored
	seen := map[string]bool{}
	for _, o := range outs {
		key := fmt.Sprint(o.Cell, o.Text)
		if seen[key] {
			continue
		}
		seen[key] = true
		d := math.Inf(1)
		for _, v := range p.values() {
			d = math.Min(d, math.Abs(math.Abs(o.Value)-v)/math.Max(v, 1e-9))
		}
		s = append(s, scored{o, d})
	}
	slices.SortStableFunc(s, func(a, b scored) int { return cmpFloat(a.d, b.d) })
	var out []OutputNumber
	for _, x := range s[:min(n, len(s))] {
		out = append(out, x.o)
	}
	return out
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// values returns the values p may be printed as: itself, and a duration also in seconds.
func (p ProseNumber) values() []float64 {
	if secs, _, ok := p.seconds(); ok {
		return []float64{math.Abs(p.Value), secs}
	}
	return []float64{math.Abs(p.Value)}
}

// seconds returns a prose duration's value in seconds and the decimal places that has.
func (p ProseNumber) seconds() (secs float64, places int, ok bool) {
	factor := map[string]float64{"s": 1, "ms": 1e-3, "µs": 1e-6, "min": 60}[p.Unit]
	if factor == 0 {
		return 0, 0, false
	}
	return math.Abs(p.Value) * factor, p.Places + int(math.Round(-math.Log10(factor))), true
}

// matchesOutput reports whether output number o, rounded to p's precision, is p. A duration
// printed as one (1.5s, 100ms) is compared in seconds, and only with a prose duration; a composite
// one (1m6s) also part by part, as prose writes "1 min 6 s". A plain number is compared with p's
// value as written and, for a prose duration, in seconds and in milliseconds too (a table's
// column in either).
func (p ProseNumber) matchesOutput(o OutputNumber) bool {
	v := math.Abs(o.Value)
	secs, places, isDuration := p.seconds()
	if o.duration {
		if !isDuration {
			return false
		}
		if p.Places == 0 && compositeDuration.MatchString(o.Text) {
			for _, part := range durationParts.FindAllString(o.Text, -1) {
				if f, err := strconv.ParseFloat(part, 64); err == nil && f == math.Abs(p.Value) {
					return true
				}
			}
		}
		return p.near(v, secs, places)
	}
	return p.matchesValue(v) || isDuration && (p.near(v, secs, places) || p.near(v, 1000*secs, places-3))
}

// matchesValue reports whether a plain value v, rounded to p's precision, is p as written.
func (p ProseNumber) matchesValue(v float64) bool {
	return p.near(math.Abs(v), math.Abs(p.Value), p.Places)
}

// near reports whether v rounded to places is want; a hedged integer ending in zeros (about
// 2 270, about 900) is read at the precision of its last non-zero digit.
func (p ProseNumber) near(v, want float64, places int) bool {
	if roundTo(v, places) == roundTo(want, places) {
		return true
	}
	if z := trailingZeros(want); p.Hedged && places <= 0 && z > 0 {
		return roundTo(v, -z) == want
	}
	return false
}

var (
	durationParts     = regexp.MustCompile(`[0-9]+(\.[0-9]+)?`)
	compositeDuration = regexp.MustCompile(`^-?(\d+h)?\d+m\d`)
)

func roundTo(v float64, places int) float64 {
	f := math.Pow(10, float64(places))
	return math.Round(v*f) / f
}

// trailingZeros returns how many zeros an integer v ends in: 2 for 900, 1 for 2270, 0 for a
// number with decimals.
func trailingZeros(v float64) int {
	if v != math.Trunc(v) {
		return 0
	}
	n := 0
	for i := int64(v); i != 0 && i%10 == 0; i /= 10 {
		n++
	}
	return n
}

// Prose.
var (
	// What is not prose: fenced code, inline code, display and inline math, HTML tags, a link's
	// target (its text stays).
	fenced     = regexp.MustCompile("(?s)```.*?```")
	inlineCode = regexp.MustCompile("`[^`]*`")
	mathSpan   = regexp.MustCompile(`(?s)\$\$.*?\$\$|\$[^$\n]+\$`)
	htmlTag    = regexp.MustCompile(`</?[a-zA-Z][^>]*>`)
	linkTarget = regexp.MustCompile(`\]\([^)]*\)`)
	// What names a lesson or counts a list: "lesson 07", "notebooks 05 and 06", "01 · Waves",
	// "1. " at the start of a line, "### 2. A retry budget".
	lessonRef  = regexp.MustCompile(`(?i)\b(lessons?|notebooks?)\s+\d+((\s*(,|and|or|to|–|-)\s*)\d+)*`)
	lessonName = regexp.MustCompile(`\b\d+\s+·`)
	listMarker = regexp.MustCompile(`(?m)^(\s*|#{1,6}\s+)\d+\.\s`)
	// Names with digits in them: a year in a citation, an RFC, a version, an HTTP status given
	// with its name.
	named = regexp.MustCompile(`\b(19|20)\d\d\)|\bRFC\s+\d+|\bv\d+(\.\d+)*\b|\bHTTP/\d(\.\d)?|\b[1-5]\d\d\s+(Service Unavailable|OK|Not Found|Too Many Requests|ServiceUnavailable|ThrottlingException)\b`)

	// A number as prose writes it: a Go duration (8m32s, 1h2m), or digits with an optional
	// thousands grouping ("600 000", "1,490") and decimals; then an optional unit.
	proseNumber = regexp.MustCompile(`(?:^|[^\p{L}\p{N}_.\-/])` +
		`([−+-]?)` +
		`(\d+h(?:\d+m)?(?:\d+(?:\.\d+)?s)?|\d+m\d+(?:\.\d+)?s|\d{1,3}(?:(?:,|[  \x{202f}])\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)` +
		`(\s?(?:ms|µs|ns|s|min|minutes?|seconds?|%|×|x|/s)|-(?:second|minute|millisecond)s?)?` +
		`(?:$|[^\p{L}\p{N}_⁰¹²³⁴⁵⁶⁷⁸⁹ⁿ^])`)
	listUnit       = regexp.MustCompile(`^(?:(?:\s*(?:,|and|or|to|then|–))+\s*\d+(?:\.\d+)?)+\s?(ms|µs|s|min|%)(?:$|[^\p{L}\p{N}])`)
	listUnitBefore = regexp.MustCompile(`\d\s?(ms|µs|s|min|%)(?:\s*(?:,|and|or|to|then|–))+\s*(?:\d+(?:\.\d+)?(?:\s*(?:,|and|or|to|then|–))+\s*)*$`)
	hedge          = regexp.MustCompile(`(?i)(about|nearly|roughly|around|almost|some|approximately|≈|~|close to)\s*$`)
)

// ProseNumbers returns the numbers that a Markdown cell's text states, the cell counted from 1.
func ProseNumbers(cell int, markdown string) []ProseNumber {
	text := markdown
	for _, re := range []*regexp.Regexp{fenced, inlineCode, mathSpan, htmlTag, linkTarget, lessonRef, lessonName, named} {
		text = re.ReplaceAllStringFunc(text, blank)
	}
	text = listMarker.ReplaceAllStringFunc(text, blank)
	text = blankQuestions(text) // a guess's options are not claims
	var out []ProseNumber
	for _, m := range allMatches(proseNumber, text) {
		sign, num := text[m[2]:m[3]], text[m[4]:m[5]]
		unit := ""
		if m[6] >= 0 {
			unit = text[m[6]:m[7]]
		}
		p := ProseNumber{Cell: cell, Text: strings.TrimSpace(sign + num + unit)}
		if unit == "" { // "0.1, 0.3 and 0.7 s", "100 ms, then 200, 400": the list's unit
			if l := listUnit.FindStringSubmatch(text[m[5]:]); l != nil {
				unit = l[1]
			} else if l := listUnitBefore.FindStringSubmatch(text[:m[4]]); l != nil {
				unit = l[1]
			}
		}
		p.Value, p.Unit, p.Places = parseProse(num, unit)
		if sign == "−" || sign == "-" {
			p.Value = -p.Value
		}
		p.Hedged = hedge.MatchString(text[:m[2]])
		end := m[5]
		if m[7] > end {
			end = m[7]
		}
		p.Context = around(text, m[2], end)
		out = append(out, p)
	}
	return out
}

// allMatches returns the submatch indexes of every match of re in s, where each next match may
// begin right after the previous one's last group: the delimiter a match ends on ("3, 4")
// may begin the next one, which FindAllStringSubmatchIndex would not allow.
func allMatches(re *regexp.Regexp, s string) [][]int {
	var out [][]int
	for pos := 0; pos < len(s); {
		m := re.FindStringSubmatchIndex(s[pos:])
		if m == nil {
			break
		}
		end := 0 // the end of the last group that matched
		for k := 3; k < len(m); k += 2 {
			end = max(end, m[k])
		}
		for k := range m {
			if m[k] >= 0 {
				m[k] += pos
			}
		}
		out = append(out, m)
		pos += end
		if end == 0 {
			pos++
		}
	}
	return out
}

// blankQuestions blanks every question in text: from the end of the sentence (or clause ending in
// a colon) before it to its question mark. A sentence ends at '.', '!', '?' or ':' followed by
// white space, or at a line break; "3.5" does not end one.
func blankQuestions(text string) string {
	b := []byte(text)
	start := 0 // where the current sentence starts
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case c == '\n':
			start = i + 1
		case c == '?':
			for k := start; k <= i; k++ {
				if b[k] != '\n' {
					b[k] = ' '
				}
			}
			start = i + 1
		case (c == '.' || c == '!' || c == ':') && (i+1 == len(b) || b[i+1] == ' ' || b[i+1] == '\n'):
			start = i + 1
		}
	}
	return string(b)
}

// blank replaces s with as many spaces, so that positions and word boundaries stay.
func blank(s string) string { return strings.Repeat(" ", len(s)) }

// parseProse returns the value, unit and decimal places of a number as prose writes it.
func parseProse(num, unit string) (float64, string, int) {
	unit = strings.TrimSpace(strings.TrimPrefix(unit, "-"))
	switch {
	case strings.HasPrefix(unit, "second"):
		unit = "s"
	case strings.HasPrefix(unit, "minute"):
		unit = "min"
	case strings.HasPrefix(unit, "millisecond"):
		unit = "ms"
	case unit == "x":
		unit = "×"
	}
	if strings.ContainsAny(num, "hm") && strings.HasSuffix(num, "s") || strings.HasSuffix(num, "m") && strings.Contains(num, "h") {
		d, err := time.ParseDuration(num)
		if err == nil {
			return d.Seconds(), "s", 0
		}
	}
	clean := strings.NewReplacer(",", "", " ", "", " ", "", "\u202f", "").Replace(num)
	v, _ := strconv.ParseFloat(clean, 64)
	places := 0
	if i := strings.IndexByte(clean, '.'); i >= 0 {
		places = len(clean) - i - 1
	}
	return v, unit, places
}

// around returns the words around text[from:to], on one line.
func around(text string, from, to int) string {
	lo, hi := max(0, from-40), min(len(text), to+40)
	for lo > 0 && !isRuneStart(text[lo]) {
		lo--
	}
	for hi < len(text) && !isRuneStart(text[hi]) {
		hi++
	}
	return strings.Join(strings.Fields(text[lo:hi]), " ")
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// Outputs.
var (
	// A number as a cell prints it: a Go duration (1m4s, 1.5s, 100ms, 2µs, 0s) or a decimal
	// number, not part of a word or a version.
	outputNumber = regexp.MustCompile(`(?:^|[^\p{L}\p{N}_.])` +
		`(-?(?:(?:\d+h)?(?:\d+m)?\d+(?:\.\d+)?(?:ms|µs|ns|s)|(?:\d+h)?\d+m\d+(?:\.\d+)?s|\d+(?:\.\d+)?(?:e[-+]?\d+)?))` +
		`(?:$|[^\p{L}\p{N}_])`)
)

// OutputNumbers returns the numbers that a code cell's text outputs print (stdout, stderr, and the
// text/plain of its displays and results: a table shown as HTML carries its text there), the cell
// counted from 1. Charts and explorables are left out: their data are not text a reader reads.
func OutputNumbers(cell int, c Cell) []OutputNumber {
	var out []OutputNumber
	for _, o := range c.Outputs {
		text := string(o.Text)
		if o.OutputType != "stream" {
			text = string(o.Data["text/plain"])
			if html := string(o.Data["text/html"]); strings.Contains(html, "backofflab-chart") || strings.Contains(html, "backofflab-explorable") {
				text = "" // a chart's data, not text a reader reads
			}
		}
		for _, line := range strings.Split(text, "\n") {
			for _, m := range allMatches(outputNumber, line) {
				s := line[m[2]:m[3]]
				v, ok := parseOutput(s)
				if !ok {
					continue
				}
				out = append(out, OutputNumber{Cell: cell, Text: s, Value: v, Context: strings.TrimSpace(line), duration: strings.HasSuffix(s, "s")})
			}
		}
	}
	return out
}

func parseOutput(s string) (float64, bool) {
	if strings.HasSuffix(s, "s") {
		d, err := time.ParseDuration(s)
		if err != nil {
			return 0, false
		}
		return d.Seconds(), true
	}
	v, err := strconv.ParseFloat(s, 64)
	return v, err == nil
}

// Code.
var (
	codeLiteral = regexp.MustCompile(`(?:^|[^\p{L}\p{N}_.])(\d+(?:\.\d+)?)(?:\s*\*\s*time\.(Nanosecond|Microsecond|Millisecond|Second|Minute|Hour))?`)
	codeComment = regexp.MustCompile(`//[^\n]*`)
)

// codeNumbers returns the numeric literals of a code cell's source, a duration (500 *
// time.Millisecond) also in seconds and in milliseconds. Comments are left out.
func codeNumbers(src string) []float64 {
	src = codeComment.ReplaceAllString(src, "")
	var out []float64
	for _, m := range codeLiteral.FindAllStringSubmatch(src, -1) {
		v, err := strconv.ParseFloat(m[1], 64)
		if err != nil {
			continue
		}
		out = append(out, v)
		if unit := m[2]; unit != "" {
			d := map[string]time.Duration{"Nanosecond": time.Nanosecond, "Microsecond": time.Microsecond,
				"Millisecond": time.Millisecond, "Second": time.Second, "Minute": time.Minute, "Hour": time.Hour}[unit]
			secs := v * d.Seconds()
			out = append(out, secs, secs*1000)
		}
	}
	return out
}

// WriteNumberReport writes, for the notebook named name, every check that is not Beside (or every
// check, with all), each with its context and the output numbers nearest it, and returns how many
// checks fell in each Where.
func WriteNumberReport(w io.Writer, name string, checks []NumberCheck, all bool) ([4]int, error) {
	var count [4]int
	var b strings.Builder
	for _, ch := range checks {
		count[ch.Where]++
		if ch.Where == Beside && !all {
			continue
		}
		fmt.Fprintf(&b, "%s cell %d: %q: %s\n    prose: …%s…\n", name, ch.Cell, ch.Text, ch.Where, ch.Context)
		for _, o := range firstCells(ch.Matches, 2) {
			fmt.Fprintf(&b, "    matches cell %d: %s   (%s)\n", o.Cell, o.Text, clip(o.Context, 90))
		}
		if ch.Where != Beside {
			for _, o := range ch.Nearest {
				fmt.Fprintf(&b, "    nearest beside, cell %d: %s   (%s)\n", o.Cell, o.Text, clip(o.Context, 90))
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return count, err
}

// firstCells returns the matches of the first n distinct cells.
func firstCells(m []OutputNumber, n int) []OutputNumber {
	var out []OutputNumber
	cells := map[int]bool{}
	for _, o := range m {
		if !cells[o.Cell] && len(cells) == n {
			continue
		}
		if cells[o.Cell] {
			continue
		}
		cells[o.Cell] = true
		out = append(out, o)
	}
	return out
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
