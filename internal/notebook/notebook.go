// Package notebook builds, executes and checks the lesson notebooks.
//
// A lesson is written as plain text in notebooks/src/NN-slug.txt: cells separated by marker lines
//
//	//// md
//	//// go [tag ...]
//
// ("//// md" starts a Markdown cell, "//// go" a Go code cell; the words after "go" are cell tags,
// e.g. expect-chart or skip-execution). Build turns that text into notebooks/NN-slug.ipynb for the
// "Go (Backoff Lab)" kernel, and [Execute] (or an [Executor], one nbclient process for many
// notebooks) runs it so that the saved notebook carries its outputs. [Check] reports what a test
// must fail on: an error or panic in any cell, a cell tagged expect-chart without a chart in its
// outputs. [Compare] holds a fresh run against the saved notebook: text exactly, images, charts
// and explorables by a hash of their data. [CheckNumbers] lists every number a Markdown cell states,
// each with where the code cells' outputs print it.
//
// # Graded cells (nbgrader)
//
// Exercise notebooks mark their graded cells with key=value words at the end of the marker line:
//
//	//// go nbgrader=solution id=overload-answer
//	//// go nbgrader=tests id=overload-check points=3
//	//// md nbgrader=readonly id=overload-intro
//	//// go expect-chart nbgrader=readonly id=overload-setup
//
// nbgrader=KIND gives the cell nbgrader's cell metadata (schema version 3) under
// metadata.nbgrader, with id=ID as its grade_id (letters, digits, '_' and '-'; unique in the
// notebook):
//
//   - solution: an autograded answer, Go cells only. The learner writes it: grade false,
//     solution true, locked false.
//   - tests: an autograder test, Go cells only, worth points=N (N >= 0, required): grade true,
//     solution false, locked true.
//   - readonly: a locked cell the learner cannot edit, Markdown or Go: grade and solution false,
//     locked true.
//
// The marker's other words are still tags (Go cells only). The source notebook is the instructor's
// version: solution cells hold the answer between lines containing "BEGIN SOLUTION" and "END
// SOLUTION", and test cells may hide checks between lines containing "BEGIN HIDDEN TESTS" and "END
// HIDDEN TESTS", as nbgrader expects. [Notebook.ForLearners] derives the learner's version the way
// nbgrader's generate_assignment does (see [ClearSolutions] and [ClearHiddenTests]), so the two
// versions come from one text and nothing here needs nbgrader installed.
package notebook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Tags a lesson's cells may carry.
const (
	// TagExpectChart marks a cell that must display a chart (an image, or HTML with an svg, img or
	// canvas-drawing script) when executed.
	TagExpectChart = "expect-chart"
	// TagSkipExecution marks a cell that needs a live browser (a widget); headless runs skip it.
	TagSkipExecution = "skip-execution"
	// TagMeasured marks a cell whose charts draw a run whose numbers vary from run to run (one
	// in real time, or a library's own unseeded randomness): Compare checks their kind and
	// size, not their bytes. Its text must still come out the same.
	TagMeasured = "measured"
)

// KernelName is the kernel every lesson runs on; scripts/setup registers it.
const KernelName = "backofflab-go"

// Notebook is the part of nbformat 4 that the lessons use.
type Notebook struct {
	Cells         []Cell         `json:"cells"`
	Metadata      map[string]any `json:"metadata"`
	NBFormat      int            `json:"nbformat"`
	NBFormatMinor int            `json:"nbformat_minor"`
}

// Cell is one notebook cell.
type Cell struct {
	ID             string         `json:"id,omitempty"`
	CellType       string         `json:"cell_type"`
	Metadata       map[string]any `json:"metadata"`
	Source         Text           `json:"source"`
	Outputs        []Output       `json:"outputs,omitempty"`
	ExecutionCount *int           `json:"execution_count,omitempty"`
}

// Stream returns what the cell printed on the named stream, "stdout" or "stderr", its outputs of
// that stream joined.
func (c Cell) Stream(name string) string {
	var b strings.Builder
	for _, o := range c.Outputs {
		if o.OutputType == "stream" && o.Name == name {
			b.WriteString(string(o.Text))
		}
	}
	return b.String()
}

// HasError reports whether one of the cell's outputs is an error.
func (c Cell) HasError() bool {
	return slices.ContainsFunc(c.Outputs, func(o Output) bool { return o.OutputType == "error" })
}

// Output is one output of a code cell.
type Output struct {
	OutputType string          `json:"output_type"`
	Name       string          `json:"name,omitempty"` // stream name: stdout or stderr
	Text       Text            `json:"text,omitempty"`
	Data       map[string]Text `json:"data,omitempty"`
	EName      string          `json:"ename,omitempty"`
	EValue     string          `json:"evalue,omitempty"`
	Traceback  []string        `json:"traceback,omitempty"`

	raw json.RawMessage // as read, so that writing keeps every field Jupyter put there
}

// UnmarshalJSON keeps the output's original JSON besides the fields above.
func (o *Output) UnmarshalJSON(b []byte) error {
	type plain Output
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*o = Output(p)
	o.raw = append(json.RawMessage(nil), b...)
	return nil
}

// MarshalJSON writes the output as it was read.
func (o Output) MarshalJSON() ([]byte, error) {
	if o.raw != nil {
		return o.raw, nil
	}
	type plain Output
	return json.Marshal(plain(o))
}

// JoinStreams returns outputs with every run of consecutive stream outputs of one name (stdout,
// or stderr) joined into one output; every other output is kept as it is, in its place. A
// running cell's text reaches Jupyter one write at a time (a table printed by text/tabwriter
// arrives a cell of the table at a time), and JupyterLab joins such a run into one block while it
// shows the cell; a renderer that draws a saved notebook output by output (nbconvert's HTML, a
// code host's viewer) draws each fragment as its own block, and a table falls apart. Text on
// both sides of another output (a chart, or the other stream) stays on its own side: the order a
// reader sees is unchanged.
func JoinStreams(outputs []Output) []Output {
	var out []Output
	for _, o := range outputs {
		if n := len(out); n > 0 && o.OutputType == "stream" && out[n-1].OutputType == "stream" && out[n-1].Name == o.Name {
			out[n-1] = streamOutput(o.Name, out[n-1].Text+o.Text)
			continue
		}
		out = append(out, o)
	}
	return out
}

// streamOutput is a stream output written as nbformat writes one: its keys in sorted order.
func streamOutput(name string, text Text) Output {
	raw, _ := json.Marshal(map[string]any{"name": name, "output_type": "stream", "text": text})
	return Output{OutputType: "stream", Name: name, Text: text, raw: raw}
}

// MarshalJSON writes the fields nbformat 4 requires for the cell's type: code cells always carry
// outputs and execution_count (null before execution), Markdown cells neither. A code cell's
// stream outputs are saved whole (JoinStreams): one output for each run of text on one stream.
func (c Cell) MarshalJSON() ([]byte, error) {
	m := map[string]any{"cell_type": c.CellType, "metadata": c.Metadata, "source": c.Source}
	if c.Metadata == nil {
		m["metadata"] = map[string]any{}
	}
	if c.ID != "" {
		m["id"] = c.ID
	}
	if c.CellType == "code" {
		outs := JoinStreams(c.Outputs)
		if outs == nil {
			outs = []Output{}
		}
		m["outputs"] = outs
		m["execution_count"] = c.ExecutionCount
	}
	return json.Marshal(m)
}

// Text is a multi-line string that nbformat stores either as one string or as a list of lines.
type Text string

// UnmarshalJSON accepts both nbformat spellings.
func (t *Text) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*t = Text(s)
		return nil
	}
	var lines []string
	if err := json.Unmarshal(b, &lines); err != nil {
		// Some MIME data (JSON outputs) are objects: keep their text.
		*t = Text(b)
		return nil
	}
	*t = Text(strings.Join(lines, ""))
	return nil
}

// MarshalJSON writes the list-of-lines form, which diffs well.
func (t Text) MarshalJSON() ([]byte, error) {
	lines := strings.SplitAfter(string(t), "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if lines == nil {
		lines = []string{}
	}
	return json.Marshal(lines)
}

// Tags returns the cell's tags.
func (c Cell) Tags() []string {
	raw, _ := c.Metadata["tags"].([]any)
	tags := make([]string, 0, len(raw))
	for _, t := range raw {
		if s, ok := t.(string); ok {
			tags = append(tags, s)
		}
	}
	return tags
}

// HasTag reports whether the cell carries tag.
func (c Cell) HasTag(tag string) bool {
	for _, t := range c.Tags() {
		if t == tag {
			return true
		}
	}
	return false
}

// A marker's words: tags are lower-case words, settings are key=value.
var (
	tagWord   = regexp.MustCompile(`^[a-z0-9-]+$`)
	gradeID   = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)
	cellKinds = map[string]bool{"md": true, "go": true}
)

// Kinds of graded cell (the values of nbgrader= on a marker line).
const (
	GradeSolution = "solution"
	GradeTests    = "tests"
	GradeReadOnly = "readonly"
)

// marker is a parsed cell marker line.
type marker struct {
	kind     string // "md" or "go"
	tags     []string
	settings map[string]string // key=value words, e.g. nbgrader=solution id=x
}

// parseMarker reads a line starting with "////": a cell marker, or an error saying what is wrong
// with it.
func parseMarker(line string) (*marker, error) {
	words := strings.Fields(strings.TrimPrefix(line, "////"))
	if !strings.HasPrefix(line, "//// ") || len(words) == 0 || !cellKinds[words[0]] {
		return nil, fmt.Errorf("bad cell marker %q: want \"//// md\" or \"//// go [tags]\" (tags: lower-case words)", line)
	}
	m := &marker{kind: words[0], settings: map[string]string{}}
	for _, w := range words[1:] {
		if key, value, ok := strings.Cut(w, "="); ok {
			if _, dup := m.settings[key]; dup {
				return nil, fmt.Errorf("bad cell marker %q: %s= given twice", line, key)
			}
			m.settings[key] = value
			continue
		}
		if !tagWord.MatchString(w) {
			return nil, fmt.Errorf("bad cell marker %q: tag %q: tags are lower-case words (letters, digits, '-')", line, w)
		}
		if m.kind == "md" {
			return nil, fmt.Errorf("bad cell marker %q: markdown cells take no tags", line)
		}
		m.tags = append(m.tags, w)
	}
	return m, nil
}

// nbgraderMetadata returns the nbgrader cell metadata the marker's settings ask for, or nil when
// the marker has none; see the package doc.
func (m *marker) nbgraderMetadata() (map[string]any, error) {
	kind, graded := m.settings["nbgrader"]
	id, hasID := m.settings["id"]
	points, hasPoints := m.settings["points"]
	for key := range m.settings {
		if key != "nbgrader" && key != "id" && key != "points" {
			return nil, fmt.Errorf("unknown setting %s=: want nbgrader=, id= or points=", key)
		}
	}
	if !graded {
		if hasID || hasPoints {
			return nil, fmt.Errorf("id= and points= need nbgrader=%s, %s or %s", GradeSolution, GradeTests, GradeReadOnly)
		}
		return nil, nil
	}
	if !hasID || !gradeID.MatchString(id) {
		return nil, fmt.Errorf("nbgrader=%s needs id=ID (letters, digits, '_' and '-'), got %q", kind, id)
	}
	meta := map[string]any{"schema_version": 3, "grade_id": id, "grade": false, "solution": false, "locked": false}
	switch kind {
	case GradeSolution, GradeTests:
		if m.kind != "go" {
			return nil, fmt.Errorf("nbgrader=%s is for Go cells only", kind)
		}
	case GradeReadOnly:
	default:
		return nil, fmt.Errorf("nbgrader=%s: want %s, %s or %s", kind, GradeSolution, GradeTests, GradeReadOnly)
	}
	if hasPoints != (kind == GradeTests) {
		return nil, fmt.Errorf("points= goes with nbgrader=%s, and only there", GradeTests)
	}
	switch kind {
	case GradeSolution:
		meta["solution"] = true
	case GradeTests:
		p, err := strconv.ParseFloat(points, 64)
		if err != nil || !(p >= 0) || math.IsInf(p, 0) {
			return nil, fmt.Errorf("points=%s: want a number >= 0", points)
		}
		meta["grade"], meta["locked"], meta["points"] = true, true, p
	case GradeReadOnly:
		meta["locked"] = true
	}
	return meta, nil
}

// Parse reads a lesson's source text (see the package doc) into a notebook without outputs.
func Parse(src []byte) (*Notebook, error) {
	nb := &Notebook{
		NBFormat:      4,
		NBFormatMinor: 5,
		Metadata: map[string]any{
			"kernelspec": map[string]any{
				"name":         KernelName,
				"display_name": "Go (Backoff Lab)",
				"language":     "go",
			},
			"language_info": map[string]any{"name": "go"},
		},
	}
	var cur *Cell
	var body []string
	flush := func() {
		if cur == nil {
			return
		}
		cur.Source = Text(strings.Trim(strings.Join(body, "\n"), "\n"))
		nb.Cells = append(nb.Cells, *cur)
	}
	ids := map[string]int{} // grade_id → line
	for i, line := range strings.Split(string(src), "\n") {
		if !strings.HasPrefix(line, "////") {
			if cur == nil && strings.TrimSpace(line) != "" {
				return nil, fmt.Errorf("line %d: text before the first cell marker (//// md or //// go)", i+1)
			}
			body = append(body, line)
			continue
		}
		m, err := parseMarker(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", i+1, err)
		}
		grading, err := m.nbgraderMetadata()
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", i+1, err)
		}
		flush()
		body = body[:0]
		cur = &Cell{ID: fmt.Sprintf("cell-%02d", len(nb.Cells)+1), Metadata: map[string]any{}}
		cur.CellType = "code"
		if m.kind == "md" {
			cur.CellType = "markdown"
		}
		if len(m.tags) > 0 {
			anyTags := make([]any, len(m.tags))
			for j, t := range m.tags {
				anyTags[j] = t
			}
			cur.Metadata["tags"] = anyTags
		}
		if grading != nil {
			id := grading["grade_id"].(string)
			if first, dup := ids[id]; dup {
				return nil, fmt.Errorf("line %d: id=%s is already the id of the cell at line %d: grade ids must be unique", i+1, id, first)
			}
			ids[id] = i + 1
			cur.Metadata["nbgrader"] = grading
		}
	}
	flush()
	if len(nb.Cells) == 0 {
		return nil, fmt.Errorf("no cells: a lesson starts with a //// md or //// go line")
	}
	for i, c := range nb.Cells {
		if strings.TrimSpace(string(c.Source)) == "" {
			return nil, fmt.Errorf("cell %d is empty", i+1)
		}
	}
	return nb, nil
}

// Read loads an .ipynb file.
func Read(path string) (*Notebook, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var nb Notebook
	if err := json.Unmarshal(b, &nb); err != nil {
		return nil, fmt.Errorf("%s: not a notebook: %v", path, err)
	}
	return &nb, nil
}

// Marshal encodes the notebook as indented JSON, as Jupyter writes it.
func (nb *Notebook) Marshal() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(nb); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Write saves the notebook to path.
func (nb *Notebook) Write(path string) error {
	b, err := nb.Marshal()
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// Sources returns each cell's type, tags, grading and source, for comparing a built notebook with
// its text.
func (nb *Notebook) Sources() []string {
	out := make([]string, len(nb.Cells))
	for i, c := range nb.Cells {
		tags := strings.Join(c.Tags(), " ")
		out[i] = c.CellType + "[" + tags + "]" + c.grading() + "\n" + strings.TrimRight(string(c.Source), "\n")
	}
	return out
}

// Grading returns the cell's nbgrader metadata, or nil if it has none.
func (c Cell) Grading() map[string]any {
	g, _ := c.Metadata["nbgrader"].(map[string]any)
	return g
}

// IsSolution reports whether the cell is an answer cell the learner writes (nbgrader solution).
func (c Cell) IsSolution() bool { v, _ := c.Grading()["solution"].(bool); return v }

// IsGraded reports whether the cell is graded (nbgrader grade): an autograder test cell.
func (c Cell) IsGraded() bool { v, _ := c.Grading()["grade"].(bool); return v }

// grading describes the cell's nbgrader metadata for Sources: "" without any.
func (c Cell) grading() string {
	g := c.Grading()
	if g == nil {
		return ""
	}
	b, _ := json.Marshal(g) // map keys sorted: deterministic
	return string(b)
}
