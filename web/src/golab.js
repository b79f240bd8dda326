// Go in the browser, for a page or a kernel: see web/README.md.
//
//   import { Session, manifestURL } from "./golab.js";  // DIR/golab.js
//   const go = await Session.start({ manifestURL });
//   const r = await go.execute(source, { stream(name, text) {}, display(msg) {} });
//
// A Session is one GoNB kernel: it keeps the declarations of the cells it
// ran and the kernel directory (where lab.Remember keeps values). Cells
// are built by a toolchain worker and each program runs in a worker of
// its own, which interrupt() terminates.

const here = import.meta.url;

// Errors a learner can act on, with the names execute reports.
export const CompileError = "CompileError";
export const Interrupted = "Interrupted";

// BrowserNote starts every line the browser adds to a cell's stderr to say
// where it differs from GoNB (a skipped shell line, the in-memory network).
export const BrowserNote = "in the browser: ";

export class Session {
  // start starts the toolchain worker and waits until it can build:
  // manifestURL is where scripts/build-wasm wrote the manifest (DIR/golab.js
  // exports it). onFetch(url, bytes, fromCache) reports each asset.
  // maxMemory caps a program's memory (bytes, default 2 GiB).
  // cachePrograms keeps built programs in the browser (programs.js), so a
  // cell built before (on an earlier visit too) runs without compiling
  // and linking; start then resolves once the cell merger runs, and the
  // compiler and linker start behind it (at once, or with deferToolchain
  // when a build first needs them or startToolchain() is called).
  static async start({ manifestURL, onFetch = () => {}, maxMemory = 2 ** 31, cachePrograms = false, deferToolchain = false } = {}) {
    if (!manifestURL) throw new Error("Session.start: manifestURL is required (DIR/golab.js exports it)");
    if (!(Number.isInteger(maxMemory) && maxMemory >= 2 ** 24 && maxMemory <= 2 ** 32)) {
      throw new Error(`Session.start: maxMemory must be a whole number of bytes from 16 MiB to 4 GiB, got ${maxMemory}`);
    }
    const s = new Session(manifestURL, onFetch, maxMemory);
    s.options = { programCache: !!cachePrograms, deferToolchain: !!deferToolchain };
    s.ready = await s.startWorker();
    return s;
  }

  constructor(manifestURL, onFetch, maxMemory) {
    this.manifestURL = manifestURL;
    this.onFetch = onFetch;
    this.maxMemory = maxMemory;
    this.executionCount = 0;
    this.state = null; // the kept declarations (internal/cells.State), plain data
    this.files = {}; // the kernel directory
    this.displayIds = new Set();
    this.queue = Promise.resolve();
    this.calls = new Map();
    this.nextId = 1;
    this.options = {};
    this.stores = new Map(); // build id → resolve, while the worker keeps its program
    this.running = null; // { worker, resolve } of the program being run
    this.building = null;
  }

  startWorker() {
    this.toolchain = new Worker(new URL("./toolchain-worker.js", here), { type: "module" });
    this.toolchain.onmessage = (e) => {
      const m = e.data;
      if (m.type === "fetched") return this.onFetch(m.url, m.bytes, m.fromCache);
      if (m.type === "stored") return this.endStore(m.id);
      if (m.type === "built" && m.result.storing) {
        // The worker is still keeping the program in the cache: stored resolves when it has.
        m.result.stored = new Promise((resolve) => this.stores.set(m.id, resolve));
      }
      const call = this.calls.get(m.id);
      if (!call) return;
      this.calls.delete(m.id);
      if (m.type === "failed") call.reject(new Error(m.message));
      else call.resolve(m);
    };
    this.toolchain.onerror = (e) => {
      for (const c of this.calls.values()) c.reject(new Error(`toolchain worker: ${e.message}`));
      this.calls.clear();
    };
    return this.call({ type: "start", manifestURL: this.manifestURL, ...this.options });
  }

  // startToolchain starts the compiler and linker of a session started with
  // deferToolchain (a no-op once they run); it resolves when they are ready.
  startToolchain() {
    return this.call({ type: "startToolchain" });
  }

  endStore(id) {
    const resolve = this.stores.get(id);
    this.stores.delete(id);
    if (resolve) resolve();
  }

  call(msg) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.calls.set(id, { resolve, reject });
      this.toolchain.postMessage({ ...msg, id });
    });
  }

  // build merges source as cell number cell with the kept declarations
  // and compiles and links it; it keeps nothing (execute does). The result:
  // { ok, stage, program (Uint8Array), lines, diagnostics: [{cell, line,
  // column, msg, text}], shell, commands, empty, next (state to keep),
  // timings: { merge, compile, link } in ms }.
  async build(source, { cell = this.executionCount + 1, state = this.state } = {}) {
    const m = await this.call({ type: "build", state, cell, source });
    return m.result;
  }

  // run runs a built program in a worker of its own: handlers.stream(name,
  // text) for stdout and stderr, handlers.display(msg) for display data
  // ({ data, metadata, transient }, as GoNB publishes it). It resolves to
  // { code, ms } when the program exits, { interrupted: true } when
  // interrupt() stopped it.
  run(program, handlers, { files = this.files, env = {} } = {}) {
    return new Promise((resolve, reject) => {
      const worker = new Worker(new URL("./run-worker.js", here), { type: "module" });
      this.running = { worker, resolve };
      const finish = (v, err) => {
        worker.terminate();
        if (this.running && this.running.worker === worker) this.running = null;
        err ? reject(err) : resolve(v);
      };
      worker.onmessage = (e) => {
        const m = e.data;
        if (m.type === "stream") handlers.stream(m.name, m.text);
        else if (m.type === "display") handlers.display(m);
        else if (m.type === "exit") finish({ code: m.code, ms: m.ms, files: m.files });
        else if (m.type === "failed") finish(null, new Error(m.message));
      };
      worker.onerror = (e) => finish(null, new Error(`run worker: ${e.message}`));
      const copy = program.slice().buffer;
      worker.postMessage({ program: copy, files, env, maxMemory: this.maxMemory }, [copy]);
    });
  }

  // execute runs a cell as GoNB's execute_request does, after the cells
  // before it: handlers.stream(name, text), handlers.display(msg) with
  // msg.update true for an update_display_data. It resolves to { status:
  // "ok" | "error", executionCount, ename, evalue, traceback, timings }.
  execute(source, handlers) {
    const job = this.queue.then(() => this.executeNow(source, handlers));
    this.queue = job.catch(() => {});
    return job;
  }

  async executeNow(source, handlers) {
    const count = ++this.executionCount;
    const timings = {};
    const t0 = performance.now();
    this.building = true;
    let b;
    try {
      b = await this.build(source, { cell: count });
    } catch (err) {
      if (this.interruptedBuild) {
        this.interruptedBuild = false;
        return this.fail(handlers, count, Interrupted, "the build was stopped", timings);
      }
      throw err;
    } finally {
      this.building = false;
    }
    Object.assign(timings, b.timings);
    for (const cmd of b.shell || []) handlers.stream("stderr", `${BrowserNote}shell commands do not run, skipped: ${cmd}\n`);
    for (const cmd of b.commands || []) handlers.stream("stderr", `${BrowserNote}GoNB's % commands other than %% do not run, skipped: ${cmd}\n`);
    if (!b.ok) {
      const lines = b.diagnostics.map((d) => `cell [${d.cell}] line ${d.line}:${d.column}: ${d.msg}${d.text ? `\n    ${d.text.trim()}` : ""}`);
      const text = lines.length ? lines.join("\n") + "\n" : b.output || "the build failed\n";
      handlers.stream("stderr", text);
      return this.fail(handlers, count, CompileError, b.diagnostics[0] ? `cell [${b.diagnostics[0].cell}] line ${b.diagnostics[0].line}: ${b.diagnostics[0].msg}` : "build failed", timings);
    }
    this.state = b.next;
    if (b.empty) return { status: "ok", executionCount: count, timings };
    const mapper = new StackMapper(b.lines, (text) => handlers.stream("stderr", text));
    const t1 = performance.now();
    const r = await this.run(b.program, {
      stream: (name, text) => (name === "stderr" ? mapper.write(text) : handlers.stream(name, text)),
      display: (msg) => {
        const id = msg.transient && msg.transient.display_id;
        const update = !!id && this.displayIds.has(id);
        if (id) this.displayIds.add(id);
        handlers.display({ data: msg.data, metadata: msg.metadata, transient: msg.transient, update });
      },
    });
    mapper.flush();
    timings.run = performance.now() - t1;
    // A cell counts as run once its program is kept too (a reload right
    // after it finds it), waiting at most a few seconds for the cache.
    if (b.stored && !r.interrupted) {
      const t2 = performance.now();
      await Promise.race([b.stored, new Promise((done) => setTimeout(done, 5000))]);
      timings.store = performance.now() - t2;
    }
    timings.total = performance.now() - t0;
    if (r.interrupted) return this.fail(handlers, count, Interrupted, "the program was stopped", timings);
    this.files = r.files;
    if (r.code !== 0) return { status: "error", executionCount: count, ename: "ERROR", evalue: `exit status ${r.code}`, traceback: [`exit status ${r.code}`], timings };
    return { status: "ok", executionCount: count, timings };
  }

  fail(handlers, count, ename, evalue, timings) {
    return { status: "error", executionCount: count, ename, evalue, traceback: [`${ename}: ${evalue}`], timings };
  }

  // interrupt stops the program that runs (terminating its worker) or the
  // build under way (restarting the toolchain worker). The session stays
  // usable; the declarations are kept, as GoNB keeps them.
  interrupt() {
    if (this.running) {
      const { worker, resolve } = this.running;
      this.running = null;
      worker.terminate();
      resolve({ interrupted: true });
      return true;
    }
    if (this.building) {
      this.interruptedBuild = true;
      this.toolchain.terminate();
      for (const id of [...this.stores.keys()]) this.endStore(id);
      const pending = [...this.calls.values()];
      this.calls.clear();
      this.ready = this.startWorker();
      for (const c of pending) c.reject(new Error("interrupted"));
      return true;
    }
    return false;
  }

  // restart forgets every declaration, remembered value and display, as a
  // kernel restart does; the toolchain stays loaded.
  restart() {
    this.interrupt();
    this.executionCount = 0;
    this.state = null;
    this.files = {};
    this.displayIds.clear();
  }

  close() {
    this.interrupt();
    this.toolchain.terminate();
  }
}

// StackMapper annotates stderr as GoNB does: a reference to main.go:N in
// a panic's stack trace gets the cell and line it came from.
export class StackMapper {
  constructor(lines, write) {
    this.lines = lines;
    this.out = write;
    this.buf = "";
  }
  write(text) {
    this.buf += text;
    const nl = this.buf.lastIndexOf("\n");
    if (nl < 0) return;
    this.out(this.annotate(this.buf.slice(0, nl + 1)));
    this.buf = this.buf.slice(nl + 1);
  }
  flush() {
    if (this.buf) this.out(this.annotate(this.buf));
    this.buf = "";
  }
  annotate(text) {
    return text.replace(/(?:\/work\/)?main\.go:(\d+)/g, (m, n) => {
      const o = this.lines[Number(n) - 1];
      if (!o || !o.cell) return m;
      return ` \u001b[7m[[ Cell [${o.cell}] Line ${o.line} ]]\u001b[0m ${m}`;
    });
  }
}
