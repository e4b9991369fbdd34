// The page's door to the game core running in the worker: call(fn, args) -> Promise.
// A refusal of the rules rejects with {code, message, detail} (the core's GameError).

let worker = null;
let next = 1;
const pending = new Map();

/** Start the worker and the core (Pyodide, the core archive); resolves when ready. */
export function startCore(urls) {
  if (worker) return call("__boot", urls);
  worker = new Worker("/offline/worker.js");
  worker.onmessage = (ev) => {
    const { id, ok, error, ms } = ev.data;
    const p = pending.get(id);
    if (!p) return;
    pending.delete(id);
    lastMs = ms ?? null;
    if (error) p.reject(Object.assign(new Error(error.message || error.code), error));
    else p.resolve(ok);
  };
  return call("__boot", urls);
}

let lastMs = null;
/** Milliseconds the last call spent in Python (for the benchmark). */
export function lastCallMs() {
  return lastMs;
}

/** How many calls are waiting for the core's answer (the tests wait for none). */
export function inFlight() {
  return pending.size;
}

/** Call a function of the page's Python side (web/offline/sussurro_offline.py). */
export function call(fn, args = {}) {
  return new Promise((resolve, reject) => {
    const id = next++;
    pending.set(id, { resolve, reject });
    worker.postMessage({ id, fn, args });
  });
}
