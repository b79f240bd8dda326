// Decompresses one zstd asset off the toolchain worker's thread (see
// assets.js): { body, offset, length, size } in, { out } or { error } back.

import { decompress } from "./fzstd/index.mjs";

onmessage = (e) => {
  const { body, offset, length, size } = e.data;
  try {
    const out = new Uint8Array(size);
    decompress(new Uint8Array(body, offset, length), out);
    postMessage({ out: out.buffer }, [out.buffer]);
  } catch (err) {
    postMessage({ error: String(err && err.message ? err.message : err) });
  }
};
