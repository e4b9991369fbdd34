// The game core in a web worker: Pyodide (served by our server, cached by the service
// worker) runs the same `game` package as the server. A classic worker, because
// Pyodide's loader is a classic script. Messages: {id, fn, args} -> {id, ok} | {id, error}.
/* global importScripts, loadPyodide */

let bridge = null;
let booting = null;

async function boot(urls) {
  const t0 = performance.now();
  importScripts(`${urls.pyodide}pyodide.js`);
  const pyodide = await loadPyodide({ indexURL: urls.pyodide, fullStdLib: false });
  const t1 = performance.now();
  const res = await fetch(urls.core);
  if (!res.ok) throw new Error(`core archive: HTTP ${res.status}`);
  pyodide.unpackArchive(await res.arrayBuffer(), "zip", { extractDir: "/sussurro" });
  pyodide.runPython("import sys; sys.path.insert(0, '/sussurro')");
  const t2 = performance.now();
  bridge = pyodide.pyimport("sussurro_offline");
  // Load the word data and the text checks now, not at the first deal.
  bridge.call(JSON.stringify({ fn: "catalog", args: {} }));
  const t3 = performance.now();
  return {
    ms: Math.round(t3 - t0),
    parts: { pyodide: Math.round(t1 - t0), unpack: Math.round(t2 - t1), imports: Math.round(t3 - t2) },
    python: pyodide.runPython("import sys; sys.version.split()[0]"),
  };
}

self.onmessage = async (ev) => {
  const { id, fn, args } = ev.data;
  try {
    if (fn === "__boot") {
      booting = booting || boot(args);
      self.postMessage({ id, ok: await booting });
      return;
    }
    if (!bridge) await booting;
    const t0 = performance.now();
    const answer = JSON.parse(bridge.call(JSON.stringify({ fn, args })));
    self.postMessage({ id, ...answer, ms: performance.now() - t0 });
  } catch (err) {
    self.postMessage({ id, error: { code: "core_failed", message: String(err && err.message || err) } });
  }
};
