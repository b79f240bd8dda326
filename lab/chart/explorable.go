package chart

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Drawable is an interactive figure an [Explorable] can show in one of its
// panels: [Histogram], [Lines] and [Scatter] are Drawable.
type Drawable interface {
	// Option returns the figure's echarts option object.
	Option() (map[string]interface{}, error)
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
// class="backofflab-panel"> per panel, drawn by echarts. Each frame is sent
// as the option keys that differ from the first frame's, so frames that
// change only their data cost only their data.
type Explorable struct {
	// Controls are the inputs, top to bottom. At least one.
	Controls []Control
	// Frames are the figures at every setting of the controls (see above).
	Frames []Frame
}

// MaxFrames is the most frames an [Explorable] may hold, which keeps a
// notebook's size bounded.
const MaxFrames = 1000

// HTML returns the explorable's HTML fragment.
func (e Explorable) HTML() (string, error) {
	spec, err := e.spec()
	if err != nil {
		return "", err
	}
	id := fragmentID("backofflab-explore-", spec)
	loader := strings.ReplaceAll(LoaderJS(), "\n", "\n  ")
	return strings.NewReplacer(
		"$ID", id,
		"$SPEC", spec,
		"$LOADER", loader,
		"$CLAIM", claimJS,
		"$HELP", helpText,
	).Replace(explorableTemplate), nil
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

// spec returns the JavaScript object the page script reads: controls,
// panel heights, the first frame's options (base), every frame's options
// as the keys that differ from base, and the readouts.
func (e Explorable) spec() (string, error) {
	panels, err := e.check()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("{\"controls\": ")
	type control struct {
		Label   string   `json:"label"`
		Values  []string `json:"values"`
		Start   int      `json:"start"`
		Buttons bool     `json:"buttons"`
	}
	cs := make([]control, len(e.Controls))
	for i, c := range e.Controls {
		cs[i] = control{c.Label, c.Values, c.Start, c.Buttons}
	}
	js, err := encodeOption(cs)
	if err != nil {
		return "", err
	}
	b.WriteString(js)

	heights := make([]string, panels)
	base := make([]map[string]string, panels)     // key → encoded value
	baseSkel := make([]map[string]string, panels) // key → skeleton
	for j, p := range e.Frames[0].Panels {
		h := p.Height()
		if h <= 0 {
			h = 400
		}
		heights[j] = strconv.Itoa(h)
		if base[j], baseSkel[j], err = encodeKeys(p); err != nil {
			return "", fmt.Errorf("chart: Explorable.Frames[0].Panels[%d]: %w", j, err)
		}
	}
	b.WriteString(",\n\"heights\": [" + strings.Join(heights, ", ") + "],\n\"base\": [")
	for j := range base {
		if j > 0 {
			b.WriteString(",\n")
		}
		writeObject(&b, base[j], nil)
	}
	b.WriteString("],\n\"frames\": [")
	readouts := make([]string, len(e.Frames))
	replace := map[string][][]string{} // frame index → per panel, the keys shaped unlike the base's
	for i, f := range e.Frames {
		readouts[i] = f.Readout
		if i > 0 {
			b.WriteString(",\n")
		}
		b.WriteString("[")
		var unlike [][]string
		for j, p := range f.Panels {
			keys, skel := base[j], baseSkel[j]
			if i > 0 {
				if keys, skel, err = encodeKeys(p); err != nil {
					return "", fmt.Errorf("chart: Explorable.Frames[%d].Panels[%d]: %w", i, j, err)
				}
			}
			if j > 0 {
				b.WriteString(", ")
			}
			writeObject(&b, keys, base[j])
			var diff []string
			for k := range keys {
				if skel[k] != baseSkel[j][k] {
					diff = append(diff, k)
				}
			}
			for k := range baseSkel[j] {
				if _, ok := keys[k]; !ok {
					diff = append(diff, k)
				}
			}
			sort.Strings(diff)
			unlike = append(unlike, diff)
			if len(diff) > 0 {
				replace[strconv.Itoa(i)] = unlike
			}
		}
		b.WriteString("]")
	}
	js, err = encodeOption(readouts)
	if err != nil {
		return "", err
	}
	b.WriteString("],\n\"readouts\": " + js)
	js, err = encodeOption(replace)
	if err != nil {
		return "", err
	}
	b.WriteString(",\n\"replace\": " + js + "}")
	return b.String(), nil
}

// encodeKeys returns the top-level keys of p's option, each with its
// encoded value and its skeleton (see [skeleton]).
func encodeKeys(p Drawable) (values, skeletons map[string]string, err error) {
	o, err := p.Option()
	if err != nil {
		return nil, nil, err
	}
	if series, ok := o["series"].([]interface{}); ok {
		for _, s := range series {
			if s, ok := s.(map[string]interface{}); ok {
				compactData(s)
			}
		}
	}
	values = make(map[string]string, len(o))
	skeletons = make(map[string]string, len(o))
	for k, v := range o {
		if values[k], err = encodeOption(v); err != nil {
			return nil, nil, err
		}
		var sk strings.Builder
		skeleton(&sk, v)
		skeletons[k] = sk.String()
	}
	return values, skeletons, nil
}

// skeleton writes the shape of an option value: its object keys and array
// lengths, not its leaves nor the contents of "data" arrays. Where two
// frames' values have the same skeleton, echarts' merge of the second over
// the first overwrites every leaf, so the page merges (fast); elsewhere it
// replaces the whole component (see the template).
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

// compactData replaces a series' data items of the form {"value": v} by
// v, which echarts reads the same way, so that a frame of a thousand bars
// costs a few kilobytes.
func compactData(series map[string]interface{}) {
	data, ok := series["data"].([]interface{})
	if !ok {
		return
	}
	values := make([]interface{}, len(data))
	for i, d := range data {
		m, ok := d.(map[string]interface{})
		if !ok || len(m) != 1 {
			return
		}
		if values[i], ok = m["value"]; !ok {
			return
		}
	}
	series["data"] = values
}

// writeObject writes the keys of o, sorted, as a JavaScript object,
// leaving out those whose value is the same in base. A key of base that o
// lacks is written as null, so that the frame does not inherit it.
func writeObject(b *strings.Builder, o, base map[string]string) {
	keys := make([]string, 0, len(o))
	for k := range o {
		keys = append(keys, k)
	}
	for k := range base {
		if _, ok := o[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	b.WriteString("{")
	n := 0
	for _, k := range keys {
		v, ok := o[k]
		if !ok {
			v = "null"
		} else if base != nil && base[k] == v {
			continue
		}
		if n > 0 {
			b.WriteString(", ")
		}
		n++
		b.WriteString(strconv.Quote(k) + ": " + v)
	}
	b.WriteString("}")
}

// explorableTemplate is the HTML of an Explorable. $ID, $SPEC, $LOADER,
// $CLAIM and $HELP are replaced. Moving a control redraws synchronously, in the input
// event's handler, so the panels always show the control's last value.
const explorableTemplate = `<div id="$ID" class="backofflab-chart backofflab-explorable" style="width:100%;">` +
	`<p style="font:13px sans-serif;color:#666;margin:0;padding:8px;">Interactive chart with controls loading. ` +
	`If this text stays, scripts are not running here: trust the notebook (File, Trust Notebook) and run the cell again.</p></div>
<script type="text/javascript">
(function () {
  "use strict";
  var id = "$ID";
  var spec = $SPEC;
  $LOADER
  $CLAIM
  function make(tag, css, text) {
    var e = document.createElement(tag);
    if (css) e.style.cssText = css;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  // Keys that move a control go to the control alone: a notebook's own
  // shortcuts, listening before it on the document (Notebook 7's), would
  // take the focus to a cell. Their default action still moves the control.
  if (!window.backofflabKeysGuard) {
    window.backofflabKeysGuard = true;
    window.addEventListener("keydown", function (ev) {
      var t = ev.target;
      if (t && t.closest && t.closest(".backofflab-controls") && /^(Arrow|Home$|End$|Page|Enter$| $)/.test(ev.key)) {
        ev.stopPropagation();
      }
    }, true);
  }
  backofflabLoadECharts(function (echarts) {
    claim("drawn", function (root) {
      var nth = window.backofflabExplorables = (window.backofflabExplorables || 0) + 1;
      root.innerHTML = "";
      var pos = spec.controls.map(function (c) { return c.start; });
      var outputs = [], inputs = [], charts = [];
      var box = make("div", "font:14px sans-serif;display:flex;flex-wrap:wrap;gap:6px 24px;align-items:center;padding:4px 8px;");
      box.className = "backofflab-controls";
      // Keys pressed here move the controls; JupyterLab's shortcuts leave them alone.
      box.setAttribute("data-lm-suppress-shortcuts", "true");
      // The notebook around it would take the focus back to the cell on a
      // click; the controls keep it, so that the arrow keys then move them.
      ["mousedown", "pointerdown", "mouseup", "pointerup", "click", "dblclick", "focusin", "focusout", "keydown"].forEach(function (type) {
        box.addEventListener(type, function (ev) { ev.stopPropagation(); });
      });
      // keep holds the focus on a control the reader just clicked or
      // tabbed to when the notebook around it takes it (Notebook 7, on
      // activating its panel, focuses its active cell), which would leave
      // the arrow keys moving nothing. Focus moved to another control is
      // left alone.
      function keep(el) {
        var since = 0;
        function mark() { since = Date.now(); }
        function back() {
          setTimeout(function () { if (document.activeElement !== el) el.focus({preventScroll: true}); }, 0);
        }
        el.addEventListener("pointerdown", mark);
        el.addEventListener("focus", mark);
        // A click may end with the focus already taken, before this control had it.
        el.addEventListener("click", function () { mark(); back(); });
        el.addEventListener("blur", function (ev) {
          var to = ev.relatedTarget;
          var taken = !to || !to.matches || !to.matches("input, button, select, textarea, a[href], [contenteditable=true], .cm-content");
          if (taken && since && Date.now() - since < 1000) {
            since = 0;
            back();
          }
        });
      }
      spec.controls.forEach(function (c, k) {
        var cid = id + "-" + nth + "-control-" + k;
        var row = make("div", "display:flex;align-items:center;gap:8px;");
        var label = make("label", "font-weight:600;", c.label);
        var out = make("output", "min-width:4em;font-variant-numeric:tabular-nums;");
        out.className = "backofflab-value";
        out.setAttribute("for", cid);
        if (c.buttons) {
          var group = make("div", "display:flex;gap:4px;");
          group.setAttribute("role", "group");
          group.setAttribute("aria-labelledby", cid + "-label");
          group.id = cid;
          label.id = cid + "-label";
          var buttons = c.values.map(function (v, i) {
            var bt = make("button", "font:13px sans-serif;padding:3px 10px;cursor:pointer;", v);
            bt.type = "button";
            bt.className = "backofflab-choice";
            bt.addEventListener("click", function () { pos[k] = i; draw(); });
            keep(bt);
            group.appendChild(bt);
            return bt;
          });
          inputs.push({buttons: buttons});
          row.appendChild(label); row.appendChild(group);
        } else {
          var input = make("input", "width:260px;");
          input.type = "range"; input.min = 0; input.max = c.values.length - 1; input.step = 1;
          input.value = c.start; input.id = cid;
          label.htmlFor = cid;
          input.addEventListener("input", function () { pos[k] = +input.value; draw(); });
          keep(input);
          inputs.push({range: input});
          row.appendChild(label); row.appendChild(input);
        }
        row.appendChild(out);
        outputs.push(out);
        box.appendChild(row);
      });
      root.appendChild(box);
      var readout = make("p", "font:14px sans-serif;margin:4px 8px;min-height:1.2em;");
      readout.className = "backofflab-readout";
      readout.setAttribute("aria-live", "polite");
      root.appendChild(readout);
      spec.heights.forEach(function (h) {
        var el = make("div", "width:100%;height:" + h + "px;");
        el.className = "backofflab-panel";
        root.appendChild(el);
        var chart = echarts.init(el, null, {renderer: "canvas"});
        charts.push(chart);
        if (typeof ResizeObserver === "function") {
          new ResizeObserver(function () { chart.resize(); }).observe(el);
        }
      });
      // draw shows the frame at pos. The first time it sets every option;
      // then only the keys that differ from the base in the frame shown or
      // in the new one: merged where both frames have the base's shape
      // (every leaf is overwritten), replaced whole (replaceMerge) where
      // either has not, so nothing of the previous frame stays.
      var shown = -1;
      function draw() {
        var f = 0;
        spec.controls.forEach(function (c, k) { f = f * c.values.length + pos[k]; });
        var frame = spec.frames[f];
        charts.forEach(function (chart, j) {
          var o = {}, b = spec.base[j], p = frame[j], key, keys = [];
          if (shown < 0) {
            for (key in b) o[key] = b[key];
            for (key in p) { if (p[key] === null) delete o[key]; else o[key] = p[key]; }
            chart.setOption(o, {notMerge: true, lazyUpdate: false});
            return;
          }
          if (shown === f) return;
          var old = spec.frames[shown][j], replace = [];
          for (key in old) if (!(key in p)) keys.push(key);
          for (key in p) keys.push(key);
          if (!keys.length) return;
          [shown, f].forEach(function (g) {
            var r = spec.replace[g];
            if (r) replace = replace.concat(r[j]);
          });
          keys.forEach(function (key) { o[key] = (key in p) ? p[key] : b[key]; if (o[key] === null || o[key] === undefined) o[key] = []; });
          chart.setOption(o, {replaceMerge: replace, lazyUpdate: false});
        });
        shown = f;
        spec.controls.forEach(function (c, k) {
          var v = c.values[pos[k]];
          outputs[k].textContent = v;
          if (inputs[k].range) {
            inputs[k].range.value = pos[k];
            inputs[k].range.setAttribute("aria-valuetext", v);
          } else {
            inputs[k].buttons.forEach(function (bt, i) {
              var on = i === pos[k];
              bt.setAttribute("aria-pressed", on ? "true" : "false");
              bt.style.background = on ? "#1f77b4" : "";
              bt.style.color = on ? "#fff" : "";
            });
          }
        });
        readout.textContent = spec.readouts[f];
        root.setAttribute("data-frame", f);
      }
      draw();
    });
  }, function (why) {
    claim("failed", function (el) {
      el.innerHTML = "";
      var p = make("p", "font:14px sans-serif;color:#a00;border:1px solid #a00;padding:8px;margin:0;");
      p.textContent = "$HELP (" + why + ")";
      el.appendChild(p);
    });
  });
})();
</script>
`
