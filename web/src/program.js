// Running a cell program: a GOOS=js WebAssembly module, in an instance of
// its own, with GoNB's display pipes (GONB_PIPE, GONB_PIPE_BACK) served by
// this file instead of a kernel, and a memory limit.

import { Directory } from "./browser_wasi_shim/index.js";
import { NodeFS } from "./fs.js";
import { Decoder, SyncAcks } from "./gob.js";
import { runGo } from "./gojs.js";

// GoNB's directory names, as a cell program sees them.
export const KERNEL_DIR = "/tmp/gonb";
const PIPE = `${KERNEL_DIR}/gonb_pipe`;
const PIPE_BACK = `${KERNEL_DIR}/gonb_pipe_back`;

const PAGE = 65536;

// limitMemory returns module bytes whose memory may grow to at most
// maxBytes: the Go linker declares a memory with no maximum, and a program
// that allocates without end would take the tab's memory. With a maximum,
// memory.grow fails and the Go runtime ends with "fatal error: out of
// memory".
export function limitMemory(bytes, maxBytes) {
  const max = Math.floor(maxBytes / PAGE);
  let i = 8; // magic and version
  const uleb = (at) => {
    let v = 0, shift = 0, b;
    do {
      b = bytes[at++];
      v += (b & 0x7f) * 2 ** shift;
      shift += 7;
    } while (b & 0x80);
    return [v, at];
  };
  const enc = (v) => {
    const out = [];
    do {
      let b = v % 128;
      v = Math.floor(v / 128);
      if (v > 0) b |= 0x80;
      out.push(b);
    } while (v > 0);
    return out;
  };
  while (i < bytes.length) {
    const id = bytes[i];
    const [size, body] = uleb(i + 1);
    if (id === 5) {
      let [count, at] = uleb(body);
      if (count !== 1) throw new Error(`program: ${count} memories, expected 1`);
      const flags = bytes[at];
      const [initial, end] = uleb(at + 1);
      let hasMax = flags & 1;
      if (hasMax) return bytes; // the module sets its own
      if (initial > max) throw new Error(`program: needs ${initial * PAGE} bytes of memory at start, over the limit of ${maxBytes}`);
      const newBody = [1, 1, ...enc(initial), ...enc(max)];
      const header = [5, ...enc(newBody.length)];
      const out = new Uint8Array(bytes.length - (body + size - i) + header.length + newBody.length);
      out.set(bytes.subarray(0, i), 0);
      out.set(header, i);
      out.set(newBody, i + header.length);
      out.set(bytes.subarray(body + size), i + header.length + newBody.length);
      return out;
    }
    i = body + size;
  }
  throw new Error("program: no memory section");
}

// run runs program (bytes of a linked cell program). handlers: stdout(text),
// stderr(text), display(msg) with msg { data, metadata, transient } as
// GoNB publishes it. files is the kernel directory's content ({relative
// path: bytes}), where lab.Remember keeps values between cells; the
// directory after the run is returned as files, beside the exit code.
export async function run(program, { handlers, files = {}, env = {}, maxMemory = 2 ** 31, args = [] }) {
  const root = new Directory(new Map());
  const decoder = new TextDecoder();
  const decoder2 = new TextDecoder();
  const fs = new NodeFS(root, {
    cwd: KERNEL_DIR,
    stdout: (b) => handlers.stdout(decoder.decode(b, { stream: true })),
    stderr: (b) => handlers.stderr(decoder2.decode(b, { stream: true })),
  });
  fs.writeFile(`${KERNEL_DIR}/.keep`, new Uint8Array(0));
  for (const [name, data] of Object.entries(files)) fs.writeFile(`${KERNEL_DIR}/${name}`, data);

  // The back pipe: acknowledgements of gonbui.Sync, read by the program's
  // pollReaderPipe goroutine, which waits (a pending read) until one comes.
  const acks = new SyncAcks();
  let backQueue = new Uint8Array(0);
  let waiting = null;
  const pushBack = (bytes) => {
    const joined = new Uint8Array(backQueue.length + bytes.length);
    joined.set(backQueue);
    joined.set(bytes, backQueue.length);
    backQueue = joined;
    if (waiting) {
      const w = waiting;
      waiting = null;
      w();
    }
  };
  fs.devices.set(PIPE_BACK, {
    write() {
      throw new Error("GONB_PIPE_BACK is read-only");
    },
    read(length, cb) {
      const serve = () => {
        const n = Math.min(length, backQueue.length);
        const out = backQueue.slice(0, n);
        backQueue = backQueue.slice(n);
        cb(out);
      };
      if (backQueue.length > 0) serve();
      else waiting = serve;
    },
  });
  const display = new Decoder((msg) => {
    const data = msg.Data || {};
    const comm = data["gonb/comm_value"];
    if (comm) {
      const v = comm.value || {};
      if (v.Address === "#gonbui/sync") pushBack(acks.ack(v.Value.value));
      return; // widgets' values: no front-end here to answer them
    }
    if (data["gonb/jupyter_input"]) {
      handlers.stderr("gonbui.RequestInput: there is no input box in the browser; the program reads an empty standard input\n");
      return;
    }
    const bundle = {};
    for (const [mime, v] of Object.entries(data)) bundle[mime] = v.value instanceof Uint8Array ? base64(v.value) : v.value;
    const metadata = {};
    for (const [k, v] of Object.entries(msg.Metadata || {})) metadata[k] = v.value;
    const transient = msg.DisplayID ? { display_id: msg.DisplayID } : {};
    handlers.display({ data: bundle, metadata, transient });
  });
  fs.devices.set(PIPE, {
    write(bytes) {
      display.push(bytes);
    },
    read(length, cb) {
      cb(new Uint8Array(0));
    },
  });

  const module = await WebAssembly.compile(limitMemory(program, maxMemory));
  const code = await runGo(module, {
    argv: ["main", ...args],
    env: {
      HOME: "/home", PWD: KERNEL_DIR, TMPDIR: "/tmp",
      GONB_PIPE: PIPE, GONB_PIPE_BACK: PIPE_BACK, GONB_TMP_DIR: KERNEL_DIR, GONB_DIR: KERNEL_DIR,
      ...env,
    },
    fs,
  });
  const tail = decoder.decode();
  if (tail) handlers.stdout(tail);
  return { code, files: collect(root, KERNEL_DIR) };
}

// collect returns the files under dir (relative paths), but the pipes.
function collect(root, dir) {
  const out = {};
  let n = root;
  for (const c of dir.split("/").filter(Boolean)) n = n.contents.get(c);
  const walk = (d, prefix) => {
    for (const [name, child] of d.contents) {
      if (child instanceof Directory) walk(child, `${prefix}${name}/`);
      else if (name !== ".keep") out[prefix + name] = child.data;
    }
  };
  if (n) walk(n, "");
  return out;
}

function base64(bytes) {
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}
