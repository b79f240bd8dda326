// The plain test page (no JupyterLite): a notebook's cells, run one by
// one in the browser's Go. internal/browsercheck/wasm_test.go drives it
// through window.golabTest.

import { Session, manifestURL } from "../golab.js";

const $ = (id) => document.getElementById(id);
const status = (t) => ($("status").textContent = t);
let session, notebook;

// render shows an output as JupyterLab would: streams as text, PNG as an
// image, HTML with its scripts run (the charts draw themselves).
function render(el, out) {
  if (out.output_type === "stream") {
    const pre = document.createElement("pre");
    pre.className = `out ${out.name}`;
    pre.textContent = out.text.replace(/\x1b\[[0-9;]*m/g, "");
    el.append(pre);
    return pre;
  }
  const div = document.createElement("div");
  div.className = "display";
  fill(div, out.data);
  el.append(div);
  return div;
}

function fill(div, data) {
  div.textContent = "";
  if (data["image/png"]) {
    const img = document.createElement("img");
    img.src = "data:image/png;base64," + data["image/png"];
    div.append(img);
  } else if (data["text/html"] !== undefined) {
    div.innerHTML = data["text/html"];
    for (const old of div.querySelectorAll("script")) {
      const s = document.createElement("script");
      for (const a of old.attributes) s.setAttribute(a.name, a.value);
      s.textContent = old.textContent;
      old.replaceWith(s);
    }
  } else if (data["text/markdown"] !== undefined) {
    div.textContent = data["text/markdown"];
  } else if (data["text/plain"] !== undefined) {
    div.textContent = data["text/plain"];
  }
}

// runCell executes one code cell and returns its outputs in nbformat's
// shape, streams joined as Jupyter joins them and display updates applied.
async function runCell(cellEl, source) {
  cellEl.className = "cell running";
  const outEl = cellEl.querySelector(".outputs");
  outEl.textContent = "";
  const outputs = [];
  const byId = new Map();
  const stream = (name, text) => {
    const last = outputs[outputs.length - 1];
    if (last && last.output_type === "stream" && last.name === name) {
      last.text += text;
      last.el.textContent = last.text.replace(/\x1b\[[0-9;]*m/g, "");
    } else {
      const o = { output_type: "stream", name, text };
      o.el = render(outEl, o);
      outputs.push(o);
    }
  };
  const display = (msg) => {
    const id = msg.transient && msg.transient.display_id;
    if (msg.update && byId.has(id)) {
      const o = byId.get(id);
      o.data = msg.data;
      o.metadata = msg.metadata;
      fill(o.el, msg.data);
      return;
    }
    const o = { output_type: "display_data", data: msg.data, metadata: msg.metadata };
    o.el = render(outEl, o);
    if (id) byId.set(id, o);
    outputs.push(o);
  };
  const r = await session.execute(source, { stream, display });
  if (r.status === "error") outputs.push({ output_type: "error", ename: r.ename, evalue: r.evalue, traceback: r.traceback });
  cellEl.className = `cell ${r.status}`;
  const t = r.timings || {};
  cellEl.querySelector(".timing").textContent = ["merge", "compile", "link", "run"].filter((k) => t[k] !== undefined).map((k) => `${k} ${Math.round(t[k])} ms`).join(" · ");
  return { status: r.status, executionCount: r.executionCount, timings: t, outputs: outputs.map(({ el, ...o }) => o) };
}

function showNotebook(nb) {
  notebook = nb;
  const main = $("cells");
  main.textContent = "";
  nb.cells.forEach((c, i) => {
    const el = document.createElement("section");
    el.className = "cell";
    el.dataset.index = i;
    const src = Array.isArray(c.source) ? c.source.join("") : c.source;
    if (c.cell_type === "markdown") {
      el.innerHTML = '<div class="md"></div>';
      el.querySelector(".md").textContent = src;
    } else {
      el.innerHTML = '<button class="run">Run</button> <span class="timing"></span><pre class="src"></pre><div class="outputs"></div>';
      el.querySelector(".src").textContent = src;
      el.querySelector(".run").onclick = () => runCell(el, src);
    }
    main.append(el);
  });
}

async function loadNotebook(name) {
  const resp = await fetch(`./notebooks/${name}`);
  if (!resp.ok) throw new Error(`notebook ${name}: ${resp.status}`);
  showNotebook(await resp.json());
}

// open restarts the kernel (the session forgets every declaration, value
// and display, as on a kernel restart; the toolchain stays loaded) and
// shows notebook name, ready to run.
async function open(name) {
  session.restart();
  $("notebook").value = name;
  await loadNotebook(name);
}

// runAll runs every code cell in order and returns their results.
async function runAll() {
  const results = [];
  for (const el of document.querySelectorAll("section.cell")) {
    const c = notebook.cells[Number(el.dataset.index)];
    if (c.cell_type !== "code") continue;
    const src = Array.isArray(c.source) ? c.source.join("") : c.source;
    el.scrollIntoView({ block: "nearest" });
    results.push(await runCell(el, src));
  }
  return results;
}

const fetched = [];
window.golabTest = {
  ready: null,
  fetched,
  loadNotebook,
  open,
  runAll,
  async runSource(source) {
    const el = document.createElement("section");
    el.innerHTML = '<span class="timing"></span><pre class="src"></pre><div class="outputs"></div>';
    el.querySelector(".src").textContent = source;
    $("cells").append(el);
    return runCell(el, source);
  },
  interrupt: () => session.interrupt(),
  restart: () => session.restart(),
  session: () => session,
};

window.golabTest.ready = (async () => {
  const t0 = performance.now();
  const index = await (await fetch("./notebooks/index.json")).json();
  for (const n of index) $("notebook").append(new Option(n, n));
  $("notebook").onchange = () => (session ? open($("notebook").value) : loadNotebook($("notebook").value));
  const want = new URLSearchParams(location.search).get("notebook") || index.find((n) => n.startsWith("01-")) || index[0];
  $("notebook").value = want;
  await loadNotebook(want);
  const params = new URLSearchParams(location.search);
  const maxMemory = params.has("maxMemory") ? Number(params.get("maxMemory")) : undefined;
  session = await Session.start({ manifestURL, maxMemory, onFetch: (url, bytes, fromCache) => fetched.push({ url, bytes, fromCache }) });
  const ms = performance.now() - t0;
  status(`ready in ${(ms / 1000).toFixed(1)} s (${session.ready.go})`);
  for (const b of ["runall", "stop", "restart"]) $(b).disabled = false;
  $("runall").onclick = () => runAll();
  $("stop").onclick = () => session.interrupt();
  $("restart").onclick = () => open($("notebook").value);
  return { ms };
})();
