"""The mixer's sources each tick: every speaker's frame and every cue playing, in one window.

Per tick: one frame per speaker from their jitter queue (silence when there
is none; a queue that raises is started afresh, so one speaker's fault does
not cost every listener the frame), through their effect (audio/effects.py),
then the cues playing; each source delayed by the limiter's 1 ms look-ahead,
giving a (sources x FRAME+LOOKAHEAD) window. The window is kept from tick to
tick and only the rows that change are written: a silent speaker (the shared
silent frame of their queue, no effect tail, no tail of the last frame in
the look-ahead) leaves their row at zero and is not "sounding", so the plan
may leave their column out of this tick's grouping (audio/plan.py). The
usual room has a few talkers and many listeners, and every numpy call counts
(bench/ROOM.md).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np

from audio.effects import SpeakerEffects
from audio.format import FRAME
from audio.jitter import SILENT_FRAME, JitterQueue
from audio.limiter import LOOKAHEAD

__all__ = ["Cue", "Sources", "WINDOW"]

WINDOW = FRAME + LOOKAHEAD
log = logging.getLogger(__name__)


@dataclass
class Cue:
    """A cue playing: its samples, who hears it, and how far it has played."""

    samples: np.ndarray
    listeners: frozenset[str]
    pos: int = 0


class Sources:
    """The speakers (in mixer order: their queues and effects) and the cues playing."""

    def __init__(self, seed: int = 0):
        self.players: list[str] = []
        self.queues: dict[str, JitterQueue] = {}
        self.effects = SpeakerEffects(seed)
        self.cues: list[Cue] = []
        # One row per speaker (look-ahead, then this tick's frame; a silent speaker's
        # frame part stays zero), then the rows of the cues playing (as many as ever
        # played at once).
        self._window = np.zeros((0, WINDOW), dtype=np.float32)
        self._ahead_dirty = False  # some speaker's look-ahead part may be non-zero
        self._tail_live: list[bool] = []  # speaker -> last tick's frame was written
        self.queue_faults = 0  # speakers' queues that raised and were started afresh

    def add(self, pid: str) -> None:
        """A new speaker, last in order, silent until they push."""
        self._window = np.insert(self._window, len(self.players), 0.0, axis=0)
        self.players.append(pid)
        self.queues[pid] = JitterQueue()
        self._tail_live.append(False)

    def remove(self, pid: str) -> int:
        """Remove a speaker, their queue and their effect; their row (the order they had)."""
        row = self.players.index(pid)
        self.players.pop(row)
        del self.queues[pid]
        self._window = np.delete(self._window, row, axis=0)
        del self._tail_live[row]
        self.effects.forget(pid)
        return row

    def play(self, samples: np.ndarray, listeners: frozenset[str]) -> None:
        """Play a cue to these listeners from the next tick, to its end."""
        self.cues.append(Cue(samples, listeners))

    def drop_finished(self) -> None:
        """Forget the cues that played to their end."""
        self.cues = [c for c in self.cues if c.pos < c.samples.size]

    def read(self) -> tuple[np.ndarray, tuple[int, ...], list[float], bool]:
        """Advance 20 ms: (the window, sources x WINDOW; the sources sounding in it;
        each speaker's frame energy, before effects; whether a cue ended)."""
        n = len(self.players)
        rows_needed = n + len(self.cues)
        if self._window.shape[0] < rows_needed:
            grow = np.zeros((rows_needed - self._window.shape[0], WINDOW), dtype=np.float32)
            self._window = np.vstack([self._window, grow])
        window = self._window
        was_live = self._tail_live
        if self._ahead_dirty or any(was_live):
            # last tick's last LOOKAHEAD samples (zero for whoever was silent)
            window[:n, :LOOKAHEAD] = window[:n, FRAME:]
            self._ahead_dirty = any(was_live)
        queues = self.queues
        frames = []
        for pid in self.players:
            try:
                frames.append(queues[pid].pop())
            except Exception:
                # One speaker's queue must not cost every listener this tick's frame.
                frames.append(self._queue_failed(pid))
        live = [frame is not SILENT_FRAME for frame in frames]
        energies = [0.0] * n
        if any(live):
            # Every speaker's frame in one assignment (a silent one's row: zeros), and
            # every frame's energy (before effects) in one product of rows by themselves.
            body = window[:n, LOOKAHEAD:]
            body[...] = frames
            energies = np.matmul(body[:, None, :], body[:, :, None]).reshape(n).tolist()
            if 0.0 in energies:
                for i, energy in enumerate(energies):
                    if energy == 0.0 and live[i] and not frames[i].any():
                        frames[i] = SILENT_FRAME  # pushed digital silence (a mic without DTX)
                        live[i] = False
        elif any(was_live):
            window[:n, LOOKAHEAD:] = 0.0
        effects = self.effects.active
        if effects:
            rows = {pid: self.players.index(pid) for pid in effects}
            done = self.effects.process({pid: frames[i] for pid, i in rows.items()},
                                        {pid: energies[i] for pid, i in rows.items()})
            for pid, frame in done.items():
                i = rows[pid]
                if frame is not SILENT_FRAME:
                    window[i, LOOKAHEAD:] = frame
                    live[i] = True
        sounding = tuple(i for i in range(n) if live[i] or was_live[i])
        self._tail_live = live
        finished = False
        for j, cue in enumerate(self.cues):
            seg = cue.samples[cue.pos : cue.pos + WINDOW]
            window[n + j, : seg.size] = seg
            window[n + j, seg.size :] = 0.0
            cue.pos += FRAME
            finished |= cue.pos >= cue.samples.size
        sounding += tuple(range(n, rows_needed))
        return window[:rows_needed], sounding, energies, finished

    def _queue_failed(self, pid: str) -> np.ndarray:
        """`pid`'s queue raised in `pop`: log it, start the speaker afresh (the audio it
        held is dropped, its counters kept), and play silence for them this tick."""
        log.exception("jitter queue of speaker %s failed; started afresh", pid)
        self.queue_faults += 1
        old, new = self.queues[pid], JitterQueue()
        new.underruns, new.overflows, new.trimmed = old.underruns, old.overflows, old.trimmed
        self.queues[pid] = new
        return SILENT_FRAME

    # ------------------------------------------------------- playout timing

    def playout_slack(self) -> float | None:
        """The smallest `JitterQueue.slack` of the speakers playing with timing (ticks),
        or None if none is."""
        best = None
        for q in self.queues.values():
            s = q.slack
            if s is not None and (best is None or s < best):
                best = s
        return best

    def regrid(self, ticks: float) -> None:
        """The ticks come `ticks` periods earlier from now on: every queue's timing moves."""
        for q in self.queues.values():
            q.regrid(ticks)

    def queue_stats(self) -> dict:
        """Each speaker's queue counters, by name."""
        q, players = self.queues, self.players
        return {
            "underruns": {p: q[p].underruns for p in players},
            "overflows": {p: q[p].overflows for p in players},
            "trimmed": {p: q[p].trimmed for p in players},
            "depth": {p: q[p].depth for p in players},
            "active": {p: q[p].active for p in players},
        }
