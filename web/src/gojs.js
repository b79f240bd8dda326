// Running GOOS=js programs (the linker, the cell merger, a cell program)
// under Go's own lib/wasm/wasm_exec.js, with a NodeFS as their file system.

import { processShim } from "./fs.js";

// runGo instantiates module (a compiled GOOS=js WebAssembly.Module) and runs
// it to its exit with argv and env over fs. It returns the exit code. The
// program's stdout and stderr go to fs's handlers for fd 1 and 2. Only one
// program runs at a time in a realm: wasm_exec.js reads globalThis.fs.
export async function runGo(module, { argv, env = {}, fs }) {
  if (!globalThis.Go) throw new Error("gojs: wasm_exec.js is not loaded");
  globalThis.fs = fs;
  globalThis.process = processShim(fs);
  const go = new globalThis.Go();
  go.argv = argv;
  go.env = env;
  let code = 0;
  go.exit = (c) => {
    code = c;
  };
  const instance = await WebAssembly.instantiate(module, go.importObject);
  await go.run(instance);
  return code;
}

// startGo is runGo for a program that stays alive to serve calls (it blocks
// in select{} after registering functions on globalThis): it returns once
// ready() reports true, leaving the program running.
export async function startGo(module, { argv, env = {}, fs, ready }) {
  globalThis.fs = fs;
  globalThis.process = processShim(fs);
  const go = new globalThis.Go();
  go.argv = argv;
  go.env = env;
  let exited = null;
  go.exit = (c) => {
    exited = c;
  };
  const instance = await WebAssembly.instantiate(module, go.importObject);
  const done = go.run(instance);
  while (!ready()) {
    if (exited !== null) throw new Error(`gojs: ${argv[0]} exited with code ${exited} before it was ready`);
    await new Promise((r) => setTimeout(r, 0));
  }
  return { go, done };
}
