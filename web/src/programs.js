// The cache of built programs: a cell whose merged program was built
// before, by the same toolchain, runs without compiling and linking again
// (a second visit runs lesson 00's cells in seconds). Programs are kept
// gzipped in the Cache API, keyed by a SHA-256 of everything that decides
// the linked program:
//
//   - the merged source (main.go: every kept declaration and the cell);
//   - the universe (the package set, "main" or "zoo") it is built in;
//   - the manifest's bytes, which name every tool and package archive by
//     a hash of its content (the compiler, the linker, the Go version, the
//     language version);
//   - the worker's JavaScript (the js-HASH folder scripts/build-wasm names
//     by a hash of every script: the compiler's and linker's flags and the
//     import configurations are written there).
//
// Without a content-named script folder (the sources served as they are)
// there is no cache. An edited cell is another source, so another key.

export const PROGRAMS = "backofflab-go-programs-v1";

// Programs kept at most; the oldest go first (the Cache API lists keys in
// the order they were put).
export const MAX_PROGRAMS = 400;

const hex = (buf) => Array.from(new Uint8Array(buf), (b) => b.toString(16).padStart(2, "0")).join("");

// toolchainIdentity names what builds a program besides its source: a hash
// of the manifest's bytes and the content-named folder of the scripts at
// scriptURL; null when the scripts are not in one (or there is no
// crypto.subtle, outside a secure context).
export async function toolchainIdentity(manifestBytes, scriptURL) {
  const js = /\/(js-[0-9a-f]{16})\//.exec(new URL(scriptURL).pathname);
  if (!js || !globalThis.crypto || !crypto.subtle) return null;
  const manifest = hex(await crypto.subtle.digest("SHA-256", manifestBytes));
  return `${manifest}\0${js[1]}`;
}

export class ProgramCache {
  // open returns the cache for programs built with the manifest's bytes by
  // the scripts at scriptURL, or null where there can be none (no Cache
  // API or no crypto.subtle outside a secure context, or scripts not
  // named by their content). base is the site's go-web/ folder: keys are
  // URLs under it that are never fetched.
  static async open(base, manifestBytes, scriptURL) {
    if (!globalThis.caches) return null;
    const identity = await toolchainIdentity(manifestBytes, scriptURL);
    if (!identity) return null;
    let cache;
    try {
      cache = await caches.open(PROGRAMS);
    } catch {
      return null; // opaque origins and private modes have no Cache API
    }
    return new ProgramCache(cache, new URL("program-cache/", base).href, identity);
  }

  constructor(cache, base, identity) {
    this.cache = cache;
    this.base = base;
    this.identity = identity;
  }

  // key is the URL a program is kept under.
  async key(universe, source) {
    const text = `backofflab program v1\0${this.identity}\0${universe}\0${source}`;
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
    return `${this.base}${hex(digest)}.wasm.gz`;
  }

  // get returns the program kept under key, or null. A damaged entry is
  // dropped and counts as none: the cell is built again.
  async get(key) {
    try {
      const resp = await this.cache.match(key);
      if (!resp) return null;
      const bytes = new Uint8Array(await new Response(resp.body.pipeThrough(new DecompressionStream("gzip"))).arrayBuffer());
      if (!WebAssembly.validate(bytes)) throw new Error("not a WebAssembly module");
      return bytes;
    } catch {
      await this.cache.delete(key).catch(() => {});
      return null;
    }
  }

  // put keeps a copy of program under key, taken before it returns (the
  // caller may hand the program's buffer on), and drops the oldest
  // programs past MAX_PROGRAMS. Failures (a full disk) keep nothing.
  put(key, program) {
    const copy = program.slice();
    return (async () => {
      try {
        const gz = new Blob([copy]).stream().pipeThrough(new CompressionStream("gzip"));
        const body = await new Response(gz).arrayBuffer();
        await this.cache.put(key, new Response(body, { headers: { "content-type": "application/gzip" } }));
        const keys = await this.cache.keys();
        for (const old of keys.slice(0, Math.max(0, keys.length - MAX_PROGRAMS))) await this.cache.delete(old);
      } catch {
        // Not kept: the next run of this cell builds it again.
      }
    })();
  }
}
