// node web/test/programs.mjs: checks web/src/programs.js, the cache of
// built programs, with an in-memory Cache: a key changes with each thing
// that decides a program (the source, the universe, the manifest, the
// worker's scripts); a kept program comes back byte for byte; a damaged
// entry is dropped, never returned; the oldest go past MAX_PROGRAMS.
// Prints "ok" and exits 0, or names what failed and exits 1.

import { ProgramCache, toolchainIdentity, MAX_PROGRAMS } from "../src/programs.js";

class MemoryCache {
  constructor() {
    this.entries = new Map(); // url → Response, in the order put
  }
  async match(url) {
    const r = this.entries.get(url);
    return r ? r.clone() : undefined;
  }
  async put(url, resp) {
    this.entries.delete(url);
    this.entries.set(url, resp);
  }
  async delete(url) {
    return this.entries.delete(typeof url === "string" ? url : url.url);
  }
  async keys() {
    return [...this.entries.keys()].map((url) => ({ url, toString: () => url }));
  }
}

const failures = [];
const check = (ok, what) => ok || failures.push(what);

const enc = new TextEncoder();
const js = "http://127.0.0.1:8000/backoff-lab/go-web/js-0123456789abcdef/toolchain-worker.js";
const base = "http://127.0.0.1:8000/backoff-lab/go-web/";
const manifest = enc.encode('{"go":"go1.26.8","tools":{}}');
const id = await toolchainIdentity(manifest, js);
check(id !== null, "no identity for content-named scripts");
check((await toolchainIdentity(manifest, "http://127.0.0.1:8000/web/src/toolchain-worker.js")) === null, "an identity for scripts not named by their content");

const cache = new MemoryCache();
const programs = new ProgramCache(cache, new URL("program-cache/", base).href, id);
const key = await programs.key("main", "package main\nfunc main() {}\n");
const others = [
  await programs.key("main", "package main\nfunc main() { }\n"), // another source
  await programs.key("zoo", "package main\nfunc main() {}\n"), // another universe
  await new ProgramCache(cache, base, await toolchainIdentity(enc.encode('{"go":"go1.26.9","tools":{}}'), js)).key("main", "package main\nfunc main() {}\n"),
  await new ProgramCache(cache, base, await toolchainIdentity(manifest, js.replace("0123456789abcdef", "0123456789abcdee"))).key("main", "package main\nfunc main() {}\n"),
];
check(new Set([key, ...others]).size === 5, `keys collide: ${[key, ...others].join(" ")}`);
check(key === (await programs.key("main", "package main\nfunc main() {}\n")), "the same inputs give another key");

// A minimal WebAssembly module comes back as it went.
const tiny = new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]);
check((await programs.get(key)) === null, "a program before any was put");
await programs.put(key, tiny);
const got = await programs.get(key);
check(got && got.length === tiny.length && got.every((b, i) => b === tiny[i]), "the program kept is not the program got");
// put copies before it returns: the caller may hand the buffer on.
const handed = tiny.slice();
const p = programs.put(others[0], handed);
structuredClone(handed.buffer, { transfer: [handed.buffer] });
await p;
const copy = await programs.get(others[0]);
check(copy && copy.length === tiny.length, "put did not keep its own copy of a program whose buffer was then transferred");

// A damaged entry: dropped, not returned.
await cache.put(others[1], new Response(new Uint8Array([1, 2, 3])));
check((await programs.get(others[1])) === null, "a damaged entry was returned");
check(!cache.entries.has(others[1]), "a damaged entry was kept");
// Gzipped bytes that are not WebAssembly: dropped too.
const gz = await new Response(new Blob([enc.encode("not wasm")]).stream().pipeThrough(new CompressionStream("gzip"))).arrayBuffer();
await cache.put(others[2], new Response(gz));
check((await programs.get(others[2])) === null, "an entry that is not WebAssembly was returned");

// The oldest go past MAX_PROGRAMS.
for (let i = 0; i < MAX_PROGRAMS + 5; i++) await programs.put(await programs.key("main", `// ${i}`), tiny);
check(cache.entries.size === MAX_PROGRAMS, `${cache.entries.size} programs kept, want ${MAX_PROGRAMS}`);
check(!cache.entries.has(key), "the oldest program was kept past the limit");
check(cache.entries.has(await programs.key("main", `// ${MAX_PROGRAMS + 4}`)), "the newest program was dropped");

if (failures.length) {
  console.log(failures.join("\n"));
  process.exit(1);
}
console.log("ok");
