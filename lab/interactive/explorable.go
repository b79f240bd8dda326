package interactive

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"sort"
	"strconv"
	"strings"

	"github.com/backofflab/backofflab/lab/figure"
)

// MaxLayers is the most frames for which an explorable draws every frame
// ahead, in a layer of its own per panel (an echarts instance and its
// canvas each, which bounds the page's memory).
const MaxLayers = 8

// explorableHTML returns the fragment of a validated explorable: one <div
// class="backofflab-chart backofflab-explorable"> followed by one <script>,
// loading echarts like the other figures (see [LoaderJS]). Once drawn, the
// div has the attribute data-frame (the index of the frame shown) and holds
// the controls, an <output> beside each with its value, a <p
// class="backofflab-readout">, and one <div class="backofflab-panel"> per
// panel. Each frame is sent as the option keys that differ from the first
// frame's, so frames that change only their data cost only their data.
//
// A panel draws with echarts in layers, <div class="backofflab-layer">, the
// one shown with the attribute data-shown. An explorable of at most
// [MaxLayers] frames gets a layer per frame and panel, drawn while the page
// is idle after the first frame, so that moving a control only shows other
// layers. A larger one has a single layer per panel, which a move redraws
// with the option keys that differ between the two frames.
//
// With a playhead, the div also holds a <div class="backofflab-playhead">
// with the play button and the slider, its value in an <output>, has the
// attribute data-time (the position's x), and each panel holds a <div
// class="backofflab-cursor">.
func explorableHTML(e figure.Explorable) (string, error) {
	spec, err := explorableSpecOf(e)
	if err != nil {
		return "", err
	}
	id := fragmentID("backofflab-explore-", string(spec))
	return render("explorable.html", fragmentData{ID: id, Spec: spec})
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

// explorableSpecOf returns, as JSON, what the page script reads (see
// [explorableSpec]) for a validated explorable. The frames of each panel
// share its y range (see figure.Explorable); with a playhead, every panel is
// drawn on the playhead's ruler (see [ruler]).
func explorableSpecOf(e figure.Explorable) (template.JS, error) {
	panels := len(e.Frames[0].Panels)
	yMax := sharedYMax(e)
	var r *ruler
	if e.Playhead != nil {
		r = &ruler{end: e.Playhead.End}
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
	keysOf := func(i, j int) (map[string]json.RawMessage, map[string]string, int, error) {
		c, err := panelChart(e.Frames[i].Panels[j], yMax[j], r)
		if err != nil {
			return nil, nil, 0, fmt.Errorf("interactive: Explorable.Frames[%d].Panels[%d]: %w", i, j, err)
		}
		raw, err := encodeChart(c.chart)
		if err != nil {
			return nil, nil, 0, err
		}
		values, skel, err := encodeKeys(raw)
		return values, skel, c.height, err
	}
	baseSkel := make([]map[string]string, panels) // key → skeleton
	for j := range panels {
		var err error
		if s.Base[j], baseSkel[j], s.Heights[j], err = keysOf(0, j); err != nil {
			return "", err
		}
	}
	for i, f := range e.Frames {
		s.Readouts[i] = f.Readout
		s.Frames[i] = make([]map[string]json.RawMessage, panels)
		unlike := make([][]string, panels)
		shaped := false
		for j := range f.Panels {
			keys, skel := s.Base[j], baseSkel[j]
			if i > 0 {
				var err error
				if keys, skel, _, err = keysOf(i, j); err != nil {
					return "", err
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

// sharedYMax returns, per panel of e, the top of the y axis its frames
// share: the panel's own YMax where any frame sets one (the largest), else
// a round number above the tallest frame's data (see [niceMax]).
func sharedYMax(e figure.Explorable) []float64 {
	out := make([]float64, len(e.Frames[0].Panels))
	for j := range out {
		fixed, data := 0.0, 0.0
		for _, f := range e.Frames {
			set, top := yExtent(f.Panels[j])
			fixed, data = max(fixed, set), max(data, top)
		}
		if fixed > 0 {
			out[j] = fixed
		} else {
			out[j] = niceMax(data)
		}
	}
	return out
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
		return "", fmt.Errorf("interactive: encoding the Explorable: %w", err)
	}
	// encoding/json escapes <, > and & in strings, so the JSON cannot end
	// the script element it is written in.
	js := fmt.Sprintf("{\"controls\":%s,\n\"heights\":%s,\n\"base\":%s,\n\"frames\":%s,\n\"readouts\":%s,\n\"replace\":%s,\n\"playhead\":%s,\n\"maxLayers\":%d}",
		parts[0], parts[1], parts[2], parts[3], parts[4], parts[5], parts[6], s.MaxLayers)
	// The options' JavaScript functions (the tooltip's formatters) become
	// code, as in a single chart's option.
	v, err := withFunctions(json.RawMessage(js))
	if err != nil {
		return "", err
	}
	if code, ok := v.(template.JS); ok {
		return code, nil
	}
	return template.JS(js), nil
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

// encodeKeys returns the top-level keys of an option, each with its JSON
// value and its skeleton (see [skeleton]).
func encodeKeys(raw json.RawMessage) (values map[string]json.RawMessage, skeletons map[string]string, err error) {
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
