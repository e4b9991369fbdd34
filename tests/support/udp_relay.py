"""A UDP relay on 127.0.0.1 that a browser page's voice goes through, for tests that
cut its path (a blackout, a network change) without touching the machine's network.

The approach is bench/voice_quality.py's (branch `vq-bench`: `Link`, `Relay`,
`RELAY_HOOK`), cut down to what path tests need: no impairment profiles, but a switch
that drops everything both ways (`Link.down`) and links that close for good (the old
network's address is gone). To be merged with the bench's copy.

A page gets `page_hook()` as an init script; `use(page, link)` points its *next*
negotiation at `link`: every candidate the page gives becomes 127.0.0.1 at the link's
port 1 (the server answers there) and every candidate it takes becomes 127.0.0.1 at the
link's port 0 (the page sends there). Each side learns its endpoint's address from the
packets it gets (loopback only: anything else is counted and dropped).
"""
from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass, field


class _End(asyncio.DatagramProtocol):
    def __init__(self, link: Link, side: int) -> None:
        self.link, self.side = link, side

    def datagram_received(self, data: bytes, addr) -> None:
        self.link.arrived(self.side, data, addr)


@dataclass
class Link:
    """Side 0 gets what the page sends (forwarded to the server from port 1); side 1 what
    the server sends (forwarded to the page from port 0)."""
    transports: list = field(default_factory=list)
    ports: list[int] = field(default_factory=list)
    peer: list = field(default_factory=lambda: [None, None])
    down: bool = False
    counts: dict = field(default_factory=lambda: dict.fromkeys(
        ("up", "down", "dropped", "foreign", "no_peer"), 0))

    def arrived(self, side: int, data: bytes, addr) -> None:
        c = self.counts
        if addr[0] != "127.0.0.1":
            c["foreign"] += 1
            return
        self.peer[side] = addr
        if self.down:
            c["dropped"] += 1
            return
        dest = self.peer[1 - side]
        if dest is None:
            c["no_peer"] += 1
            return
        c["up" if side == 0 else "down"] += 1
        self.transports[1 - side].sendto(data, dest)


class Relay:
    """The links' event loop, in a thread of its own (tests drive Playwright's sync API)."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True, name="relay")
        self.thread.start()
        self.links: list[Link] = []

    def _call(self, fn, *args):
        async def run():
            return fn(*args)
        return asyncio.run_coroutine_threadsafe(run(), self.loop).result(10)

    def link(self) -> Link:
        async def make() -> Link:
            link = Link()
            for side in (0, 1):
                t, _ = await self.loop.create_datagram_endpoint(
                    lambda side=side: _End(link, side), local_addr=("127.0.0.1", 0))
                link.transports.append(t)
                link.ports.append(t.get_extra_info("sockname")[1])
            return link
        link = asyncio.run_coroutine_threadsafe(make(), self.loop).result(10)
        self.links.append(link)
        return link

    def set_down(self, link: Link, down: bool) -> None:
        self._call(setattr, link, "down", down)

    def close_link(self, link: Link) -> None:
        """The link's ports are gone (the old network): packets to them go nowhere."""
        def close():
            for t in link.transports:
                t.close()
        self._call(close)

    def counts(self, link: Link) -> dict:
        return self._call(lambda: dict(link.counts))

    def close(self) -> None:
        def stop():
            for link in self.links:
                for t in link.transports:
                    t.close()
            self.loop.stop()
        self.loop.call_soon_threadsafe(stop)
        self.thread.join(5)
        self.loop.close()


def use(page, link: Link) -> None:
    """The page's next negotiation goes through `link` (its current one is left as is)."""
    page.evaluate("(p) => { window.__relayPorts = p; }", link.ports)


# Every candidate a page gives or takes becomes one loopback candidate at a relay port,
# read from window.__relayPorts ([send, face]) when the description is read or applied.
# Every RTCPeerConnection made is kept in window.__pcs (the newest last).
PAGE_HOOK = """(() => {
  window.__pcs = [];
  window.__pcLog = [];  // [ms, peer's index, event] for a failure's message
  const Native = window.RTCPeerConnection;
  window.RTCPeerConnection = function (...args) {
    const pc = new Native(...args);
    const i = window.__pcs.push(pc) - 1;
    const log = (what) => window.__pcLog.push([Math.round(performance.now()), i, what]);
    log("new");
    pc.addEventListener("connectionstatechange", () => log(pc.connectionState));
    return pc;
  };
  window.RTCPeerConnection.prototype = Native.prototype;
  const one = (sdp, port) => {
    if (!sdp || !port) return sdp;
    let put = false;
    return sdp.split("\\r\\n").flatMap((line) => {
      if (line.startsWith("m=")) put = false;
      if (!line.startsWith("a=candidate:")) return [line];
      if (put) return [];
      put = true;
      return [`a=candidate:1 1 udp 2122260223 127.0.0.1 ${port} typ host generation 0`];
    }).join("\\r\\n");
  };
  const P = Native.prototype;
  const local = Object.getOwnPropertyDescriptor(P, "localDescription");
  Object.defineProperty(P, "localDescription", { configurable: true, get() {
    const d = local.get.call(this);
    const [, face] = window.__relayPorts || [];
    return d && { type: d.type, sdp: one(d.sdp, face), toJSON() { return { type: this.type, sdp: this.sdp }; } };
  } });
  const srd = P.setRemoteDescription;
  P.setRemoteDescription = function (d, ...rest) {
    const [send] = window.__relayPorts || [];
    return srd.call(this, d && { type: d.type, sdp: one(d.sdp, send) }, ...rest);
  };
  const aic = P.addIceCandidate;
  P.addIceCandidate = function (c, ...rest) {
    return c && c.candidate ? Promise.resolve() : aic.call(this, c, ...rest);
  };
})();"""


def page_hook(link: Link) -> str:
    """The init script for a page whose first negotiation goes through `link`."""
    return f"window.__relayPorts = [{link.ports[0]}, {link.ports[1]}];\n{PAGE_HOOK}"


# Packets and audio level received by the page's newest peer (inbound-rtp, audio).
INBOUND = """async () => {
  const pc = (window.__pcs || []).at(-1);
  if (!pc) return null;
  let packets = 0, level = 0;
  (await pc.getStats()).forEach((r) => {
    if (r.type === "inbound-rtp" && r.kind === "audio") {
      packets += r.packetsReceived || 0;
      level = Math.max(level, r.audioLevel || 0);
    }
  });
  return { packets, level, pcs: window.__pcs.length, state: pc.connectionState };
}"""
