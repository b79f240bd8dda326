// The Go toolchain in WebAssembly: compile (GOOS=wasip1, under
// browser_wasi_shim) and link (GOOS=js, under wasm_exec.js), over one
// in-memory file system that holds the prebuilt package archives of a
// manifest written by scripts/build-wasm. Works in a worker and in Node.

import { WASI, File, OpenFile, ConsoleStdout, PreopenDirectory, Directory } from "./browser_wasi_shim/index.js";
import { NodeFS } from "./fs.js";
import { runGo } from "./gojs.js";

const WORK = "/work";

// closure returns every package path that paths depend on in universe u,
// paths included, in a deterministic order.
export function closure(u, paths) {
  const seen = new Set();
  const order = [];
  const visit = (p) => {
    if (seen.has(p)) return;
    seen.add(p);
    const pkg = u.packages[p];
    if (!pkg) return;
    for (const d of pkg.imports || []) visit(d);
    order.push(p);
  };
  for (const p of paths) visit(p);
  return order;
}

export class Toolchain {
  // manifest: the parsed manifest; load(asset) returns an asset's content
  // (decompressed).
  constructor(manifest, load) {
    this.manifest = manifest;
    this.load = load;
    this.root = new Directory(new Map());
    this.fs = new NodeFS(this.root, { cwd: WORK });
    this.fs.writeFile(`${WORK}/.keep`, new Uint8Array(0));
    this.loaded = new Map(); // archive file name → Promise
    this.modules = {}; // tool name → Promise<WebAssembly.Module>
  }

  // start fetches and compiles the tools and puts the bundle of the
  // packages the lessons link into the file system.
  async start() {
    const bundle = this.manifest.bundle;
    const tools = ["compile", "link"].map((t) => this.tool(t));
    const data = await this.load(bundle);
    const done = Promise.resolve();
    for (const u of Object.values(this.manifest.universes)) {
      for (const pkg of Object.values(u.packages)) {
        if (!pkg.eager || this.loaded.has(pkg.file)) continue;
        const at = pkg.offset || 0; // omitted when 0
        this.fs.writeFile(this.archivePath(pkg), data.subarray(at, at + pkg.size));
        this.loaded.set(pkg.file, done);
      }
    }
    await Promise.all(tools);
  }

  universe(name) {
    const u = this.manifest.universes[name];
    if (!u) throw new Error(`toolchain: universe ${JSON.stringify(name)} is not in the manifest (have ${Object.keys(this.manifest.universes).join(", ")})`);
    return u;
  }

  tool(name) {
    if (!this.modules[name]) {
      const asset = this.manifest.tools[name];
      if (!asset) throw new Error(`toolchain: no tool ${name} in the manifest`);
      this.modules[name] = this.load(asset).then((b) => WebAssembly.compile(b));
    }
    return this.modules[name];
  }

  archivePath(pkg) {
    return `/pkg/${pkg.file}`;
  }

  // ensure loads the archives of paths (and nothing they import) into the
  // file system.
  async ensure(u, paths) {
    await Promise.all(
      paths.map((p) => {
        const pkg = u.packages[p];
        if (!pkg) throw new Error(`toolchain: package ${p} is not built for the browser`);
        let done = this.loaded.get(pkg.file);
        if (!done) {
          done = this.load(pkg).then((bytes) => this.fs.writeFile(this.archivePath(pkg), bytes));
          this.loaded.set(pkg.file, done);
        }
        return done;
      }),
    );
  }

  // importcfg lists the archive of every package in paths, as go build's
  // importcfg and importcfg.link do.
  importcfg(u, paths, modinfo) {
    const lines = paths.map((p) => `packagefile ${p}=${this.archivePath(u.packages[p])}`);
    if (modinfo) lines.push(`modinfo ${JSON.stringify(modinfo)}`);
    return lines.join("\n") + "\n";
  }

  // compile runs the compiler on the package main made of files ({name:
  // source}) importing imports. It returns { ok, output, ms }.
  async compile(universe, files, imports) {
    const u = this.universe(universe);
    const paths = closure(u, [...imports, "runtime"]);
    const missing = imports.filter((p) => !u.packages[p]);
    if (missing.length) {
      return { ok: false, output: missing.map((p) => `package ${p} is not in the browser's build: only the standard library and the lessons' packages are`).join("\n") + "\n", ms: 0 };
    }
    const [module] = await Promise.all([this.tool("compile"), this.ensure(u, paths)]);
    const t0 = performance.now();
    const names = Object.keys(files).sort();
    for (const n of names) this.fs.writeFile(`${WORK}/${n}`, files[n]);
    this.fs.writeFile(`${WORK}/importcfg`, this.importcfg(u, paths));
    const args = [
      "compile", "-o", `${WORK}/_pkg_.a`, "-p", "main", `-lang=${this.manifest.lang}`, "-complete",
      "-dwarf=false", "-goversion", this.manifest.go, "-c=1", "-nolocalimports",
      "-importcfg", `${WORK}/importcfg`, "-pack", ...names.map((n) => `${WORK}/${n}`),
    ];
    const out = [];
    const decoder = new TextDecoder();
    const collect = new ConsoleStdout((b) => out.push(decoder.decode(b, { stream: true })));
    const wasi = new WASI(args, ["GOOS=js", "GOARCH=wasm", `PWD=${WORK}`, "HOME=/home"], [
      new OpenFile(new File(new Uint8Array(0))), collect, collect, new PreopenDirectory("/", this.root.contents),
    ], { debug: false });
    const instance = await WebAssembly.instantiate(module, { wasi_snapshot_preview1: wasi.wasiImport });
    const code = wasi.start(instance);
    return { ok: code === 0, output: out.join(""), ms: performance.now() - t0, paths };
  }

  // link links the package compiled last into a program and returns
  // { ok, output, program, ms }.
  async link(universe, paths, modinfo) {
    const u = this.universe(universe);
    const module = await this.tool("link");
    const t0 = performance.now();
    this.fs.writeFile(`${WORK}/importcfg.link`, this.importcfg(u, paths, modinfo));
    const out = [];
    const decoder = new TextDecoder();
    const write = (b) => out.push(decoder.decode(b, { stream: true }));
    this.fs.out = { 1: write, 2: write };
    const code = await runGo(module, {
      argv: ["link", "-o", `${WORK}/a.out`, "-importcfg", `${WORK}/importcfg.link`, "-buildmode=exe", "-s", "-w", `${WORK}/_pkg_.a`],
      env: { GOOS: "js", GOARCH: "wasm", PWD: WORK, GOGC: "400" },
      fs: this.fs,
    });
    const ms = performance.now() - t0;
    if (code !== 0) return { ok: false, output: out.join(""), ms };
    const program = this.fs.readFile(`${WORK}/a.out`);
    return { ok: true, output: out.join(""), program: program.slice(), ms };
  }
}
