// Package notebook builds, executes and checks the lesson notebooks.
//
// A lesson is written as plain text in notebooks/src/NN-slug.txt: cells separated by marker lines
//
//	//// md
//	//// go [tag ...]
//
// ("//// md" starts a Markdown cell, "//// go" a Go code cell; the words after "go" are cell tags,
// e.g. expect-chart or skip-execution). Build turns that text into notebooks/NN-slug.ipynb for the
// "Go (Backoff Lab)" kernel, and Execute runs it with Jupyter's nbconvert so that the saved notebook
// carries its outputs. Check reports what a test must fail on: an error or panic in any cell, a
// cell tagged expect-chart without a chart in its outputs.
package notebook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
)

// Tags a lesson's cells may carry.
const (
	// TagExpectChart marks a cell that must display a chart (an image, or HTML with an svg, img or
	// canvas-drawing script) when executed.
	TagExpectChart = "expect-chart"
	// TagSkipExecution marks a cell that needs a live browser (a widget); headless runs skip it.
	TagSkipExecution = "skip-execution"
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

// MarshalJSON writes the fields nbformat 4 requires for the cell's type: code cells always carry
// outputs and execution_count (null before execution), Markdown cells neither.
func (c Cell) MarshalJSON() ([]byte, error) {
	m := map[string]any{"cell_type": c.CellType, "metadata": c.Metadata, "source": c.Source}
	if c.Metadata == nil {
		m["metadata"] = map[string]any{}
	}
	if c.ID != "" {
		m["id"] = c.ID
	}
	if c.CellType == "code" {
		outs := c.Outputs
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

var marker = regexp.MustCompile(`^//// (md|go)((?: [a-z0-9-]+)*)\s*$`)

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
	for i, line := range strings.Split(string(src), "\n") {
		m := marker.FindStringSubmatch(line)
		if m == nil {
			if strings.HasPrefix(line, "////") {
				return nil, fmt.Errorf("line %d: bad cell marker %q: want \"//// md\" or \"//// go [tags]\" (tags: lower-case words)", i+1, line)
			}
			if cur == nil && strings.TrimSpace(line) != "" {
				return nil, fmt.Errorf("line %d: text before the first cell marker (//// md or //// go)", i+1)
			}
			body = append(body, line)
			continue
		}
		flush()
		body = body[:0]
		cur = &Cell{ID: fmt.Sprintf("cell-%02d", len(nb.Cells)+1), Metadata: map[string]any{}}
		if m[1] == "md" {
			cur.CellType = "markdown"
			if m[2] != "" {
				return nil, fmt.Errorf("line %d: markdown cells take no tags", i+1)
			}
		} else {
			cur.CellType = "code"
			if tags := strings.Fields(m[2]); len(tags) > 0 {
				anyTags := make([]any, len(tags))
				for j, t := range tags {
					anyTags[j] = t
				}
				cur.Metadata["tags"] = anyTags
			}
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

// Sources returns each cell's type and source, for comparing a built notebook with its text.
func (nb *Notebook) Sources() []string {
	out := make([]string, len(nb.Cells))
	for i, c := range nb.Cells {
		tags := strings.Join(c.Tags(), " ")
		out[i] = c.CellType + "[" + tags + "]\n" + strings.TrimRight(string(c.Source), "\n")
	}
	return out
}
