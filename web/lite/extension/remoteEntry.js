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
      // A start that failed (the page was busy being set up) is tried once more.
      return p.catch(() => takeSession());
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

  // The symbol table (scripts/build-wasm's, golab.js's symbolsURL): every
  // exported name of the packages the cells use, with its declaration and
  // doc comment, fetched the first time completion or hover asks.
  let symbols = null;
  function symbolTable() {
    symbols =
      symbols ||
      (async () => {
        golab = golab || (await import(golabURL));
        if (!golab.symbolsURL) throw new Error("this build of Go in the browser has no symbol table");
        const resp = await fetch(golab.symbolsURL);
        if (!resp.ok) throw new Error(`fetching ${golab.symbolsURL}: ${resp.status}`);
        return new SymbolTable(await resp.json());
      })();
    symbols.catch(() => (symbols = null)); // tried again by the next request
    return symbols;
  }

  const KEYWORDS = ("break case chan const continue default defer else fallthrough for func go goto if import " +
    "interface map package range return select struct switch type var").split(" ");
  const BUILTINS = ("any append bool byte cap clear close comparable complex complex128 complex64 copy delete error " +
    "false float32 float64 imag int int16 int32 int64 int8 iota len make max min new nil panic print println real " +
    "recover rune string true uint uint16 uint32 uint64 uint8 uintptr").split(" ");
  const IDENT = /[A-Za-z_0-9]/;

  // importsIn returns the packages code imports, as [name, path] pairs
  // (name the alias, or "" for the package's own name).
  function importsIn(code) {
    const out = [];
    const spec = /^\s*(?:([A-Za-z_][A-Za-z0-9_]*|\.|_)\s+)?"([^"]+)"/;
    for (const m of code.matchAll(/^[ \t]*import[ \t]*\(([^)]*)\)/gm)) {
      for (const line of m[1].split("\n")) {
        const s = spec.exec(line);
        if (s) out.push([s[1] || "", s[2]]);
      }
    }
    for (const m of code.matchAll(/^[ \t]*import[ \t]+((?:[A-Za-z_][A-Za-z0-9_]*|\.|_)[ \t]+)?"([^"]+)"/gm)) {
      out.push([(m[1] || "").trim(), m[2]]);
    }
    return out;
  }

  // declaredIn returns the names code declares at the top level or with :=.
  function declaredIn(code) {
    const names = new Set();
    for (const m of code.matchAll(/^(?:func|type|var|const)[ \t]+([A-Za-z_][A-Za-z0-9_]*)/gm)) names.add(m[1]);
    for (const m of code.matchAll(/\b([A-Za-z_][A-Za-z0-9_]*(?:[ \t]*,[ \t]*[A-Za-z_][A-Za-z0-9_]*)*)[ \t]*:=/g)) {
      for (const n of m[1].split(",")) names.add(n.trim());
    }
    return names;
  }

  const IDLE_MS = 2000;

  const TYPES = { func: "function", method: "function", type: "class", const: "instance", var: "instance" };

  class SymbolTable {
    constructor(table) {
      this.packages = table.packages || {};
      this.byName = new Map(); // package name → import paths
      for (const [path, p] of Object.entries(this.packages)) {
        p.symbols = p.symbols || [];
        p.index = new Map(p.symbols.map((s) => [s.name, s]));
        if (!this.byName.has(p.name)) this.byName.set(p.name, []);
        this.byName.get(p.name).push(path);
      }
      // A name several packages share: the lab's first, then the standard library's.
      const rank = (path) => (path.startsWith("github.com/backofflab/") ? 0 : path.includes(".") ? 2 : 1);
      for (const paths of this.byName.values()) paths.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
    }

    // scope maps the names the code can use to packages: its imports (and
    // the ones kept from earlier cells), else every package of that name.
    scope(imports) {
      const named = new Map();
      for (const [alias, path] of imports) {
        const p = this.packages[path];
        const name = alias && alias !== "." && alias !== "_" ? alias : p ? p.name : path.split("/").pop();
        if (p) named.set(name, p);
      }
      return {
        named,
        get: (name) => named.get(name) || (this.byName.has(name) ? this.packages[this.byName.get(name)[0]] : undefined),
      };
    }
  }

  // wordAt returns the identifier around pos in code, and the package-like
  // qualifier before it (X in X.Name), with where the identifier starts.
  function wordAt(code, pos, wholeWord) {
    let start = pos;
    while (start > 0 && IDENT.test(code[start - 1])) start--;
    let end = pos;
    if (wholeWord) while (end < code.length && IDENT.test(code[end])) end++;
    const word = code.slice(start, end);
    let qualifier = "";
    if (code[start - 1] === ".") {
      let q = start - 1;
      while (q > 0 && IDENT.test(code[q - 1])) q--;
      qualifier = code.slice(q, start - 1);
      if (q > 0 && code[q - 1] === ".") qualifier = ""; // a.b.c: b is not a package
    }
    return { word, qualifier, start, end };
  }

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

  // markServiceWorker records, once the site's service worker is active, the
  // app version JupyterLite's service worker manager compares on each visit.
  // JupyterLite 0.8.6 records it only on a visit that finds the worker
  // already in control, after unregistering every service worker because
  // none was recorded: on the second visit, the one a learner may make
  // offline, while the kernel starts its workers. Recorded on the first
  // visit, the worker stays registered.
  async function markServiceWorker() {
    if (!navigator.serviceWorker) return;
    // The page's configuration, as JupyterLab's PageConfig reads it.
    const config = document.getElementById("jupyter-config-data");
    const version = config && JSON.parse(config.textContent).appVersion;
    const reg = await navigator.serviceWorker.ready; // once its install has kept the site
    const url = reg.active && reg.active.scriptURL;
    if (url && version && !localStorage.getItem(`${url}-version`)) localStorage.setItem(`${url}-version`, version);
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
        this._imports = []; // what the cells run so far imported, for completion
        this._declared = new Set();
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
        if (r.status === "ok") {
          this._imports.push(...importsIn(content.code));
          for (const n of declaredIn(content.code)) this._declared.add(n);
        }
        if (r.status === "error") {
          const err = { ename: r.ename, evalue: r.evalue, traceback: r.traceback || [] };
          this.publishExecuteError(err, parent);
          return { status: "error", execution_count: this.executionCount, ...err };
        }
        return { status: "ok", execution_count: this.executionCount, user_expressions: {} };
      }

      // completeRequest answers from the symbol table: after "pkg." the
      // package's exported names; otherwise the packages in scope, the names
      // the cells declare, Go's keywords and predeclared names. (Fields and
      // methods of values need type checking: not offered.)
      async completeRequest(content) {
        const { code, cursor_pos: pos } = content;
        const none = { matches: [], cursor_start: pos, cursor_end: pos, metadata: {}, status: "ok" };
        let table;
        try {
          table = await symbolTable();
        } catch (err) {
          console.warn(`${NAME}: no completion: ${err.message}`);
          return none;
        }
        const { word, qualifier, start } = wordAt(code, pos, false);
        const scope = table.scope([...this._imports, ...importsIn(code)]);
        const items = [];
        if (qualifier) {
          const p = scope.get(qualifier);
          if (!p) return none;
          for (const s of p.symbols) {
            if (!s.name.includes(".") && s.name.startsWith(word)) items.push({ text: s.name, type: TYPES[s.kind], signature: s.sig.split("\n")[0] });
          }
        } else {
          if (!word) return none;
          const seen = new Set();
          const add = (text, type) => {
            if (text.startsWith(word) && !seen.has(text)) {
              seen.add(text);
              items.push({ text, type });
            }
          };
          for (const name of scope.named.keys()) add(name, "module");
          for (const name of [...this._declared, ...declaredIn(code)]) add(name, "instance");
          for (const name of KEYWORDS) add(name, "keyword");
          for (const name of BUILTINS) add(name, "function");
          for (const name of table.byName.keys()) add(name, "module");
        }
        return {
          matches: items.map((i) => i.text),
          cursor_start: start,
          cursor_end: pos,
          metadata: { _jupyter_types_experimental: items.map((i) => ({ start, end: pos, text: i.text, type: i.type, signature: i.signature || "" })) },
          status: "ok",
        };
      }

      // inspectRequest (Shift-Tab, the contextual help) shows the
      // declaration and doc comment of pkg.Name at the cursor, a package's
      // synopsis, or the methods of that name in the packages in scope.
      async inspectRequest(content) {
        const notFound = { status: "ok", found: false, data: {}, metadata: {} };
        let table;
        try {
          table = await symbolTable();
        } catch (err) {
          console.warn(`${NAME}: no help: ${err.message}`);
          return notFound;
        }
        const { code, cursor_pos: pos } = content;
        const { word, qualifier } = wordAt(code, pos, true);
        if (!word) return notFound;
        const scope = table.scope([...this._imports, ...importsIn(code)]);
        const show = (texts) => ({ status: "ok", found: true, data: { "text/plain": texts.join("\n\n") }, metadata: {} });
        const entry = (s) => (s.doc ? `${s.sig}\n\n${s.doc}` : s.sig);
        if (qualifier) {
          const p = scope.get(qualifier);
          const s = p && p.index.get(word);
          if (s) return show([entry(s)]);
        }
        const p = scope.get(word);
        if (p && !qualifier) {
          const path = Object.keys(table.packages).find((k) => table.packages[k] === p);
          return show([`package ${p.name} // import "${path}"`, p.synopsis].filter(Boolean));
        }
        // A method or field of a value: every method of that name in scope.
        const methods = [];
        for (const pkg of new Set(scope.named.values())) {
          for (const s of pkg.symbols) if (s.kind === "method" && s.name.endsWith("." + word)) methods.push(entry(s));
        }
        return methods.length ? show(methods.slice(0, 3)) : notFound;
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
        markServiceWorker().catch((err) => console.warn(`${NAME}: ${err.message}`));
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
