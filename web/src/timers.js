// Timers for a cell program: a Go program for GOOS=js sleeps through
// setTimeout, which browsers clamp to 4 ms once timeouts nest (each Go
// timer is set from the callback of the last), so a 1 ms sleep would take
// 4. Lessons 11 and 12 run real clients whose retries wait a few
// milliseconds. preciseTimers replaces setTimeout and clearTimeout with
// timers that fire on time: a long wait sleeps on the real setTimeout,
// its last milliseconds pass in MessageChannel turns, which are not
// clamped.

export function preciseTimers(global = globalThis) {
  const realSet = global.setTimeout.bind(global);
  const realClear = global.clearTimeout.bind(global);
  const timers = new Map(); // id → { at, fn, args }
  let nextId = 1;
  let sleeping = null; // the real timeout we sleep on, if any
  let turning = false; // a MessageChannel turn is queued
  const channel = new MessageChannel();

  const pump = () => {
    turning = false;
    const now = performance.now();
    let next = Infinity;
    for (const [id, t] of [...timers]) {
      if (t.at <= now) {
        timers.delete(id);
        t.fn(...t.args);
      }
    }
    for (const t of timers.values()) next = Math.min(next, t.at);
    schedule(next);
  };
  const schedule = (next) => {
    if (next === Infinity) return;
    const wait = next - performance.now();
    if (wait > 6) {
      if (sleeping === null) {
        sleeping = realSet(() => {
          sleeping = null;
          pump();
        }, wait - 5);
      }
    } else if (!turning) {
      turning = true;
      channel.port2.postMessage(0);
    }
  };
  channel.port1.onmessage = pump;

  global.setTimeout = (fn, ms = 0, ...args) => {
    const id = nextId++;
    timers.set(id, { at: performance.now() + Math.max(0, Number(ms) || 0), fn, args });
    if (sleeping !== null) {
      realClear(sleeping);
      sleeping = null;
    }
    schedule(Math.min(...[...timers.values()].map((t) => t.at)));
    return id;
  };
  global.clearTimeout = (id) => {
    timers.delete(id);
  };
}
