// The JupyterLite kernel "Go (Backoff Lab, in the browser)": a prebuilt
// JupyterLab federated extension written by hand (no webpack). JupyterLite's
// bootstrap loads this script, calls init(shareScope) with the page's shared
// modules and get("./extension") for the plugin; the plugin registers the
// kernel, whose cells run in Go in the browser (web/golab.js's Session,
// scripts/build-wasm's files in the site's go-web/ folder). See web/lite/README.md.
(function () {
  "use strict";
  const NAME = "@backofflab/go-kernel";
  const KERNEL = "backofflab-go"; // the kernelspec name the lessons are saved with
  // This script is SITE/extensions/@backofflab/go-kernel/static/remoteEntry.*.js:
  // the engine is SITE/go-web/, wherever the site is served (a path prefix too).
  const script = document.currentScript && document.currentScript.src;
  const siteURL = new URL("../../../../", script || location.href);
  const golabURL = new URL("go-web/golab.js", siteURL).href;

  let shareScope = null;

  // shared returns the page's own instance of a module JupyterLite shares
  // (so that tokens such as IKernelSpecs are the page's objects).
  async function shared(pkg) {
    const versions = shareScope && shareScope[pkg];
    if (!versions || !Object.keys(versions).length) {
      throw new Error(`${NAME}: the page shares no ${pkg} (is this JupyterLite 0.8?)`);
    }
    const keys = Object.keys(versions);
    const key = keys.find((k) => versions[k].loaded) || keys.sort(compareVersions).pop();
    const entry = versions[key];
    const factory = await entry.get();
    entry.loaded = 1;
    return factory();
  }

  function compareVersions(a, b) {
    const pa = a.split(/[.-]/).map((x) => parseInt(x, 10) || 0);
    const pb = b.split(/[.-]/).map((x) => parseInt(x, 10) || 0);
    for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
      if ((pa[i] || 0) !== (pb[i] || 0)) return (pa[i] || 0) - (pb[i] || 0);
    }
    return 0;
  }

  // Sessions are kept for the next kernel: a restart disposes the kernel
  // and makes a new one with the same id; the toolchain (a few seconds to
  // start) is reused, its declarations forgotten.
  const idle = [];
  let golab = null;
  // prestarted: the session started when the page loads (the plugin's
  // activation), for the first kernel, which JupyterLite makes later.
  let prestarted = null;
  async function takeSession() {
    if (prestarted) {
      const p = prestarted;
      prestarted = null;
      return p;
    }
    golab = golab || (await import(golabURL));
    const s = idle.pop();
    if (s) {
      s.restart();
      return s;
    }
    // Built programs are kept in the browser: a cell built before, on this
    // visit or an earlier one, runs without compiling and linking again. The
    // compiler and linker (a few seconds of unpacking on every visit) start
    // when a cell needs them or the kernel has been idle a while (warmUp), so
    // that cells built before run first without them.
    const t0 = performance.now();
    const session = await golab.Session.start({ manifestURL: golab.manifestURL, cachePrograms: true, deferToolchain: true });
    (window.backofflabGoTimings = window.backofflabGoTimings || []).push({ start: performance.now() - t0, at: performance.now() });
    return session;
  }

  const IDLE_MS = 2000;

  // isComplete says whether a cell's brackets and strings are closed.
  function isComplete(code) {
    let depth = 0;
    let i = 0;
    while (i < code.length) {
      const c = code[i];
      if (c === "/" && code[i + 1] === "/") {
        while (i < code.length && code[i] !== "\n") i++;
        continue;
      }
      if (c === "/" && code[i + 1] === "*") {
        const end = code.indexOf("*/", i + 2);
        if (end < 0) return "incomplete";
        i = end + 2;
        continue;
      }
      if (c === '"' || c === "'" || c === "`") {
        let j = i + 1;
        while (j < code.length && code[j] !== c) {
          if (c !== "`" && code[j] === "\\") j++;
          if (c !== "`" && code[j] === "\n") return "invalid";
          j++;
        }
        if (j >= code.length) return "incomplete";
        i = j + 1;
        continue;
      }
      if ("([{".includes(c)) depth++;
      if (")]}".includes(c)) depth--;
      if (depth < 0) return "invalid";
      i++;
    }
    return depth > 0 ? "incomplete" : "complete";
  }

  function makeExtension(services) {
    const kernels = new Map(); // id → GoKernel

    class GoKernel extends services.BaseKernel {
      constructor(options) {
        super(options);
        kernels.set(this.id, this);
        this._session = takeSession();
        this._running = 0; // cells sent to the session and not finished
        this._session.then(() => this.warmUp(), () => {});
        // A failed start is reported by the first execute, not as an
        // unhandled rejection.
        this._session.catch(() => {});
      }

      // warmUp starts the session's compiler and linker once no cell has run
      // for IDLE_MS.
      warmUp() {
        clearTimeout(this._warm);
        this._warm = setTimeout(() => {
          if (this._running === 0 && !this.isDisposed) this._session.then((s) => s.startToolchain()).catch(() => {});
        }, IDLE_MS);
      }

      get ready() {
        return Promise.resolve();
      }

      dispose() {
        if (this.isDisposed) return;
        kernels.delete(this.id);
        this._session.then((s) => idle.push(s), () => {});
        super.dispose();
      }

      interrupt() {
        this._session.then((s) => s.interrupt(), () => {});
      }

      async kernelInfoRequest() {
        return {
          implementation: "backofflab-go-browser",
          implementation_version: "1",
          language_info: {
            name: "go",
            version: "go1.26",
            mimetype: "text/x-go",
            file_extension: ".go",
            codemirror_mode: "go",
            pygments_lexer: "go",
            nbconvert_exporter: "",
          },
          protocol_version: "5.3",
          status: "ok",
          banner: "Go (Backoff Lab, in the browser): Go's compiler and linker as WebAssembly, in this tab",
          help_links: [],
        };
      }

      async executeRequest(content) {
        const parent = this.parentHeader;
        const began = performance.now();
        let session;
        try {
          session = await this._session;
        } catch (err) {
          // A toolchain that did not start is tried again by the next cell.
          this._session = takeSession();
          this._session.catch(() => {});
          const evalue = `Go in the browser did not start: ${err.message}`;
          this.stream({ name: "stderr", text: evalue + "\n" }, parent);
          this.publishExecuteError({ ename: "StartError", evalue, traceback: [evalue] }, parent);
          return { status: "error", execution_count: this.executionCount, ename: "StartError", evalue, traceback: [evalue] };
        }
        this._running++;
        let r;
        try {
          r = await session.execute(content.code, {
            stream: (name, text) => this.stream({ name, text }, parent),
            display: (msg) => {
              const bundle = { data: msg.data || {}, metadata: msg.metadata || {}, transient: msg.transient || {} };
              if (msg.update) this.updateDisplayData(bundle, parent);
              else this.displayData(bundle, parent);
            },
          });
        } finally {
          this._running--;
          this.warmUp();
        }
        // Each cell's build and run times (merge, cached or compile and link,
        // run, in ms), the last 200, for scripts/bench-lite and a curious learner.
        const log = (window.backofflabGoTimings = window.backofflabGoTimings || []);
        log.push({ kernel: this.id, count: r.executionCount, status: r.status, began, at: performance.now(), ...r.timings });
        if (log.length > 200) log.splice(0, log.length - 200);
        if (r.status === "error") {
          const err = { ename: r.ename, evalue: r.evalue, traceback: r.traceback || [] };
          this.publishExecuteError(err, parent);
          return { status: "error", execution_count: this.executionCount, ...err };
        }
        return { status: "ok", execution_count: this.executionCount, user_expressions: {} };
      }

      async completeRequest(content) {
        return { matches: [], cursor_start: content.cursor_pos, cursor_end: content.cursor_pos, metadata: {}, status: "ok" };
      }

      async inspectRequest() {
        return { status: "ok", found: false, data: {}, metadata: {} };
      }

      async isCompleteRequest(content) {
        const status = isComplete(content.code);
        return status === "incomplete" ? { status, indent: "\t" } : { status };
      }

      async commInfoRequest() {
        return { status: "ok", comms: {} };
      }

      inputReply() {}
      async commOpen() {}
      async commMsg() {}
      async commClose() {}
    }

    const icon =
      "data:image/svg+xml;base64," +
      btoa('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" rx="10" fill="#00add8"/><text x="32" y="42" font-family="sans-serif" font-size="26" font-weight="bold" fill="#fff" text-anchor="middle">Go</text></svg>');

    const plugin = {
      id: `${NAME}:kernel`,
      autoStart: true,
      requires: [services.IKernelSpecs],
      optional: [services.IKernelClient],
      activate(app, specs, client) {
        prestarted = takeSession();
        prestarted.catch(() => {}); // reported by the kernel that takes it
        specs.register({
          spec: {
            name: KERNEL,
            display_name: "Go (Backoff Lab, in the browser)",
            language: "go",
            argv: [],
            spec: {
              argv: [],
              env: {},
              display_name: "Go (Backoff Lab, in the browser)",
              language: "go",
              interrupt_mode: "message",
              metadata: {},
            },
            resources: { "logo-32x32": icon, "logo-64x64": icon },
          },
          create: async (options) => new GoKernel(options),
        });
        // JupyterLite's interrupt cancels the cells queued after the one
        // that runs; the one that runs is stopped by terminating its
        // program's worker (golab.js's interrupt).
        if (client && typeof client.interrupt === "function") {
          const interrupt = client.interrupt.bind(client);
          client.interrupt = async (id) => {
            const k = kernels.get(id);
            if (k) k.interrupt();
            return interrupt(id);
          };
        }
      },
    };
    return { __esModule: true, default: [plugin] };
  }

  window._JUPYTERLAB = window._JUPYTERLAB || {};
  window._JUPYTERLAB[NAME] = {
    init(scope) {
      shareScope = scope;
    },
    async get(module) {
      if (module !== "./extension") throw new Error(`${NAME}: no module ${module}`);
      const ext = makeExtension(await shared("@jupyterlite/services"));
      return () => ext;
    },
  };
})();
