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
import { ProgramCache } from "./programs.js";

let toolchain, manifest, names, programs;
// toolchainStarted: the compiler's and linker's start (fetching and
// unpacking the tools and the bundle), begun by startToolchain.
let toolchainStarted = null;
let startTools = null;
// started: the start message's work; a build sent before it ends waits.
let started = null;

const ZOO = "github.com/backofflab/backofflab/zoo";
const inZoo = (p) => p === ZOO || p.startsWith(ZOO + "/");

// start loads the manifest and the cell merger. With programCache it
// answers as soon as the merger runs: a cell whose program is in the cache
// needs neither compiler nor linker, which start in the background
// (deferred: when a build needs them or startToolchain is sent). Without
// it, it answers when the compiler and linker are ready too.
async function start({ manifestURL, programCache = false, deferToolchain = false }) {
  const t0 = performance.now();
  // Asset URLs are relative to DIR, the manifest's parent's parent.
  const loader = new Loader(new URL("../", manifestURL).href, {
    onFetch: (url, bytes, fromCache) => postMessage({ type: "fetched", url, bytes, fromCache }),
  });
  const resp = await fetch(manifestURL);
  if (!resp.ok) throw new Error(`fetching ${manifestURL}: ${resp.status} ${resp.statusText}`);
  const manifestBytes = new Uint8Array(await resp.arrayBuffer());
  manifest = JSON.parse(new TextDecoder().decode(manifestBytes));
  names = {};
  for (const u of Object.values(manifest.universes)) {
    for (const [path, pkg] of Object.entries(u.packages)) names[path] = pkg.name;
  }
  toolchain = new Toolchain(manifest, (a) => loader.load(a));
  // A start that failed (a fetch) is tried again, afresh, by the next build.
  startTools = () =>
    (toolchainStarted =
      toolchainStarted ||
      toolchain.start().catch((err) => {
        toolchainStarted = null;
        toolchain = new Toolchain(manifest, (a) => loader.load(a));
        throw err;
      }));
  programs = programCache ? await ProgramCache.open(new URL("../", manifestURL).href, manifestBytes, import.meta.url) : null;
  const cells = loader.load(manifest.tools.cells).then((b) => WebAssembly.compile(b)).then((module) =>
    startGo(module, {
      argv: ["cells"],
      fs: new NodeFS(new Directory(new Map())),
      ready: () => !!globalThis.backofflabCells,
    }),
  );
  if (!programs) {
    await Promise.all([startTools(), cells]);
  } else {
    if (!deferToolchain) startTools().catch(() => {}); // a build that needs it reports its error
    await cells;
  }
  return { ms: performance.now() - t0, go: manifest.go, programCache: !!programs };
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
  // A program built before from the same source, by the same toolchain,
  // packages and build code (programs.js: the key covers them all).
  const key = programs ? await programs.key(universe, p.source) : null;
  if (key) {
    t = performance.now();
    const program = await programs.get(key);
    if (program) {
      timings.cached = performance.now() - t;
      return { ...base, ok: true, program, source: p.source, cached: true };
    }
  }
  t = performance.now();
  await startTools();
  timings.toolchain = performance.now() - t; // waiting for the compiler and linker to start
  const c = await toolchain.compile(universe, { "main.go": p.source }, p.imports);
  timings.compile = c.ms;
  if (!c.ok) return { ...base, ok: false, stage: "compile", output: c.output, diagnostics: diagnostics(c.output, p.lines, p.source) };
  const l = await toolchain.link(universe, c.paths);
  timings.link = l.ms;
  if (!l.ok) return { ...base, ok: false, stage: "link", output: l.output, diagnostics: [] };
  // Kept in the background while the program runs; "stored" says when.
  const storing = key ? programs.put(key, l.program) : null;
  return { ...base, ok: true, program: l.program, source: p.source, storing };
}

onmessage = async (e) => {
  const { type, id } = e.data;
  try {
    if (type === "start") {
      started = start(e.data);
      postMessage({ type: "ready", id, ...(await started) });
    } else if (type === "startToolchain") {
      if (!started) throw new Error("toolchain worker: startToolchain before start");
      await started;
      await startTools();
      postMessage({ type: "toolchainReady", id });
    } else if (type === "build") {
      if (!started) throw new Error("toolchain worker: build before start");
      await started;
      const { storing, ...result } = await build(e.data);
      result.storing = !!storing;
      // The cache keeps its own copy: the program's buffer goes to the page.
      const transfer = result.program ? [result.program.buffer] : [];
      postMessage({ type: "built", id, result }, transfer);
      if (storing) storing.then(() => postMessage({ type: "stored", id }));
    } else {
      throw new Error(`toolchain worker: unknown message ${type}`);
    }
  } catch (err) {
    postMessage({ type: "failed", id, message: String(err && err.stack ? err.stack : err) });
  }
};
