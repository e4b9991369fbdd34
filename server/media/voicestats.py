"""What a room's voice loop counts of its own work, and the figures /metrics shows of it.

The loop (server/media/voice.py) adds to a `VoiceFigures` as it ticks; `report`
turns the counts, the mixer's, the streams' and the peers' into the dict of
`RoomVoice.stats()` (server/edge/metrics.py names its entries).
"""

from __future__ import annotations

import statistics
from collections import deque
from typing import Any

from audio import FrameClock, RoomMixer
from server.media.rtc import MicBatch
from server.media.streams import Stream

DEPTH_EVERY = 10  # ticks between two samples of the jitter queues' depth


class VoiceFigures:
    """The voice loop's running counts (the loop writes them, `report` reads them)."""

    __slots__ = ("tick_us", "distinct", "depths", "encodes", "encode_ns", "send_ns",
                 "packets_out", "flush_ns", "mixer_distinct", "late", "phase_moved",
                 "loop_starts", "withheld")

    def __init__(self) -> None:
        self.tick_us: deque[float] = deque(maxlen=250)
        self.distinct: deque[int] = deque(maxlen=250)
        self.depths: deque[float] = deque(maxlen=50)
        self.encodes = 0  # Opus encodes actually run (silence reuse excluded)
        self.encode_ns = 0  # their CPU time (the thread's clock)
        self.send_ns = 0  # the tick's packets to the listeners: the same clock, encodes not
        self.packets_out = 0
        self.flush_ns = 0  # the held mic packets' decodes and deliveries, each tick
        self.mixer_distinct = 0
        self.late = 0
        self.phase_moved = 0.0  # ticks the grid moved earlier, in all
        self.loop_starts = 0
        self.withheld = 0  # ticks not run because the room may not send (cluster mode)

    def sending(self, may: bool) -> bool:
        """`may` (the room may send this tick), counting the ticks withheld."""
        if not may:
            self.withheld += 1
        return may

    def sample_depth(self, mixer: RoomMixer) -> None:
        """One sample of the frames waiting in the talking speakers' jitter queues."""
        st = mixer.stats()
        active = [p for p, on in st.get("active", {}).items() if on]
        if active:
            depth = st.get("depth", {})
            self.depths.append(sum(depth.get(p, 0.0) for p in active) / len(active))

    def report(self, *, peers: dict[str, Any], ticks: int, mixer: RoomMixer,
               streams: list[Stream], mic: MicBatch, clock: FrameClock | None,
               loop_running: bool) -> dict:
        """Figures for /metrics: peers, tick cost, underruns, overflows, distinct mixes.

        `peers`: the peers' own figures (`PeerSet.figures`), each placed where /metrics
        has always listed it."""
        peers = dict(peers)
        mstats = mixer.stats()
        underruns = mstats.get("underruns", {})
        overflows = mstats.get("overflows", {})
        tick_us = list(self.tick_us)
        depths = list(self.depths)
        distinct = self.distinct
        return {
            "peers": peers.pop("peers"),
            "ticks": ticks,
            "tick_us": {
                "last": round(tick_us[-1], 1) if tick_us else None,
                "median": round(statistics.median(tick_us), 1) if tick_us else None,
                "max": round(max(tick_us), 1) if tick_us else None,
            },
            "underruns": sum(underruns.values()) if isinstance(underruns, dict) else underruns,
            "overflows": sum(overflows.values()) if isinstance(overflows, dict) else overflows,
            "distinct_mixes": {
                "last": distinct[-1] if distinct else 0,
                "mean": round(sum(distinct) / len(distinct), 2) if distinct else 0,
            },
            "mixer_distinct": self.mixer_distinct,
            # frames waiting in talking speakers' jitter queues (20 ms each), sampled
            # every DEPTH_EVERY ticks over the last ~10 s: the mixer's share of latency
            "jitter_depth_mean": round(sum(depths) / len(depths), 2) if depths else 0.0,
            "encoders": len(streams),
            "stereo_encoders": sum(1 for st in streams if st.channels == 2),
            "encodes": self.encodes,
            # CPU time in the Opus codec (the event loop thread's clock): what a
            # voice costs before any packet, mixing or Python (bench/ROOM.md, "floor")
            "opus_encode_cpu_s": round(self.encode_ns / 1e9, 4),
            # and in sending the encoded packets (header, SRTP, sendto: the kernel's part
            # too), with the Python around them (bench/ROOM.md, "compiled sender")
            "send_cpu_s": round(self.send_ns / 1e9, 4),
            "packets_out": self.packets_out,
            "decodes": mic.decodes,
            # the mics' lost and reordered packets (server/media/recovery.py): frames
            # rebuilt from the next packet's FEC, concealed by libopus, packets put back
            # in order, and packets too late to be played
            **{f"mic_{name}": n for name, n in mic.recovery_counts().items()
               if name in ("recovered", "concealed", "reordered", "late")},
            "opus_decode_cpu_s": round(mic.decode_ns / 1e9, 4),
            # the mic packets' other costs (bench/ROOM.md, "compiled sender"): from the
            # socket to the batch, and the batch's flush at each tick (the decodes above
            # included)
            "mic_in_cpu_s": peers.pop("mic_in_cpu_s"),
            "mic_in_packets": peers.pop("mic_in_packets"),
            "mic_flush_cpu_s": round(self.flush_ns / 1e9, 4),
            "late_ticks": self.late,
            # how far the tick grid moved earlier to meet the talkers' frames (ticks)
            "phase_moved": round(self.phase_moved, 3),
            # the talkers' worst frames' wait for their tick now (ticks; None: nobody)
            "playout_slack": _rounded(mixer.playout_slack()),
            "missed_ticks": clock.missed if clock is not None else 0,
            "refused_offers": peers.pop("refused_offers"),
            "loop_running": loop_running,
            "loop_starts": self.loop_starts,
            # ticks skipped because this node could not vouch for its claim on the room
            # (cluster mode: it slept past its claims, or the room was found lost)
            "withheld_ticks": self.withheld,
            **peers,  # what the peers sent and took in: drops, compiled paths, frames
        }


def _rounded(x: float | None) -> float | None:
    return None if x is None else round(x, 3)
