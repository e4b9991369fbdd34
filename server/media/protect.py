"""The listener's side of a lossy link: what each listener's receiver reports say, and
redundant audio (RED, RFC 2198) for the listeners who lose packets.

The mix toward a listener is CELT, which has no in-band FEC; and the encode is shared
by every listener of the same mix, so it cannot be tuned to one listener's link. RED
protects per listener without a second encode: each packet also carries the previous
one or two payloads the listener was sent, so a lost packet is rebuilt exactly (not
approximated, as FEC and concealment do) by the browser's NetEq from the next one.
Chromium and Safari offer `red/48000/2` (its fmtp naming Opus's payload type); the
answer accepts it after Opus (so the browser still sends plain Opus to the server),
and the server then sends RED to that listener only while its link needs it:

- Each listener's RTCP receiver reports (every ~5 s from a browser) are read as they
  come (`LinkReport.note`): the fraction lost since the last report, the cumulative
  loss and the interarrival jitter.
- `LinkReport.distance` is how many earlier payloads each packet carries: 1 from the
  start (until the link has shown itself clean: a listener on a lossy Wi-Fi is
  protected from its first word), 2 once a report shows `HEAVY` loss or more, back
  down one step after `CLEAN_REPORTS` reports in a row without loss, 0 (plain Opus,
  no extra bytes) on a clean link.

Redundancy repeats only packets already sent to that same listener: it cannot carry
a voice into a mix it is not routed to.
"""

from __future__ import annotations

import logging
import os
import re
import struct
from collections import deque

log = logging.getLogger(__name__)

__all__ = ["LinkReport", "RedPacker", "offered_red", "answer_with_red", "watch_reports"]

HEAVY = 0.05  # fraction lost in a report from which two earlier payloads ride along
CLEAN_REPORTS = 2  # reports in a row without loss before one step less redundancy
MAX_DISTANCE = 2
MAX_BLOCK = 1023  # bytes: RED's 10-bit block length
MAX_OFFSET = 0x3FFF  # RTP time units: RED's 14-bit timestamp offset

_RTPMAP = re.compile(r"a=rtpmap:(\d+) ([\w.-]+)/(\d+)(/\d+)?")
_FMTP = re.compile(r"a=fmtp:(\d+) (.*)")


RED_ENV = "SUSSURRO_RED"  # "0": never accept RED (plain Opus to every listener)


def offered_red(offer: str) -> tuple[int, str] | None:
    """(payload type, fmtp) of `red/48000/2` in the offer's audio, or None (none offered, or
    `SUSSURRO_RED=0`)."""
    if os.environ.get(RED_ENV, "1").strip() == "0":
        return None
    lines = offer.replace("\r\n", "\n").split("\n")
    for ln in lines:
        m = _RTPMAP.fullmatch(ln.strip())
        if m and m.group(2).lower() == "red" and m.group(3) == "48000":
            pt = m.group(1)
            fmtp = next((f.group(2) for f in map(_FMTP.fullmatch, (x.strip() for x in lines))
                         if f and f.group(1) == pt), "")
            return int(pt), fmtp
    return None


def answer_with_red(answer: str, red: tuple[int, str] | None) -> tuple[str, int | None]:
    """The answer with `red` (from `offered_red`) accepted after Opus on the audio line
    (the browser keeps sending plain Opus, the server may send RED); and Opus's payload
    type in the answer, or None where nothing was added."""
    if red is None:
        return answer, None
    pt, _ = red
    lines = answer.split("\r\n")
    opus = next((int(m.group(1)) for m in map(_RTPMAP.fullmatch, lines)
                 if m and m.group(2).lower() == "opus"), None)
    if opus is None or any(ln.startswith(f"a=rtpmap:{pt} ") for ln in lines):
        return answer, None
    out = []
    for ln in lines:
        if ln.startswith("m=audio "):
            ln = f"{ln} {pt}"
        out.append(ln)
        if ln.startswith(f"a=rtpmap:{opus} "):
            out.append(f"a=rtpmap:{pt} red/48000/2")
            out.append(f"a=fmtp:{pt} {opus}/{opus}")
    return "\r\n".join(out), opus


class LinkReport:
    """What one listener's receiver reports say of the server's stream to it."""

    __slots__ = ("fraction_lost", "packets_lost", "jitter_ms", "reports", "distance", "_clean",
                 "lossy_reports")

    def __init__(self) -> None:
        self.fraction_lost = 0.0  # since the report before
        self.packets_lost = 0  # since the stream began
        self.jitter_ms = 0.0
        self.reports = 0
        self.lossy_reports = 0
        self.distance = 1  # earlier payloads each packet carries (see the module)
        self._clean = 0

    def note(self, fraction_lost: int, packets_lost: int, jitter: int) -> None:
        """One report block about the server's stream (RFC 3550 units: fraction /256,
        jitter in RTP time at 48 kHz)."""
        self.reports += 1
        self.fraction_lost = fraction_lost / 256
        self.packets_lost = packets_lost
        self.jitter_ms = jitter / 48.0
        if self.fraction_lost > 0:
            self.lossy_reports += 1
            self._clean = 0
            self.distance = max(self.distance, MAX_DISTANCE if self.fraction_lost >= HEAVY else 1)
        else:
            self._clean += 1
            if self._clean >= CLEAN_REPORTS and self.distance:
                self.distance -= 1
                self._clean = 0

    def figures(self) -> dict:
        return {"fraction_lost": round(self.fraction_lost, 4), "packets_lost": self.packets_lost,
                "jitter_ms": round(self.jitter_ms, 1), "reports": self.reports,
                "red": self.distance}


class RedPacker:
    """RED payloads (RFC 2198) of one listener's stream: each primary Opus payload after
    the `distance` last ones sent (those whose block fits RED's fields)."""

    __slots__ = ("pt", "opus_pt", "_sent", "packed")

    def __init__(self, pt: int, opus_pt: int) -> None:
        self.pt = pt
        self.opus_pt = opus_pt
        self._sent: deque[tuple[bytes, int]] = deque(maxlen=MAX_DISTANCE)  # (payload, tick)
        self.packed = 0

    def pack(self, payload: bytes, tick: int, distance: int) -> bytes | None:
        """The RED payload carrying `payload` (sent at `tick`) and up to `distance` earlier
        ones; None with `distance` 0 (send `payload` as plain Opus). Either way
        `payload` is remembered for the packets after it."""
        blocks = []
        if distance:
            for old, at in list(self._sent)[-distance:]:
                offset = (tick - at) * 960
                if 0 < offset <= MAX_OFFSET and len(old) <= MAX_BLOCK:
                    blocks.append((old, offset))
        self._sent.append((payload, tick))
        if not distance:
            return None
        self.packed += 1
        head = b"".join(struct.pack("!BHB", 0x80 | self.opus_pt, (offset << 2) | (len(old) >> 8),
                                    len(old) & 0xFF) for old, offset in blocks)
        return head + bytes([self.opus_pt]) + b"".join(old for old, _ in blocks) + payload


def unpack(red: bytes) -> list[tuple[int, int, bytes]]:
    """(payload type, timestamp offset, payload) of each block of a RED payload, primary
    last (offset 0). ValueError if it is malformed. (The tests' reader.)"""
    heads, pos = [], 0
    while True:
        if pos >= len(red):
            raise ValueError("RED: no primary block")
        b = red[pos]
        if not b & 0x80:
            heads.append((b & 0x7F, 0, None))
            pos += 1
            break
        if pos + 4 > len(red):
            raise ValueError("RED: a block header is cut")
        word = int.from_bytes(red[pos + 1:pos + 4], "big")
        heads.append((b & 0x7F, word >> 10, word & 0x3FF))
        pos += 4
    out = []
    for pt, offset, length in heads:
        if length is None:
            out.append((pt, 0, red[pos:]))
        else:
            if pos + length > len(red):
                raise ValueError("RED: a block is cut")
            out.append((pt, offset, red[pos:pos + length]))
            pos += length
    return out


def watch_reports(sender, link: LinkReport) -> bool:
    """Have `link` note every receiver report block about `sender`'s stream, before
    aiortc's own handling. False (nothing read) if aiortc's sender is not as expected."""
    original = getattr(sender, "_handle_rtcp_packet", None)
    if original is None or not hasattr(sender, "_ssrc"):
        return False

    async def handle(packet) -> None:
        for report in getattr(packet, "reports", ()) or ():
            if report.ssrc == sender._ssrc:
                try:
                    link.note(report.fraction_lost, report.packets_lost, report.jitter)
                except Exception:  # a figure never stops aiortc's own handling
                    log.exception("receiver report not read")
        await original(packet)

    sender._handle_rtcp_packet = handle
    return True
