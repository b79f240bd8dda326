// The script of an Explorable: load echarts, then build the controls, a
// readout and one panel per entry of spec.heights in the fragment's div,
// and show the frame the controls select. Moving a control redraws
// synchronously, in the input event's handler, so the panels always show
// the control's last value. A playhead (spec.playhead) moves a cursor
// across every panel and rewrites the tallies on the buttons of its
// control; it draws no frame.
//
// A panel holds layers, each an echarts instance drawing one frame, one
// of them visible. A family of at most spec.maxLayers frames gets a layer per
// frame, drawn while the page is idle after the first: a switch then only
// shows another layer. A larger family has one layer, which a switch
// redraws with the option keys that differ between the two frames.
/* global id, spec, help, backofflabLoadECharts, claim, roundEnds */
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
    if (t && t.closest && t.closest(".backofflab-controls, .backofflab-playhead") && /^(Arrow|Home$|End$|Page|Enter$| $)/.test(ev.key)) {
      ev.stopPropagation();
    }
  }, true);
}
backofflabLoadECharts(function (echarts) {
  claim("drawn", function (root) {
    var nth = window.backofflabExplorables = (window.backofflabExplorables || 0) + 1;
    root.innerHTML = "";
    var pos = spec.controls.map(function (c) { return c.start; });
    var outputs = [], inputs = [], panels = [], cursors = [];
    var ph = spec.playhead, tallies = [];
    // controlBox returns a row of controls: keys pressed in it move its
    // controls, JupyterLab's shortcuts leave them alone, and the notebook
    // around it, which would take the focus back to the cell on a click,
    // does not see its clicks, so that the arrow keys then move them.
    function controlBox(cls) {
      var b = make("div", "font:14px sans-serif;display:flex;flex-wrap:wrap;gap:6px 24px;align-items:center;padding:4px 8px;");
      b.className = cls;
      b.setAttribute("data-lm-suppress-shortcuts", "true");
      ["mousedown", "pointerdown", "mouseup", "pointerup", "click", "dblclick", "focusin", "focusout", "keydown"].forEach(function (type) {
        b.addEventListener(type, function (ev) { ev.stopPropagation(); });
      });
      return b;
    }
    var box = controlBox("backofflab-controls");
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
          if (c.notes) {
            bt.style.textAlign = "left";
            bt.appendChild(make("span", "display:block;font-size:12px;", c.notes[i])).className = "backofflab-note";
          }
          if (ph && ph.control === k && ph.tallies.length) {
            var tally = make("span", "display:block;font-size:12px;font-variant-numeric:tabular-nums;");
            tally.className = "backofflab-tally";
            bt.appendChild(tally);
            tallies[i] = tally;
          }
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
    var scrub, clock, playBtn, at = 0, playing = false, raf = 0, digits = 0;
    if (ph) {
      digits = Math.max(0, Math.min(6, -Math.floor(Math.log10(ph.step) + 1e-9)));
      var pbox = controlBox("backofflab-playhead");
      var prow = make("div", "display:flex;align-items:center;gap:8px;");
      var pid = id + "-" + nth + "-playhead";
      playBtn = make("button", "font:13px sans-serif;padding:3px 10px;cursor:pointer;min-width:5.5em;", "\u25B6 play");
      playBtn.type = "button";
      playBtn.className = "backofflab-play";
      playBtn.setAttribute("aria-pressed", "false");
      playBtn.addEventListener("click", function () { if (playing) pause(); else play(); });
      keep(playBtn);
      var plabel = make("label", "font-weight:600;", ph.label);
      scrub = make("input", "width:420px;");
      scrub.type = "range"; scrub.min = 0; scrub.max = ph.positions - 1; scrub.step = 1; scrub.value = 0; scrub.id = pid;
      plabel.htmlFor = pid;
      scrub.addEventListener("input", function () { pause(); seek(+scrub.value); });
      keep(scrub);
      clock = make("output", "min-width:5em;font-variant-numeric:tabular-nums;");
      clock.className = "backofflab-time";
      clock.setAttribute("for", pid);
      prow.appendChild(playBtn); prow.appendChild(plabel); prow.appendChild(scrub); prow.appendChild(clock);
      pbox.appendChild(prow);
      root.appendChild(pbox);
    }
    var readout = make("p", "font:14px sans-serif;margin:4px 8px;min-height:1.2em;");
    readout.className = "backofflab-readout";
    readout.setAttribute("aria-live", "polite");
    root.appendChild(readout);
    var pool = spec.frames.length <= spec.maxLayers ? spec.frames.length : 1, uses = 0;
    spec.heights.forEach(function (h) {
      var el = make("div", "width:100%;height:" + h + "px;position:relative;");
      el.className = "backofflab-panel";
      root.appendChild(el);
      var panel = {el: el, layers: [], visible: null};
      panels.push(panel);
      if (ph) {
        var cur = make("div", "position:absolute;top:0;left:0;width:0;height:0;border-left:2px solid #d62728;pointer-events:none;z-index:2;display:none;");
        cur.className = "backofflab-cursor";
        el.appendChild(cur);
        cursors.push(cur);
      }
      if (typeof ResizeObserver === "function") {
        new ResizeObserver(function () {
          panel.layers.forEach(function (l) { l.chart.resize(); });
          place();
        }).observe(el);
      }
    });
    // option returns panel j's whole option at frame f: the base with the
    // frame's keys.
    function option(j, f) {
      var o = {}, b = spec.base[j], p = spec.frames[f][j], key;
      for (key in b) o[key] = b[key];
      for (key in p) { if (p[key] === null) delete o[key]; else o[key] = p[key]; }
      return o;
    }
    // layer returns a layer of panel j drawing frame f: the one that does,
    // else a new one while the panel has fewer than pool, else the least
    // recently shown, redrawn from its frame g with only the keys that
    // differ from the base in g or in f: merged where both frames have
    // the base's shape (every leaf is overwritten), replaced whole
    // (replaceMerge) where either has not, so nothing of g stays.
    function layer(j, f) {
      var panel = panels[j], l, k;
      for (k = 0; k < panel.layers.length; k++) if (panel.layers[k].frame === f) return panel.layers[k];
      if (panel.layers.length < pool) {
        var div = make("div", "position:absolute;top:0;left:0;width:100%;height:100%;visibility:hidden;");
        div.className = "backofflab-layer";
        panel.el.insertBefore(div, panel.el.firstChild);
        l = {div: div, chart: echarts.init(div, null, {renderer: "canvas"}), frame: f, used: 0};
        roundEnds(l.chart);
        l.chart.setOption(option(j, f), {notMerge: true, lazyUpdate: false});
        panel.layers.push(l);
        return l;
      }
      l = panel.layers[0];
      for (k = 1; k < panel.layers.length; k++) if (panel.layers[k].used < l.used) l = panel.layers[k];
      var g = l.frame, o = {}, b = spec.base[j], p = spec.frames[f][j], old = spec.frames[g][j], keys = [], replace = [], key;
      l.frame = f;
      for (key in old) if (!(key in p)) keys.push(key);
      for (key in p) keys.push(key);
      if (!keys.length) return l;
      [g, f].forEach(function (h) {
        var r = spec.replace[h];
        if (r) replace = replace.concat(r[j]);
      });
      keys.forEach(function (key) { o[key] = (key in p) ? p[key] : b[key]; if (o[key] === null || o[key] === undefined) o[key] = []; });
      l.chart.setOption(o, {replaceMerge: replace, lazyUpdate: false});
      return l;
    }
    // draw shows the frame at pos in every panel.
    var shown = -1;
    function draw() {
      var f = 0;
      spec.controls.forEach(function (c, k) { f = f * c.values.length + pos[k]; });
      if (f !== shown) {
        panels.forEach(function (panel, j) {
          var l = layer(j, f);
          l.used = ++uses;
          if (panel.visible !== l) {
            l.div.style.visibility = "visible";
            l.div.setAttribute("data-shown", "true");
            if (panel.visible) {
              panel.visible.div.style.visibility = "hidden";
              panel.visible.div.removeAttribute("data-shown");
            }
            panel.visible = l;
          }
        });
      }
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
      place();
    }
    // prepare draws, one frame a task while the page is idle, the layers
    // of the frames not drawn yet, if every frame gets a layer.
    function prepare() {
      if (pool < 2) return;
      var todo = [];
      spec.frames.forEach(function (_, f) { if (f !== shown) todo.push(f); });
      (function next() {
        var f = todo.shift();
        if (f === undefined) return;
        panels.forEach(function (_, j) { layer(j, f); });
        later(next);
      })();
    }
    function later(fn) {
      if (typeof requestIdleCallback === "function") requestIdleCallback(fn, {timeout: 500});
      else setTimeout(fn, 50);
    }
    // xPixel returns where x falls on panel j's x axis, in pixels from
    // the panel's left edge: on a category axis (a histogram's slots, each
    // labelled with its start) between the slots' centres, half a slot on.
    function xPixel(j, x) {
      var chart = panels[j].visible.chart, ax = spec.base[j].xAxis;
      ax = Array.isArray(ax) ? ax[0] : ax;
      if (ax && ax.type === "category" && ax.data && ax.data.length) {
        var s0 = +ax.data[0], w = ax.data.length > 1 ? +ax.data[1] - s0 : 1;
        var p0 = chart.convertToPixel({xAxisIndex: 0}, 0);
        var p1 = ax.data.length > 1 ? chart.convertToPixel({xAxisIndex: 0}, 1) : p0;
        return p0 + ((x - s0) / w - 0.5) * (p1 - p0);
      }
      return chart.convertToPixel({xAxisIndex: 0}, x);
    }
    // place draws the cursor of every panel at the playhead's x, over the
    // plot area only.
    function place() {
      if (!ph) return;
      var x = ph.start + at * ph.step;
      cursors.forEach(function (cur, j) {
        var px, rect;
        try {
          px = xPixel(j, x);
          rect = panels[j].visible.chart.getModel().getComponent("grid", 0).coordinateSystem.getRect();
        } catch (e) { px = NaN; }
        if (!isFinite(px) || !rect || px < rect.x - 1 || px > rect.x + rect.width + 1) {
          cur.style.display = "none";
          return;
        }
        cur.style.display = "block";
        cur.style.left = (px - 1) + "px";
        cur.style.top = rect.y + "px";
        cur.style.height = rect.height + "px";
        cur.setAttribute("data-x", x.toFixed(digits));
      });
    }
    // seek moves the playhead to position i: slider, value, cursors and
    // the tallies on the buttons.
    function seek(i) {
      at = Math.max(0, Math.min(ph.positions - 1, i));
      var v = (ph.start + at * ph.step).toFixed(digits);
      scrub.value = at;
      var text = v + (ph.unit ? " " + ph.unit : "");
      clock.textContent = text;
      scrub.setAttribute("aria-valuetext", text);
      root.setAttribute("data-time", v);
      place();
      tallies.forEach(function (el, b) {
        el.textContent = "at " + text + ": " + ph.tallies.map(function (t) { return t.counts[b][at] + " " + t.name; }).join(", ");
      });
    }
    // play advances the playhead ph.rate x units a second, one step at a
    // time, from where it is (from the start if it is at the end) to the
    // end; pause stops it.
    function play() {
      if (at >= ph.positions - 1) seek(0);
      var t0 = performance.now(), from = at;
      playing = true;
      playBtn.textContent = "\u275A\u275A pause";
      playBtn.setAttribute("aria-pressed", "true");
      root.setAttribute("data-playing", "true");
      function tick(now) {
        if (!playing) return;
        var i = from + Math.floor((now - t0) / 1000 * ph.rate / ph.step);
        if (i !== at) seek(i);
        if (i >= ph.positions - 1) { pause(); return; }
        raf = requestAnimationFrame(tick);
      }
      raf = requestAnimationFrame(tick);
    }
    function pause() {
      if (!playing) return;
      playing = false;
      cancelAnimationFrame(raf);
      playBtn.textContent = "\u25B6 play";
      playBtn.setAttribute("aria-pressed", "false");
      root.setAttribute("data-playing", "false");
    }
    draw();
    if (ph) seek(0);
    later(prepare);
  });
}, function (why) {
  claim("failed", function (el) {
    el.innerHTML = "";
    var p = make("p", "font:14px sans-serif;color:#a00;border:1px solid #a00;padding:8px;margin:0;");
    p.textContent = help + " (" + why + ")";
    el.appendChild(p);
  });
});
