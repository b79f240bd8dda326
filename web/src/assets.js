// Fetching the files scripts/build-wasm wrote: from the site that serves
// them and nowhere else, kept in the Cache API under their content-named
// URLs (a second visit fetches nothing), decompressed with fzstd.

import { decompress } from "./fzstd/index.mjs";

export const CACHE = "backofflab-go-v1";

// Assets from this size (unpacked) on are unpacked off the calling thread.
const OFF_THREAD = 4 << 20;

// unzstdOffThread decompresses body (size bytes unpacked) in a worker.
function unzstdOffThread(body, size) {
  return new Promise((resolve, reject) => {
    const w = new Worker(new URL("./unzstd-worker.js", import.meta.url), { type: "module" });
    w.onmessage = (e) => {
      w.terminate();
      if (e.data.error) reject(new Error(`unpacking: ${e.data.error}`));
      else resolve(new Uint8Array(e.data.out));
    };
    w.onerror = (e) => {
      w.terminate();
      reject(new Error(`unpacking: ${e.message}`));
    };
    w.postMessage({ body: body.buffer, offset: body.byteOffset, length: body.byteLength, size }, [body.buffer]);
  });
}

// Loader fetches assets relative to base (the manifest's URL).
export class Loader {
  constructor(base, { onFetch = () => {} } = {}) {
    this.base = base;
    this.onFetch = onFetch; // (url, bytes, fromCache) for progress and the benchmark
    this.cache = null;
  }

  async open() {
    if (this.cache === null) {
      try {
        this.cache = globalThis.caches ? await caches.open(CACHE) : undefined;
      } catch {
        this.cache = undefined; // opaque origins and private modes have no Cache API
      }
    }
    return this.cache;
  }

  // bytes returns the served bytes of asset (an Asset of the manifest),
  // from the cache when it holds them.
  async bytes(asset) {
    const url = new URL(asset.url, this.base).href;
    const cache = await this.open();
    let resp = cache ? await cache.match(url) : undefined;
    const fromCache = !!resp;
    if (!resp) {
      resp = await fetch(url);
      if (!resp.ok) throw new Error(`fetching ${url}: ${resp.status} ${resp.statusText}`);
      if (cache) await cache.put(url, resp.clone());
    }
    const body = new Uint8Array(await resp.arrayBuffer());
    this.onFetch(url, body.length, fromCache);
    return body;
  }

  // load returns asset's content, decompressed: a large one in a worker
  // of its own, so that the tools and the bundle (180 MB unpacked, most
  // of the worker's start) unpack side by side, one a core.
  async load(asset) {
    const body = await this.bytes(asset);
    if (!asset.url.endsWith(".zst")) return body;
    if (asset.size >= OFF_THREAD && typeof Worker === "function") return unzstdOffThread(body, asset.size);
    const out = new Uint8Array(asset.size);
    decompress(body, out);
    return out;
  }
}
