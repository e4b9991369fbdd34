"""A Redis outage does not silence the rooms (issue 37 item 1): real nodes, a real Redis.

The voice of a room is checked at a listener: each bot talks a steady tone of
its own and records what it hears; for each 20 ms frame received, the other
bot's tone is there or not, and the longest time between two frames that carry
it is the longest silence heard.

- Redis killed (then restarted on its port from its append-only file) or stopped
  (SIGSTOP: nothing answers, calls time out) for 10 s under talking bots: the
  voice never stops (no silence over 0.2 s), the room stays on its node,
  an action meanwhile is refused `store_unavailable`, and one after is taken.
- A partition: only the owner loses Redis, the other node takes the room after
  the claim's life; the old owner keeps its clients' voice until it sees Redis
  again, then stops within a claim's life and sends them to the new owner.
- A node that slept (SIGSTOP) during an outage sends no voice when it wakes (it
  cannot know whether its rooms moved meanwhile): issue 33's guarantee holds.
"""

from __future__ import annotations

import asyncio
import time

import httpx
import numpy as np
import pytest

from client.bot import Bot
from client.rtc_peer import Tone
from tests.support.cluster_proc import ClusterProc
from tests.support.tcp_proxy import TcpProxy

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180), pytest.mark.xdist_group("cluster")]

OUTAGE = 10.0
HZ = (440.0, 660.0)
WITHHELD = "sussurro_voice_withheld_ticks"  # voice ticks a node did not send (may_send)
MISSED = "sussurro_voice_missed_ticks"      # voice ticks skipped after a stall of the node


def _tone_amplitude(frame: np.ndarray, hz: float) -> float:
    """The amplitude of the `hz` component of one received frame."""
    x = np.asarray(frame, np.float64).reshape(-1)
    t = np.arange(len(x)) / 48000.0
    return float(2.0 * abs(np.dot(x, np.exp(-2j * np.pi * hz * t))) / max(1, len(x)))


def longest_silence(bot: Bot, hz: float, start: float, end: float,
                    floor: float = 0.01) -> tuple[float, float | None]:
    """(the longest time in [start, end] with no received frame carrying tone `hz`, when
    that silence began), monotonic seconds; the window's ends count as heard."""
    rec = bot.recorder
    heard = [when for frame, when in zip(rec.frames, rec.arrivals, strict=False)
             if start <= when <= end and _tone_amplitude(frame, hz) > floor]
    points = [start, *heard, end]
    gaps = [(b - a, a) for a, b in zip(points, points[1:], strict=False)]
    worst = max(gaps)
    return worst[0], (worst[1] if worst[0] > 0 else None)


def _metric(base_url: str, name: str) -> float:
    """One figure of a node's /metrics (0 when absent: no room has a voice there)."""
    for line in httpx.get(base_url + "/metrics", timeout=10).text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    return 0.0


def _frames(bot: Bot, hz: float, start: float, end: float, floor: float = 0.01) -> float:
    """The frames carrying tone `hz` received in [start, end], as a share of the 20 ms frames
    that span holds."""
    rec = bot.recorder
    n = sum(1 for frame, when in zip(rec.frames, rec.arrivals, strict=False)
            if start <= when <= end and _tone_amplitude(frame, hz) > floor)
    return round(n / ((end - start) / 0.02), 3)


def _worst_gaps(bot: Bot, start: float, end: float, n: int = 3) -> list[tuple[float, float]]:
    """The `n` longest gaps between two received frames (any sound) in [start, end], with
    when each began relative to `start`: tells a stalled sender from a quiet one."""
    t = [x for x in bot.recorder.arrivals if start <= x <= end]
    gaps = sorted(((b - a, a - start) for a, b in zip(t, t[1:], strict=False)), reverse=True)
    return [(round(g, 3), round(at, 2)) for g, at in gaps[:n]]


async def _talking_pair(url: str) -> list[Bot]:
    """Two bots in one room (the lobby, where everyone hears everyone), each on its tone,
    each hearing the other's; they do not follow the room if it moves."""
    bots = [await Bot.create(url, "Ada", Tone(HZ[0]))]
    bots.append(await Bot.join(url, bots[0].client.code, "Bob", Tone(HZ[1])))
    for b in bots:
        await b.start_voice()
    end = time.monotonic() + 30
    while True:
        now = time.monotonic()
        if all(longest_silence(b, HZ[1 - i], now - 1.0, now)[0] < 0.2
               for i, b in enumerate(bots)):
            return bots
        assert now < end, "the bots never heard each other"
        await asyncio.sleep(0.2)


async def _change(bot: Bot, ref: str, clue: int) -> dict:
    """A room change (one timer: a new language would load its words, a stall of its
    own) sent now by the host: its answer (error or room)."""
    mark = bot.client.mark()
    try:
        await bot.client.send("settings", options={"timers": {"clue": clue}}, ref=ref)
        return await bot.client.wait_for(
            lambda m: (m["type"] == "error" and m.get("ref") == ref) or m["type"] == "room",
            20, since=mark)
    except Exception as exc:  # the socket closed (the room was unloaded): said by the test
        return {"type": "failed", "exc": repr(exc)}


@pytest.mark.solo
@pytest.mark.parametrize("how", ["kill", "stop"])
async def test_issue37_1_the_voice_goes_on_through_a_redis_outage(tmp_path, how):
    with ClusterProc(tmp_path, nodes=2, log_level="warning") as cl:
        bots = await _talking_pair(cl.nodes[0].base_url)
        try:
            code = bots[0].client.code
            owner = cl.owner_of(code)
            node = cl.node_by_id(owner)
            withheld = await asyncio.to_thread(_metric, node.base_url, WITHHELD)
            missed = await asyncio.to_thread(_metric, node.base_url, MISSED)
            calm = time.monotonic()                   # (the window starts after those reads)
            await asyncio.sleep(OUTAGE)               # the same bots with Redis up
            t0 = time.monotonic()
            if how == "kill":
                await asyncio.to_thread(cl.redis.stop)  # SIGKILL: connections refused
            else:
                cl.pause_redis()                      # SIGSTOP: nothing answers
            try:
                await asyncio.sleep(4.0)              # past the claim's life (2 s)
                answer = await _change(bots[0], "down", 40)
                await asyncio.sleep(max(0.0, t0 + OUTAGE - time.monotonic()))
            finally:
                if how == "kill":
                    await asyncio.to_thread(cl.redis.start)  # same port, same AOF
                else:
                    cl.resume_redis()
            back = time.monotonic()
            await asyncio.sleep(4.0)                  # the sweeps after the outage
            end = time.monotonic()
            withheld = await asyncio.to_thread(_metric, node.base_url, WITHHELD) - withheld
            missed = await asyncio.to_thread(_metric, node.base_url, MISSED) - missed
            # (Measured now: analysing the frames takes the bots' event loop for a while.)
            baseline = [longest_silence(b, HZ[1 - i], calm, t0 - 0.5)[0]
                        for i, b in enumerate(bots)]
            silences = [longest_silence(b, HZ[1 - i], t0 - 0.5, end)
                        for i, b in enumerate(bots)]
            print(f"\nredis {how} {back - t0:.1f}s: longest silence per listener "
                  f"{[(round(s, 3), s and at and round(at - t0, 2)) for s, at in silences]}"
                  f" (s, began at s after the outage); longest gaps between packets "
                  f"{[_worst_gaps(b, t0, end) for b in bots]}; with Redis up "
                  f"{[round(x, 3) for x in baseline]}, frames "
                  f"{[_frames(b, HZ[1 - i], t0 - 0.5, end) for i, b in enumerate(bots)]}, "
                  f"voice ticks withheld {withheld}, missed (the node stalled) {missed}")
            # The node sent every tick: not one withheld for want of a renewal (exact,
            # whatever the machine's load).
            assert withheld == 0, withheld
            # The listeners heard no silence over 0.2 s. A loaded machine starves the node
            # or the bots by itself (the ticks the node missed, stalled; the silences the
            # same bots heard with Redis up): then the bound grows by what the machine
            # alone cost, never beyond 1 s (before the fix: the whole outage, 12 s).
            noise = max(max(baseline), missed * 0.02)
            allowed = min(1.0, 0.2 + (noise if noise > 0.1 else 0.0))
            assert all(s <= allowed for s, _ in silences), (silences, baseline, missed)
            assert answer["type"] == "error" and answer["code"] == "store_unavailable", answer
            assert cl.owner_of(code) == owner         # nothing moved
            assert not any(b.client.closed for b in bots)
            after = await _change(bots[0], "after", 50)
            assert after["type"] == "room", after     # the store takes writes again
        finally:
            await asyncio.gather(*(b.close() for b in bots), return_exceptions=True)


@pytest.mark.solo
async def test_issue37_1_a_partitioned_owner_stops_within_a_claims_life_after_it_sees_so(
        tmp_path):
    proxy = TcpProxy()
    cl = ClusterProc(tmp_path, nodes=1, log_level="warning",
                     redis_urls={0: f"redis://127.0.0.1:{proxy.port}/0"})
    proxy.upstream = cl.redis.port
    with proxy, cl:
        bots = await _talking_pair(cl.nodes[0].base_url)   # on node1, the only node
        try:
            code = bots[0].client.code
            assert cl.owner_of(code) == "node1"
            other = await asyncio.to_thread(cl.add_node)   # node2 reaches Redis directly
            proxy.cut()                                    # node1 alone loses Redis
            cut = time.monotonic()
            await asyncio.to_thread(cl.wait_owner, code, lambda o: o == "node2", 30)
            taken = time.monotonic()
            await asyncio.sleep(1.0)
            kept = [longest_silence(b, HZ[1 - i], cut - 0.5, time.monotonic())[0]
                    for i, b in enumerate(bots)]
            marks = [b.client.mark() for b in bots]
            proxy.heal()                                   # node1 sees Redis again
            healed = time.monotonic()
            for b in bots:
                assert await b.client.wait_closed(15) == 4010
            last = max(b.recorder.arrivals[-1] for b in bots)
            print(f"\npartition: node2 took the room {taken - cut:.1f}s after the cut; node1's "
                  f"longest silence meanwhile {[round(k, 3) for k in kept]} s; its last voice "
                  f"packet {last - healed:.2f}s after the heal")
            # Until it saw the room taken, node1 kept its clients' voice (the trade-off).
            # Once it could see, it stopped within a claim's life and sent them on.
            assert last - healed <= cl.ttl, last - healed
            for b, mark in zip(bots, marks, strict=True):
                moved = [m for m in b.client.messages[mark:] if m["type"] == "moved"]
                assert moved and moved[0]["node"] == other.base_url, moved
            assert cl.owner_of(code) == "node2"
        finally:
            await asyncio.gather(*(b.close() for b in bots), return_exceptions=True)


async def test_issue37_1_a_node_that_slept_during_an_outage_sends_no_voice_when_it_wakes(
        tmp_path):
    with ClusterProc(tmp_path, nodes=1, log_level="warning") as cl:
        bots = [await Bot.create(cl.nodes[0].base_url, "Ada", Tone(HZ[0]), decode=False)]
        bots.append(await Bot.join(cl.nodes[0].base_url, bots[0].client.code, "Bob",
                                   Tone(HZ[1]), decode=False))
        try:
            for b in bots:
                await b.start_voice()
            for b in bots:
                await b.client.wait_for(lambda m: m["type"] == "mouths" and m["levels"], 20)
            node = cl.nodes[0]
            cl.redis.stop()                                # the outage ...
            await asyncio.sleep(3.0)                       # ... past the claim's life
            heard = [len(b.recorder.frames) for b in bots]
            await asyncio.sleep(0.5)
            assert all(len(b.recorder.frames) > n for b, n in zip(bots, heard, strict=True)), \
                "the voice stopped with the store"
            cl.pause(node)                                 # ... and the node sleeps in it
            try:
                await asyncio.sleep(2 * cl.ttl + 1.0)
                # All it sent before its pause has arrived by now.
                marks = [b.client.mark() for b in bots]
                heard = [len(b.recorder.frames) for b in bots]
            finally:
                cl.resume(node)
            for b in bots:                                 # Redis still down: it gives up
                assert await b.client.wait_closed(15) == 4010
            for b, mark, n in zip(bots, marks, heard, strict=True):
                seen = [m["type"] for m in b.client.messages[mark:]]
                assert seen == ["moved"], seen
                assert len(b.recorder.frames) == n, "voice packets from the woken node"
        finally:
            await asyncio.gather(*(b.close() for b in bots), return_exceptions=True)
