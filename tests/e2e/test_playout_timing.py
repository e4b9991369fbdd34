"""Issue 15: each talker is played as early as their own arrival jitter allows, and the
room's tick grid moves to come right after the talkers' frames. Real WebRTC, real Opus,
the server's own voice loop in process."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

from client.rtc_peer import Silence, Tone
from server.media.voice import PHASE_KEEP
from tests.e2e.voice_room import levels, open_room

pytestmark = [pytest.mark.slow, pytest.mark.timeout(150)]

# How long the grid may take to meet the talker's frames. On a quiet machine it does
# within a second or two; on a loaded one (issue 29 item 15: load ~7 on 2 cores) the
# server's loop stalls, the measured jitter swells, the slack is negative most of the
# time (the grid holds still) and the talker's queue runs dry now and then (no slack
# while it does not play): the converged moments come rarely, not never.
CONVERGE_S = 60.0


async def test_the_tick_comes_right_after_the_talker_frames_and_the_voice_still_plays():
    room = await open_room({"a": Tone(700, 0.3), "b": Silence()})
    try:
        voice = room.voice

        def talker_timed() -> bool:
            q = voice.mixer._sources.queues.get("a")
            return q is not None and q.jitter is not None and q.slack is not None

        # Every tick's slack, right after the voice loop aligned its grid: a sample every
        # 0.5 s could miss every converged moment on a loaded machine (issue 29 item 15:
        # `slack` None after 20 s), a check at each tick does not.
        align = voice._align_phase
        converged = asyncio.Event()
        seen: list[float | None] = []

        def align_and_check() -> None:
            align()
            slack = voice.mixer.playout_slack()
            if not converged.is_set():
                seen.append(slack)
                # A negative slack is a moment, not convergence: a stall of a loaded
                # machine made the latest delays longer than the playout allows for;
                # the grid holds still until the stall's segments age out of the spread.
                if slack is not None and 0 <= slack <= PHASE_KEEP + 0.02 and talker_timed():
                    converged.set()

        voice._align_phase = align_and_check
        try:
            await asyncio.wait_for(converged.wait(), CONVERGE_S)
        except TimeoutError:
            pass
        # Converged: the talker's worst frames (measured jitter and margin included)
        # wait at most ~1.4 ms for their tick, where a fixed grid leaves them anywhere
        # in 0-20 ms (uniformly, one run to the next).
        timed = [s for s in seen if s is not None]
        assert converged.is_set(), (len(seen), len(timed), min(timed, default=None),
                                    max(timed, default=None))
        # Still heard whole: the tone at its level in b's mix, none in a's own.
        rec = await room.listen(2.0)
        got = levels(rec, 700)
        assert got["b"] > -16 and got["a"] < -60, got
    finally:
        await room.close()


async def test_without_rtp_times_the_queue_keeps_its_fixed_cushion():
    """The fallback: a mic path that gives no RTP time (aiortc's own reader) plays with
    the two-frame start, still heard, and the grid does not move."""
    room = await open_room({"b": Silence()})
    try:
        voice = room.voice
        push = voice.mixer.push
        voice.mixer.push = lambda pid, pcm, *timing: push(pid, pcm)  # drop the timing
        # ... and the late packets' timing: such a path has no RTP time for them either (a
        # loaded fresh clone's run had a late packet's delay set the queue's jitter here)
        voice.mixer.note = lambda *late: None
        await room.join("a", Tone(700, 0.3))
        await asyncio.sleep(2.0)
        st = voice.stats()
        assert st["playout_slack"] is None and st["phase_moved"] == 0
        assert voice.mixer._sources.queues["a"].jitter is None
        rec = await room.listen(1.5)
        assert levels(rec, 700)["b"] > -16
        assert np.isfinite(levels(rec, 700)["a"])
    finally:
        await room.close()
