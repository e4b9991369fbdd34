// The address players are given, as the server says (GET /api/links): with the evening's
// server (`sussurro serve`, HTTPS on the LAN) the https LAN address the QR codes hold, even
// when this page is on localhost; `reachable: false` when the machine is on no network,
// so the pages say that instead of showing a link no phone can open.

let links = null;
let loading = null;

/** {base, reachable} once known, else null (the page's own address stands in). */
export function roomLinks() {
  return links;
}

/** Ask the server once; `onLoad` runs when the answer arrives (to redraw). */
export function loadLinks(onLoad) {
  if (links) return;
  loading = loading || fetch("/api/links").then((r) => (r.ok ? r.json() : null))
    .then((d) => { if (d?.base) links = { base: d.base, reachable: d.reachable !== false }; })
    .catch(() => { /* the page's own address stays */ });
  loading.then(() => { if (links) onLoad(); });
}

/** The base of room links: the server's, else this page's origin. */
export function linkBase() {
  return links?.base || location.origin;
}
