"""A UDP relay on 127.0.0.1 that a browser page's voice goes through, for tests that
cut its path (a blackout, a network change) without touching the machine's network.

bench/voice_quality.py impairs one direction's RTP with a seeded profile (`Impairment`,
`Relay.set`); the path tests switch a link off both ways (`Relay.set_down`) or close it
for good (the old network's address is gone: `Relay.close_link`).

A page gets `page_hook()` as an init script; `use(page, link)` points its *next*
negotiation at `link`: every candidate the page gives becomes 127.0.0.1 at the link's
port 1 (the server answers there) and every candidate it takes becomes 127.0.0.1 at the
link's port 0 (the page sends there). Each side learns its endpoint's address from the
packets it gets (loopback only: anything else is counted and dropped).
"""
from __future__ import annotations

import asyncio
import contextlib
import pickle
import random
import struct
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path


def is_rtp(data: bytes) -> bool:
    """RTP, not RTCP (RFC 5761: RTCP's packet types 192..223 in the second byte)."""
    return len(data) >= 12 and 128 <= data[0] <= 191 and not 192 <= data[1] <= 223


class Impairment:
    """One profile's decision per RTP packet of one direction: None (drop) or a delay (s)."""

    def __init__(self, profile: dict, rng: random.Random) -> None:
        self.p = profile
        self.rng = rng
        self.bad = False  # Gilbert-Elliott state
        self.last_out = 0.0  # monotone jitter: the latest delivery time so far
        self.free_at = 0.0  # token bucket: when the link has sent what it holds
        self.blackout: tuple[float, float] | None = None  # [start, end) on the loop's clock

    def decide(self, size: int, now: float) -> float | None:
        p, rng = self.p, self.rng
        if self.blackout and self.blackout[0] <= now < self.blackout[1]:
            return None
        if "burst" in p:
            mean, length = p["burst"]
            leave = 1.0 / length
            enter = mean * leave / (1.0 - mean)
            self.bad = rng.random() >= leave if self.bad else rng.random() < enter
            if self.bad:
                return None
        if rng.random() < p.get("loss", 0.0):
            return None
        delay = 0.0
        if "hiccup" in p:
            # A clean link whose packets now and then come a few ms late (a busy sender's
            # audio thread, a Wi-Fi retry): one in `every` on average, lo..hi ms.
            every, lo, hi = p["hiccup"]
            if rng.random() < 1.0 / every:
                delay = rng.uniform(lo, hi) / 1000
        if "jitter_ms" in p:
            mean, sd = p["jitter_ms"]
            delay = max(0.0, rng.gauss(mean, sd)) / 1000
            if p.get("monotone"):
                delay = max(delay, self.last_out - now)
                self.last_out = now + delay
        if "rate_kbps" in p:
            start = max(now, self.free_at)
            if start - now > p["queue_ms"] / 1000:
                return None
            self.free_at = start + (size + 28) * 8 / (p["rate_kbps"] * 1000)
            delay = self.free_at - now
        return delay


class _End(asyncio.DatagramProtocol):
    def __init__(self, link: Link, side: int) -> None:
        self.link, self.side = link, side

    def datagram_received(self, data: bytes, addr) -> None:
        self.link.arrived(self.side, data, addr)


DIRECTIONS = ("xy", "yx")  # side 0 receives what X sends to Y; side 1 what Y sends to X


@dataclass
class Link:
    """Two relay ports between endpoints X and Y: `ports[0]` stands for Y in X's eyes (X
    sends there) and `ports[1]` for X in Y's. Each side learns its endpoint's address from
    the packets it gets (loopback only: anything else is counted and dropped) and forwards
    them from the other side's port."""
    loop: asyncio.AbstractEventLoop
    transports: list = field(default_factory=list)
    ports: list[int] = field(default_factory=list)
    peer: list = field(default_factory=lambda: [None, None])
    impair: dict = field(default_factory=lambda: dict.fromkeys(DIRECTIONS))
    down: bool = False  # everything dropped both ways (counted as dropped RTP or other)
    counts: dict = field(default_factory=lambda: {
        d: dict.fromkeys(("rtp", "rtp_dropped", "other", "other_dropped", "foreign",
                          "no_peer"), 0)
        for d in DIRECTIONS})

    def arrived(self, side: int, data: bytes, addr) -> None:
        c = self.counts[DIRECTIONS[side]]
        if addr[0] != "127.0.0.1":
            c["foreign"] += 1
            return
        self.peer[side] = addr
        if self.down:
            c["rtp_dropped" if is_rtp(data) else "other_dropped"] += 1
            return
        dest = self.peer[1 - side]
        if dest is None:
            c["no_peer"] += 1
            return
        out = self.transports[1 - side]
        imp = self.impair[DIRECTIONS[side]]
        if not is_rtp(data):
            c["other"] += 1
            out.sendto(data, dest)
            return
        delay = imp.decide(len(data), self.loop.time()) if imp else 0.0
        if delay is None:
            c["rtp_dropped"] += 1
            return
        c["rtp"] += 1
        if delay > 0:
            self.loop.call_later(delay, out.sendto, data, dest)
        else:
            out.sendto(data, dest)

    def snapshot(self) -> dict:
        return {d: dict(v) for d, v in self.counts.items()}

    def close(self) -> None:
        """Both ports gone: packets to them go nowhere."""
        for t in self.transports:
            t.close()


class Relay:
    """The links' event loop, in a process of its own.

    The bench and the tests drive Playwright's sync API and score speech in their own
    process: a relay thread there waited for the GIL while PESQ ran (45-68 ms at every
    cell's scoring, 10-15 ms while a recording was pulled), and its late packets moved the
    server's and the browsers' jitter buffers for the next cell. Commands go to the child
    as pickled frames on its stdin, answers come back on its stdout (`_serve`)."""

    def __init__(self) -> None:
        root = Path(__file__).resolve().parents[2]
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.support.udp_relay"], cwd=root,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.lock = threading.Lock()
        self.links: list[RelayLink] = []

    def _call(self, *cmd):
        with self.lock:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the relay's process has ended ({self.proc.returncode})")
            _write(self.proc.stdin, cmd)
            ok, value = _read(self.proc.stdout)
        if not ok:
            raise RuntimeError(f"the relay refused {cmd[0]}: {value}")
        return value

    def link(self) -> RelayLink:
        index, ports = self._call("link")
        link = RelayLink(index, ports)
        self.links.append(link)
        return link

    def set(self, link: RelayLink, direction: str, imp: Impairment | None) -> None:
        """`imp` goes to the relay's process as it is now (a copy: set its blackout
        with `blackout`)."""
        self._call("set", link.index, direction, imp)

    def blackout(self, link: RelayLink, direction: str,
                 window: tuple[float, float] | None) -> None:
        """Drop `direction`'s RTP over `window` ([start, end) on time.monotonic's clock)."""
        self._call("blackout", link.index, direction, window)

    def set_down(self, link: RelayLink, down: bool) -> None:
        self._call("down", link.index, down)

    def close_link(self, link: RelayLink) -> None:
        """The link's ports are gone (the old network): packets to them go nowhere."""
        self._call("close_link", link.index)

    def counts(self, link: RelayLink) -> dict:
        return self._call("counts", link.index)

    def close(self) -> None:
        if self.proc.poll() is None:
            with contextlib.suppress(OSError, RuntimeError, EOFError):
                self._call("quit")
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        for f in (self.proc.stdin, self.proc.stdout):
            with contextlib.suppress(OSError):
                f.close()


@dataclass
class RelayLink:
    """The parent's handle on a link of the relay's process: its two ports."""
    index: int
    ports: list[int]


def _write(f, obj) -> None:
    data = pickle.dumps(obj)
    f.write(struct.pack("!I", len(data)) + data)
    f.flush()


def _read(f):
    head = f.read(4)
    if len(head) < 4:
        raise EOFError("the relay's pipe closed")
    (n,) = struct.unpack("!I", head)
    return pickle.loads(f.read(n))


def _serve() -> None:
    """The relay's process: the links on an asyncio loop, commands read by a thread."""
    loop = asyncio.new_event_loop()
    links: list[Link] = []
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer

    async def make() -> Link:
        link = Link(loop)
        for side in (0, 1):
            t, _ = await loop.create_datagram_endpoint(
                lambda side=side: _End(link, side), local_addr=("127.0.0.1", 0))
            link.transports.append(t)
            link.ports.append(t.get_extra_info("sockname")[1])
        links.append(link)
        return link

    async def run(cmd):
        op, *args = cmd
        if op == "link":
            link = await make()
            return len(links) - 1, list(link.ports)
        if op == "quit":
            for link in links:
                link.close()
            loop.call_soon(loop.stop)
            return None
        link = links[args[0]]
        if op == "set":
            link.impair[args[1]] = args[2]
        elif op == "blackout":
            if link.impair[args[1]] is not None:
                link.impair[args[1]].blackout = args[2]
        elif op == "down":
            link.down = args[1]
        elif op == "close_link":
            link.close()
        elif op == "counts":
            return link.snapshot()
        else:
            raise ValueError(f"unknown command {op!r}")
        return None

    def commands() -> None:
        while True:
            try:
                cmd = _read(stdin)
            except EOFError:  # the parent is gone: so is the relay
                loop.call_soon_threadsafe(loop.stop)
                return
            try:
                answer = (True, asyncio.run_coroutine_threadsafe(run(cmd), loop).result(10))
            except Exception as e:  # noqa: BLE001 - said to the parent, which raises it
                answer = (False, f"{type(e).__name__}: {e}")
            _write(stdout, answer)
            if cmd[0] == "quit":
                return

    threading.Thread(target=commands, daemon=True, name="relay-commands").start()
    loop.run_forever()
    loop.close()


def counts_delta(c0: dict, c1: dict) -> dict:
    return {d: {k: c1[d][k] - c0[d][k] for k in c1[d]} for d in c1}


def use(page, link: RelayLink) -> None:
    """The page's next negotiation goes through `link` (its current one is left as is)."""
    page.evaluate("(p) => { window.__relayPorts = p; }", link.ports)


# Every candidate a page gives or takes becomes one loopback candidate at a relay port,
# read from window.__relayPorts ([send, face]) when the description is read or applied.
# Every RTCPeerConnection made is kept in window.__pcs (the newest last).
# `one(sdp, port)`: every m-section's candidates become one loopback candidate at `port`
# (the page hooks here and bench/voice_quality.py's RELAY_HOOK share it)
ONE_CANDIDATE = """  const one = (sdp, port) => {
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
"""

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
""" + ONE_CANDIDATE + """  const P = Native.prototype;
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


def page_hook(link: RelayLink) -> str:
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


if __name__ == "__main__":
    _serve()
