// The toolchain worker: merges a cell with the kept declarations
// (internal/cells, as WebAssembly), compiles and links the program. The
// page talks to it through golab.js; messages are documented in
// web/README.md.

import "./wasm_exec.js";
import { Directory } from "./browser_wasi_shim/index.js";
import { Loader } from "./assets.js";
import { NodeFS } from "./fs.js";
import { startGo } from "./gojs.js";
import { Toolchain } from "./toolchain.js";

let toolchain, manifest, names;

const ZOO = "github.com/backofflab/backofflab/zoo";
const inZoo = (p) => p === ZOO || p.startsWith(ZOO + "/");

async function start({ manifestURL }) {
  const t0 = performance.now();
  // Asset URLs are relative to DIR, the manifest's parent's parent.
  const loader = new Loader(new URL("../", manifestURL).href, {
    onFetch: (url, bytes, fromCache) => postMessage({ type: "fetched", url, bytes, fromCache }),
  });
  const resp = await fetch(manifestURL);
  if (!resp.ok) throw new Error(`fetching ${manifestURL}: ${resp.status} ${resp.statusText}`);
  manifest = await resp.json();
  names = {};
  for (const u of Object.values(manifest.universes)) {
    for (const [path, pkg] of Object.entries(u.packages)) names[path] = pkg.name;
  }
  toolchain = new Toolchain(manifest, (a) => loader.load(a));
  const cells = loader.load(manifest.tools.cells).then((b) => WebAssembly.compile(b)).then((module) =>
    startGo(module, {
      argv: ["cells"],
      fs: new NodeFS(new Directory(new Map())),
      ready: () => !!globalThis.backofflabCells,
    }),
  );
  await Promise.all([toolchain.start(), cells]);
  return { ms: performance.now() - t0, go: manifest.go };
}

// diagnostics turns the compiler's "/work/main.go:L:C: msg" lines into
// the learner's cells and lines.
function diagnostics(output, lines, source) {
  const out = [];
  const src = source.split("\n");
  for (const l of output.split("\n")) {
    const m = /^(?:\/work\/)?main\.go:(\d+):(\d+): (.*)$/.exec(l);
    if (!m) continue;
    const at = Number(m[1]);
    const o = lines[at - 1] || { cell: 0, line: 0 };
    out.push({ cell: o.cell, line: o.line, column: Number(m[2]), msg: m[3], text: src[at - 1] ?? "" });
  }
  return out;
}

async function build({ state, cell, source }) {
  const timings = {};
  let t = performance.now();
  const merged = JSON.parse(globalThis.backofflabCells.merge(JSON.stringify({ state, cell, source, names })));
  timings.merge = performance.now() - t;
  if (merged.fatal) throw new Error(merged.fatal);
  if (merged.error) {
    const e = merged.error;
    return { ok: false, stage: "parse", diagnostics: [{ cell: e.Cell, line: e.Line, column: e.Column, msg: e.Msg, text: source.split("\n")[e.Line - 1] ?? "" }], timings };
  }
  const p = merged.program;
  const base = { program: undefined, lines: p.lines, imports: p.imports, shell: p.shell || [], commands: p.commands || [], empty: !!p.empty, next: merged.next, timings };
  if (p.empty) return { ok: true, ...base };
  const universe = p.imports.some(inZoo) ? "zoo" : "main";
  const c = await toolchain.compile(universe, { "main.go": p.source }, p.imports);
  timings.compile = c.ms;
  if (!c.ok) return { ...base, ok: false, stage: "compile", output: c.output, diagnostics: diagnostics(c.output, p.lines, p.source) };
  const l = await toolchain.link(universe, c.paths);
  timings.link = l.ms;
  if (!l.ok) return { ...base, ok: false, stage: "link", output: l.output, diagnostics: [] };
  return { ...base, ok: true, program: l.program, source: p.source };
}

onmessage = async (e) => {
  const { type, id } = e.data;
  try {
    if (type === "start") {
      postMessage({ type: "ready", id, ...(await start(e.data)) });
    } else if (type === "build") {
      const result = await build(e.data);
      const transfer = result.program ? [result.program.buffer] : [];
      postMessage({ type: "built", id, result }, transfer);
    } else {
      throw new Error(`toolchain worker: unknown message ${type}`);
    }
  } catch (err) {
    postMessage({ type: "failed", id, message: String(err && err.stack ? err.stack : err) });
  }
};
