// The one-phone page's service worker: on the first visit it caches everything the page
// needs (listed by /offline/manifest.json: the page, the client's modules, styles and
// translations, Pyodide, the core archive), then serves it from the cache, so the game
// works with the network gone, a cold start of the browser included. A new manifest
// version makes a new cache; the old one is deleted once the new one is complete.

const PREFIX = "sussurro-offline-";
let current = null;   // {version, cache} once installed

async function install() {
  const res = await fetch("/offline/manifest.json", { cache: "no-store" });
  if (!res.ok) throw new Error(`manifest: HTTP ${res.status}`);
  const manifest = await res.json();
  const name = PREFIX + manifest.version;
  const cache = await caches.open(name);
  // One by one, skipping what this version already has (an interrupted install resumes).
  for (const url of manifest.urls) {
    if (await cache.match(url)) continue;
    const got = await fetch(url, { cache: "no-cache" });
    if (!got.ok) throw new Error(`${url}: HTTP ${got.status}`);
    await cache.put(url, got);
  }
  await cache.put("/offline/manifest.json", new Response(JSON.stringify(manifest), {
    headers: { "Content-Type": "application/json" },
  }));
  current = { version: manifest.version, name };
}

self.addEventListener("install", (ev) => {
  ev.waitUntil(install().then(() => self.skipWaiting()));
});

self.addEventListener("activate", (ev) => {
  ev.waitUntil((async () => {
    const name = current?.name || (await newestCache());
    for (const key of await caches.keys()) {
      if (key.startsWith(PREFIX) && key !== name) await caches.delete(key);
    }
    await self.clients.claim();
  })());
});

async function newestCache() {
  const keys = (await caches.keys()).filter((k) => k.startsWith(PREFIX));
  return keys[keys.length - 1] || null;
}

async function cacheName() {
  if (!current) {
    const name = await newestCache();
    if (name) current = { name, version: name.slice(PREFIX.length) };
  }
  return current?.name || null;
}

self.addEventListener("fetch", (ev) => {
  const url = new URL(ev.request.url);
  if (ev.request.method !== "GET" || url.origin !== self.location.origin) return;
  ev.respondWith((async () => {
    const name = await cacheName();
    if (name) {
      const cache = await caches.open(name);
      // The page's address with or without a query is the one cached page.
      const key = url.pathname === "/offline/" || url.pathname === "/offline" ? "/offline/" : url.pathname;
      const hit = await cache.match(key);
      if (hit) return hit;
    }
    return fetch(ev.request);
  })());
});

// The page asks whether everything is cached ("ready for offline use").
self.addEventListener("message", (ev) => {
  if (ev.data?.type !== "status") return;
  ev.waitUntil((async () => {
    const name = await cacheName();
    let ready = false;
    if (name) {
      const cache = await caches.open(name);
      ready = Boolean(await cache.match("/offline/manifest.json"));
    }
    ev.source?.postMessage({ type: "status", ready, version: current?.version || null });
  })());
});
