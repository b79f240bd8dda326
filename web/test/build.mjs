// node web/test/build.mjs DIR NOTEBOOK.ipynb [--run]: builds every code
// cell of a notebook with the browser's toolchain as scripts/build-wasm
// wrote it into DIR (and with --run runs each program), under Node.js, and
// prints each cell's stages and times. A debugging aid: what the worker
// does, without a browser.

import fs from "node:fs";
import path from "node:path";
import { decompress } from "../src/fzstd/index.mjs";
import { Directory } from "../src/browser_wasi_shim/index.js";
import { NodeFS } from "../src/fs.js";
import { startGo } from "../src/gojs.js";
import { Toolchain } from "../src/toolchain.js";

const [dir, nbPath, ...flags] = process.argv.slice(2);
if (!dir || !nbPath) {
  console.error("usage: node web/test/build.mjs DIR NOTEBOOK.ipynb [--run]");
  process.exit(2);
}
const wasmExec = fs.readdirSync(dir).find((d) => d.startsWith("js-") && fs.existsSync(path.join(dir, d, "golab.js")));
await import(path.resolve(dir, wasmExec, "wasm_exec.js"));
const golab = fs.readFileSync(path.join(dir, "golab.js"), "utf8");
const manifestRel = /new URL\("\.\/([^"]+)"/.exec(golab)[1];
const manifest = JSON.parse(fs.readFileSync(path.join(dir, manifestRel), "utf8"));
const load = async (a) => {
  const body = new Uint8Array(fs.readFileSync(path.join(dir, a.url)));
  if (!a.url.endsWith(".zst")) return body;
  const out = new Uint8Array(a.size);
  decompress(body, out);
  return out;
};
const names = {};
for (const u of Object.values(manifest.universes)) for (const [p, pkg] of Object.entries(u.packages)) names[p] = pkg.name;

const t0 = performance.now();
const tc = new Toolchain(manifest, load);
const cellsModule = await WebAssembly.compile(await load(manifest.tools.cells));
await startGo(cellsModule, { argv: ["cells"], fs: new NodeFS(new Directory(new Map())), ready: () => !!globalThis.backofflabCells });
await tc.start();
console.log(`ready in ${Math.round(performance.now() - t0)} ms`);

const run = flags.includes("--run") ? (await import("../src/program.js")).run : null;
const nb = JSON.parse(fs.readFileSync(nbPath, "utf8"));
let state = null;
let id = 0;
let files = {};
for (const c of nb.cells) {
  if (c.cell_type !== "code") continue;
  id++;
  const source = Array.isArray(c.source) ? c.source.join("") : c.source;
  const m = JSON.parse(globalThis.backofflabCells.merge(JSON.stringify({ state, cell: id, source, names })));
  if (m.error || m.fatal) {
    console.log(`cell ${id}: merge: ${JSON.stringify(m.error || m.fatal)}`);
    continue;
  }
  const p = m.program;
  if (p.empty) {
    console.log(`cell ${id}: empty`);
    state = m.next;
    continue;
  }
  const universe = p.imports.some((i) => i.includes("/backofflab/zoo")) ? "zoo" : "main";
  const cr = await tc.compile(universe, { "main.go": p.source }, p.imports);
  if (!cr.ok) {
    console.log(`cell ${id}: compile failed:\n${cr.output}`);
    continue;
  }
  const lr = await tc.link(universe, cr.paths);
  if (!lr.ok) {
    console.log(`cell ${id}: link failed:\n${lr.output}\nimportcfg.link:\n${new TextDecoder().decode(tc.fs.readFile("/work/importcfg.link")).split("\n").length} lines`);
    fs.writeFileSync(`/tmp/cell${id}.go`, p.source);
    fs.writeFileSync(`/tmp/cell${id}.importcfg`, tc.fs.readFile("/work/importcfg.link"));
    continue;
  }
  state = m.next;
  let line = `cell ${id}: compile ${Math.round(cr.ms)} ms, link ${Math.round(lr.ms)} ms, ${(lr.program.length / 1e6).toFixed(1)} MB`;
  if (run) {
    const t = performance.now();
    let out = "";
    const r = await run(lr.program, { files, handlers: { stdout: (s) => (out += s), stderr: (s) => (out += s), display: (d) => (out += `[display ${Object.keys(d.data).join(",")}]\n`) } });
    files = r.files;
    line += `, run ${Math.round(performance.now() - t)} ms, exit ${r.code}\n${out}`;
  }
  console.log(line);
}
