// The script of an Explorable: load echarts, then build the controls, a
// readout and one echarts panel per entry of spec.heights in the
// fragment's div, and show the frame the controls select. Moving a control
// redraws synchronously, in the input event's handler, so the panels always
// show the control's last value.
/* global id, spec, help, backofflabLoadECharts, claim */
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
    p.textContent = help + " (" + why + ")";
    el.appendChild(p);
  });
});
