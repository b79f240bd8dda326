// gobcheck decodes the gob stream on stdin with web/src/gob.js and prints
// each value as a line of JSON (byte slices as base64); with "acks N..." as
// arguments it instead writes the sync acknowledgements for ids N... to
// stdout. web/webtest runs it against Go's own encoding/gob.
import { Decoder, SyncAcks } from "../src/gob.js";

const args = process.argv.slice(2);
if (args[0] === "acks") {
  const acks = new SyncAcks();
  for (const id of args.slice(1)) process.stdout.write(acks.ack(Number(id)));
} else {
  const lines = [];
  const d = new Decoder((v) => lines.push(JSON.stringify(v, (k, x) => (x instanceof Uint8Array ? { base64: Buffer.from(x).toString("base64") } : typeof x === "bigint" ? x.toString() : x))));
  const chunks = [];
  for await (const c of process.stdin) chunks.push(c);
  const all = new Uint8Array(Buffer.concat(chunks));
  // Push in odd-sized pieces, as a pipe delivers them.
  for (let at = 0; at < all.length; at += 7) d.push(all.subarray(at, at + 7));
  process.stdout.write(lines.join("\n") + "\n");
}
