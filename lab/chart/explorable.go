package chart

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Drawable is an interactive figure an [Explorable] can show in one of its
// panels: [Histogram], [Lines] and [Scatter] are Drawable.
type Drawable interface {
	// Option returns the figure's echarts option object as JSON.
	Option() (json.RawMessage, error)
	// Height returns the figure's height in pixels.
	Height() int
}

// Control is one input of an [Explorable]: a slider (an <input
// type=range>, moved by dragging or with the arrow keys) over Values, or,
// with Buttons, one button per value.
type Control struct {
	// Label names what the control sets, such as "jitter width"; the page
	// labels the control with it.
	Label string
	// Values are the settings the control spans, as the page prints them
	// beside the control ("25%", "1s"), in order. At least one.
	Values []string
	// Start is the index in Values the page starts at.
	Start int
	// Buttons shows one button per value instead of a slider: for a few
	// settings that have no order, such as policies.
	Buttons bool
	// Notes, with Buttons, are a second line printed on each button, such
	// as the score of the policy it shows: none, or one per value.
	Notes []string
}

// Playhead is a time cursor an [Explorable] can carry: a play/pause button
// and a slider (moved by dragging or with the arrow keys) over the
// positions Start, Start+Step, … up to End (the last position is End,
// rounded up to a whole step), in the panels' x units. The slider moves a
// vertical line across every panel at that x, and the page prints, on each
// button of the control the Tallies belong to, every tally's count at that
// position. No frame is drawn per position: the page only moves the lines
// and rewrites the counts, so a playhead adds its tallies' numbers to the
// page and nothing more. Play advances the position with the page's
// animation frames, Rate x units a second, and stops at the end.
type Playhead struct {
	// Label names the slider, such as "time"; Unit is printed after its
	// value, such as "s".
	Label, Unit string
	// Start, End and Step are the first and last positions and the
	// distance between two; Step > 0, End > Start, and at most
	// MaxPositions positions.
	Start, End, Step float64
	// Rate is how far play advances per second; zero means the whole span
	// in ten seconds.
	Rate float64
	// Control is the index in Explorable.Controls of the Buttons control
	// whose buttons print the tallies.
	Control int
	// Tallies are the counts printed on that control's buttons.
	Tallies []Tally
}

// Tally is a count that a [Playhead]'s position reads, such as the calls
// made so far: Counts[v][i] is its value for value v of the playhead's
// control at position i.
type Tally struct {
	// Name is printed after the count, such as "calls".
	Name   string
	Counts [][]int
}

// MaxPositions is the most positions a [Playhead] may have.
const MaxPositions = 10000

// Positions returns the number of positions of the playhead's slider: 0
// if the span or the step is not a positive finite number, and
// MaxPositions+1 for any number above MaxPositions.
func (p Playhead) Positions() int {
	span := p.End - p.Start
	if !(p.Step > 0) || !(span > 0) || math.IsInf(p.Step, 0) || math.IsInf(span, 0) {
		return 0
	}
	n := math.Ceil(span/p.Step-1e-9) + 1
	if n > MaxPositions {
		return MaxPositions + 1
	}
	return int(n)
}

// Frame is what an [Explorable] shows at one setting of its controls.
type Frame struct {
	// Panels are the figures, one per panel of the explorable, top to
	// bottom. Every frame has the same number of panels.
	Panels []Drawable
	// Readout is a line of text printed under the controls, such as the
	// reported peak of the run shown; it may be empty.
	Readout string
}

// Explorable is a family of precomputed figures and the controls that
// switch between them in the page. The kernel computes every frame once;
// the page's script only swaps echarts options, so moving a control needs no
// kernel, works in a saved notebook and in a static HTML page, and cannot
// wait for anything.
//
// Frames are in row-major order of the controls' values: with controls of
// n₀, n₁, … values, the frame at positions (i₀, i₁, …) is
// Frames[(i₀·n₁ + i₁)·n₂ + …], the last control varying fastest.
//
// Its HTML is one <div class="backofflab-chart backofflab-explorable">
// followed by one <script>, loading echarts like the other figures (see
// [LoaderJS]). Once drawn, the div has the attribute data-frame (the index
// of the frame shown) and holds the controls, an <output> beside each with
// its value, a <p class="backofflab-readout">, and one <div
// class="backofflab-panel"> per panel. Each frame is sent as the option
// keys that differ from the first frame's, so frames that change only their
// data cost only their data.
//
// A panel draws with echarts in layers, <div class="backofflab-layer">, the
// one shown with the attribute data-shown. An explorable of at most
// [MaxLayers] frames gets a layer per frame and panel, drawn while the page
// is idle after the first frame, so that moving a control only shows other
// layers: the redraw of a few buttons' worth of frames costs no drawing. A
// larger one has a single layer per panel, which a move redraws with the
// option keys that differ between the two frames.
type Explorable struct {
	// Controls are the inputs, top to bottom. At least one.
	Controls []Control
	// Frames are the figures at every setting of the controls (see above).
	Frames []Frame
	// Playhead, if not nil, adds a time cursor under the controls (see
	// [Playhead]). Once drawn, the div then also holds a <div
	// class="backofflab-playhead"> with the play button and the slider, its
	// value in an <output>, has the attribute data-time (the position's x),
	// and each panel holds a <div class="backofflab-cursor">.
	Playhead *Playhead
}

// MaxFrames is the most frames an [Explorable] may hold, which keeps a
// notebook's size bounded.
const MaxFrames = 1000

// MaxLayers is the most frames for which an [Explorable] draws every frame
// ahead, in a layer of its own per panel (an echarts instance and its
// canvas each, which bounds the page's memory).
const MaxLayers = 8

// HTML returns the explorable's HTML fragment.
func (e Explorable) HTML() (string, error) {
	spec, err := e.spec()
	if err != nil {
		return "", err
	}
	id := fragmentID("backofflab-explore-", string(spec))
	return render("explorable.html", fragmentData{ID: id, Spec: spec})
}

// check validates the controls and the number of frames and panels.
func (e Explorable) check() (panels int, err error) {
	if len(e.Controls) == 0 {
		return 0, errors.New("chart: Explorable.Controls is empty: want at least one control")
	}
	want := 1
	for i, c := range e.Controls {
		if len(c.Values) == 0 {
			return 0, fmt.Errorf("chart: Explorable.Controls[%d] (%q) has no values: want at least one", i, c.Label)
		}
		if c.Start < 0 || c.Start >= len(c.Values) {
			return 0, fmt.Errorf("chart: Explorable.Controls[%d].Start %d out of range: want 0 <= start < %d", i, c.Start, len(c.Values))
		}
		want *= len(c.Values)
		if want > MaxFrames {
			return 0, fmt.Errorf("chart: Explorable spans more than %d settings: want at most MaxFrames", MaxFrames)
		}
	}
	for i, c := range e.Controls {
		if len(c.Notes) != 0 && (!c.Buttons || len(c.Notes) != len(c.Values)) {
			return 0, fmt.Errorf("chart: Explorable.Controls[%d] (%q) has %d notes: want none, or one per value of a Buttons control (%d)", i, c.Label, len(c.Notes), len(c.Values))
		}
	}
	if err := e.checkPlayhead(); err != nil {
		return 0, err
	}
	if len(e.Frames) != want {
		return 0, fmt.Errorf("chart: Explorable has %d frames: want %d, one per setting of its controls", len(e.Frames), want)
	}
	panels = len(e.Frames[0].Panels)
	if panels == 0 {
		return 0, errors.New("chart: Explorable.Frames[0] has no panels: want at least one")
	}
	for i, f := range e.Frames {
		if len(f.Panels) != panels {
			return 0, fmt.Errorf("chart: Explorable.Frames[%d] has %d panels: want %d, as Frames[0]", i, len(f.Panels), panels)
		}
		for j, p := range f.Panels {
			if p == nil {
				return 0, fmt.Errorf("chart: Explorable.Frames[%d].Panels[%d] is nil", i, j)
			}
		}
	}
	return panels, nil
}

// checkPlayhead validates the playhead, if any.
func (e Explorable) checkPlayhead() error {
	p := e.Playhead
	if p == nil {
		return nil
	}
	n := p.Positions()
	switch {
	case n == 0:
		return fmt.Errorf("chart: Explorable.Playhead spans %v to %v in steps of %v: want start < end and step > 0", p.Start, p.End, p.Step)
	case n > MaxPositions:
		return fmt.Errorf("chart: Explorable.Playhead has %d positions: want at most MaxPositions (%d)", n, MaxPositions)
	case !(p.Rate >= 0) || math.IsInf(p.Rate, 0):
		return fmt.Errorf("chart: Explorable.Playhead.Rate %v out of range: want rate >= 0", p.Rate)
	case len(p.Tallies) > 0 && (p.Control < 0 || p.Control >= len(e.Controls) || !e.Controls[p.Control].Buttons):
		return fmt.Errorf("chart: Explorable.Playhead.Control %d: want the index of a Buttons control", p.Control)
	}
	for k, t := range p.Tallies {
		if len(t.Counts) != len(e.Controls[p.Control].Values) {
			return fmt.Errorf("chart: Explorable.Playhead.Tallies[%d] (%q) has counts for %d values: want %d", k, t.Name, len(t.Counts), len(e.Controls[p.Control].Values))
		}
		for v, c := range t.Counts {
			if len(c) != n {
				return fmt.Errorf("chart: Explorable.Playhead.Tallies[%d].Counts[%d] has %d counts: want one per position (%d)", k, v, len(c), n)
			}
		}
	}
	return nil
}

// explorableSpec is the variable spec that web/explorable.js reads.
type explorableSpec struct {
	Controls []controlSpec `json:"controls"`
	// Heights are the panels' heights in pixels.
	Heights []int `json:"heights"`
	// Base holds, per panel, the first frame's option.
	Base []map[string]json.RawMessage `json:"base"`
	// Frames hold, per frame and panel, the option keys whose values
	// differ from the base's; null for a key of the base the frame lacks.
	Frames   [][]map[string]json.RawMessage `json:"frames"`
	Readouts []string                       `json:"readouts"`
	// Replace holds, for the frames shaped unlike the base (see
	// [skeleton]), per panel the keys to replace rather than merge.
	Replace map[int][][]string `json:"replace"`
	// Playhead is null without one.
	Playhead *playheadSpec `json:"playhead"`
	// MaxLayers is [MaxLayers].
	MaxLayers int `json:"maxLayers"`
}

type controlSpec struct {
	Label   string   `json:"label"`
	Values  []string `json:"values"`
	Start   int      `json:"start"`
	Buttons bool     `json:"buttons"`
	Notes   []string `json:"notes,omitempty"`
}

type playheadSpec struct {
	Label     string      `json:"label"`
	Unit      string      `json:"unit"`
	Start     float64     `json:"start"`
	Step      float64     `json:"step"`
	Positions int         `json:"positions"`
	Rate      float64     `json:"rate"`
	Control   int         `json:"control"`
	Tallies   []tallySpec `json:"tallies"`
}

type tallySpec struct {
	Name   string  `json:"name"`
	Counts [][]int `json:"counts"`
}

// spec returns, as JSON, what the page script reads (see
// [explorableSpec]).
func (e Explorable) spec() (template.JS, error) {
	panels, err := e.check()
	if err != nil {
		return "", err
	}
	s := explorableSpec{
		Heights:   make([]int, panels),
		Base:      make([]map[string]json.RawMessage, panels),
		Frames:    make([][]map[string]json.RawMessage, len(e.Frames)),
		Readouts:  make([]string, len(e.Frames)),
		Replace:   map[int][][]string{},
		MaxLayers: MaxLayers,
	}
	for _, c := range e.Controls {
		s.Controls = append(s.Controls, controlSpec{c.Label, c.Values, c.Start, c.Buttons, c.Notes})
	}
	if p := e.Playhead; p != nil {
		ps := &playheadSpec{Label: p.Label, Unit: p.Unit, Start: p.Start, Step: p.Step, Positions: p.Positions(),
			Rate: p.Rate, Control: p.Control, Tallies: []tallySpec{}}
		if ps.Rate == 0 {
			ps.Rate = (p.End - p.Start) / 10
		}
		for _, t := range p.Tallies {
			ps.Tallies = append(ps.Tallies, tallySpec{t.Name, t.Counts})
		}
		s.Playhead = ps
	}
	baseSkel := make([]map[string]string, panels) // key → skeleton
	for j, p := range e.Frames[0].Panels {
		s.Heights[j] = p.Height()
		if s.Heights[j] <= 0 {
			s.Heights[j] = 400
		}
		if s.Base[j], baseSkel[j], err = encodeKeys(p); err != nil {
			return "", fmt.Errorf("chart: Explorable.Frames[0].Panels[%d]: %w", j, err)
		}
	}
	for i, f := range e.Frames {
		s.Readouts[i] = f.Readout
		s.Frames[i] = make([]map[string]json.RawMessage, panels)
		unlike := make([][]string, panels)
		shaped := false
		for j, p := range f.Panels {
			keys, skel := s.Base[j], baseSkel[j]
			if i > 0 {
				if keys, skel, err = encodeKeys(p); err != nil {
					return "", fmt.Errorf("chart: Explorable.Frames[%d].Panels[%d]: %w", i, j, err)
				}
			}
			s.Frames[i][j] = changedKeys(keys, s.Base[j])
			unlike[j] = []string{}
			for k := range keys {
				if skel[k] != baseSkel[j][k] {
					unlike[j] = append(unlike[j], k)
				}
			}
			for k := range baseSkel[j] {
				if _, ok := keys[k]; !ok {
					unlike[j] = append(unlike[j], k)
				}
			}
			sort.Strings(unlike[j])
			shaped = shaped || len(unlike[j]) > 0
		}
		if shaped {
			s.Replace[i] = unlike
		}
	}
	return s.encode()
}

// encode returns s as JSON with each panel of the base and each frame on
// a line of its own, so that a diff of two saved notebooks shows the
// frames that changed.
func (s explorableSpec) encode() (template.JS, error) {
	var parts [7][]byte
	var errs [7]error
	parts[0], errs[0] = json.Marshal(s.Controls)
	parts[1], errs[1] = json.Marshal(s.Heights)
	parts[2], errs[2] = jsonLines(s.Base)
	parts[3], errs[3] = jsonLines(s.Frames)
	parts[4], errs[4] = json.Marshal(s.Readouts)
	parts[5], errs[5] = json.Marshal(s.Replace)
	parts[6], errs[6] = json.Marshal(s.Playhead)
	if err := errors.Join(errs[:]...); err != nil {
		return "", fmt.Errorf("chart: encoding the Explorable: %w", err)
	}
	// encoding/json escapes <, > and & in strings, so the JSON cannot end
	// the script element it is written in.
	return template.JS(fmt.Sprintf("{\"controls\":%s,\n\"heights\":%s,\n\"base\":%s,\n\"frames\":%s,\n\"readouts\":%s,\n\"replace\":%s,\n\"playhead\":%s,\n\"maxLayers\":%d}",
		parts[0], parts[1], parts[2], parts[3], parts[4], parts[5], parts[6], s.MaxLayers)), nil
}

// jsonLines encodes items as a JSON array with one element per line.
func jsonLines[T any](items []T) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("[")
	for i, v := range items {
		js, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			b.WriteString(",\n")
		}
		b.Write(js)
	}
	b.WriteString("]")
	return b.Bytes(), nil
}

// changedKeys returns the keys of o whose values differ from base's, and
// the keys of base that o lacks as null, so that the frame does not
// inherit them.
func changedKeys(o, base map[string]json.RawMessage) map[string]json.RawMessage {
	d := map[string]json.RawMessage{}
	for k, v := range o {
		if !bytes.Equal(v, base[k]) {
			d[k] = v
		}
	}
	for k := range base {
		if _, ok := o[k]; !ok {
			d[k] = json.RawMessage("null")
		}
	}
	return d
}

// encodeKeys returns the top-level keys of p's option, each with its
// JSON value and its skeleton (see [skeleton]).
func encodeKeys(p Drawable) (values map[string]json.RawMessage, skeletons map[string]string, err error) {
	raw, err := p.Option()
	if err != nil {
		return nil, nil, err
	}
	if err := json.Unmarshal(raw, &values); err != nil || values == nil {
		return nil, nil, fmt.Errorf("option is not a JSON object: %.40q", raw)
	}
	skeletons = make(map[string]string, len(values))
	for k, v := range values {
		if values[k], err = compactJSON(v); err != nil {
			return nil, nil, err
		}
		var tree any
		if err := json.Unmarshal(v, &tree); err != nil {
			return nil, nil, err
		}
		var sk strings.Builder
		skeleton(&sk, tree)
		skeletons[k] = sk.String()
	}
	return values, skeletons, nil
}

// skeleton writes the shape of an option value: its object keys and array
// lengths, not its leaves nor the contents of "data" arrays. Where two
// frames' values have the same skeleton, echarts' merge of the second over
// the first overwrites every leaf, so the page merges (fast); elsewhere it
// replaces the whole component (see web/explorable.js).
func skeleton(b *strings.Builder, v interface{}) {
	switch v := v.(type) {
	case map[string]interface{}:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteString("{")
		for _, k := range keys {
			b.WriteString(strconv.Quote(k) + ":")
			if k == "data" {
				b.WriteString("data,")
				continue
			}
			skeleton(b, v[k])
			b.WriteString(",")
		}
		b.WriteString("}")
	case []interface{}:
		b.WriteString("[" + strconv.Itoa(len(v)) + ":")
		for _, x := range v {
			skeleton(b, x)
			b.WriteString(",")
		}
		b.WriteString("]")
	default:
		b.WriteString(".")
	}
}
