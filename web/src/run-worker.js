// The run worker: runs one cell program and reports what it prints and
// displays. golab.js starts one for each run and terminates it to stop a
// program (an endless loop never yields, so nothing else could).

import "./wasm_exec.js";
import { run } from "./program.js";
import { preciseTimers } from "./timers.js";

preciseTimers();

onmessage = async (e) => {
  const { program, files, env, maxMemory } = e.data;
  const send = (msg) => postMessage(msg);
  try {
    const t0 = performance.now();
    const result = await run(new Uint8Array(program), {
      files,
      env,
      maxMemory,
      handlers: {
        stdout: (text) => text && send({ type: "stream", name: "stdout", text }),
        stderr: (text) => text && send({ type: "stream", name: "stderr", text }),
        display: (msg) => send({ type: "display", ...msg }),
      },
    });
    send({ type: "exit", code: result.code, files: result.files, ms: performance.now() - t0 });
  } catch (err) {
    send({ type: "failed", message: String(err && err.stack ? err.stack : err) });
  }
};
