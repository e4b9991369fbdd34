"""Cluster mode end to end (issue 12): three nodes and one Redis on loopback, real bots
with real WebRTC voice; a node killed mid-game, a node drained, a node paused past its
claim (split brain). Every process is killed at teardown; every wait has a timeout.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import Counter

import pytest

from client.rtc_peer import Tone
from tests.e2e.cluster_bots import (
    Ledger,
    cluster_room,
    drive,
    settle,
    silence_around,
    wait_reconnected,
)
from tests.e2e.voice_room import TONES, levels, record_all
from tests.support.cluster_proc import ClusterProc

# One xdist worker runs these one after another: several voice-heavy clusters at once
# would measure the machine, not the cluster.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(240), pytest.mark.xdist_group("cluster")]
# The tests that check voice after a failover (three nodes, and every moved bot
# renegotiating at once with the node that takes the room) run in the solo stage, with the
# machine to themselves: beside another heavy test on a slow 2-core machine the new node's
# voice was starved for 30 s (all peers connected, few frames), which proves nothing
# about the cluster.
VOICE_AFTER_FAILOVER = pytest.mark.solo

PRESENT = -30.0


def _log(cl: ClusterProc, code: str, n: int = 1) -> list[dict]:
    return [json.loads(x) for x in cl.redis.cli("LRANGE", f"sussurro:room:{code}:log:{n}",
                                                "0", "-1")]


def _assert_log_is_what_the_bots_did(cl: ClusterProc, room, ledger: Ledger) -> None:
    """Issue 12: 'each game's action log equals what the bots did' (per player, in order)."""
    log = _log(cl, room[0].client.code)
    for b in room:
        logged = [e["action"] for e in log if e["player"] == b.pid]
        assert logged == ledger.accepted(b), (room[0].client.code, b.pid)
    assert [e["seq"] for e in log] == list(range(len(log)))


# After a failover each bot's voice is negotiated again with the room's new node, five or
# six peers at once on a node that has just loaded the room: on a loaded machine the last
# of them is heard a few seconds after the sockets are back (the silence is what
# silence_around reports). Voice must come back within this many seconds.
AFTER_FAILOVER = 30.0


def _voice_state(b) -> dict:
    """What a bot's voice is doing, for a failure's message."""
    pc = b.voice.pc if b.voice is not None else None
    return {"frames": len(b.recorder.arrivals), "restarts": b.voice_restarts,
            "error": b.voice_error, "reconnects": b.client.reconnects,
            "pc": pc.connectionState if pc is not None else None}


async def _hear_each_other(room, tones, seconds: float = 0.5, within: float = 3.0) -> None:
    """Every bot hears every other one, in one window of `seconds` tried again until
    `within` seconds have passed (a loaded machine may starve a window, as
    tests/e2e/bots.listen allows for too)."""
    end = time.monotonic() + within
    attempt = 0
    while True:
        try:
            rec = await record_all({b.pid: b for b in room}, seconds,
                                   settle=0.6 if not attempt else 0.1,
                                   timeout=max(2.0, end - time.monotonic()))
        except AssertionError as exc:  # a bot received too little audio in the window
            missing = [str(exc)]
        else:
            missing = [(b.pid, hz, levels(rec, hz)) for b, hz in zip(room, tones, strict=True)
                       if not all(levels(rec, hz)[o.pid] > PRESENT for o in room if o is not b)]
            if not missing:
                return
        attempt += 1
        if time.monotonic() >= end:
            raise AssertionError((missing, {b.pid: _voice_state(b) for b in room}))


async def _close(rooms) -> None:
    await asyncio.gather(*(b.close() for room in rooms for b in room), return_exceptions=True)


@VOICE_AFTER_FAILOVER
async def test_sigkill_mid_game_rooms_continue_on_other_nodes_with_voice_and_log(tmp_path):
    with ClusterProc(tmp_path, nodes=3) as cl:
        tones = TONES[1:4]
        rooms = []
        try:
            for i in range(6):  # created through each node in turn; placement decides
                rooms.append(await cluster_room(cl.nodes[i % 3].base_url,
                                                [Tone(t) for t in tones]))
            owners = {r[0].client.code: cl.owner_of(r[0].client.code) for r in rooms}
            spread = Counter(owners.values())
            assert set(spread) == {"node1", "node2", "node3"}, spread  # spread over the three
            status = await asyncio.to_thread(cl.status)
            assert {n["id"]: len(n["claims"]) for n in status["nodes"]} == dict(spread)
            victim = owners[rooms[0][0].client.code]
            moved = [r for r in rooms if owners[r[0].client.code] == victim]
            # The victim's rooms talk (voice); the others play by text only.
            await asyncio.gather(*(b.start_voice() for r in moved for b in r))
            ledger = Ledger()
            for r in rooms:
                await r[0].client.send("start")
            await drive(rooms, ledger, lambda v: v["phase"] == "debate", skip=("ready", "vote"))
            await settle(rooms)
            before = {r[0].client.code: r[0].client.view for r in moved}
            reconnects = {b.pid: b.client.reconnects for r in moved for b in r}

            await asyncio.to_thread(cl.node_by_id(victim).kill)      # SIGKILL mid-game
            killed_at = time.monotonic()

            for r in moved:
                await wait_reconnected(r, {b.pid: reconnects[b.pid] for b in r})
            for r in moved:
                code = r[0].client.code
                new_owner = cl.owner_of(code)
                assert new_owner not in (None, victim)
                view = r[0].client.view
                assert view["phase"] == "debate"                     # the game where it was
                assert view["clues"] == before[code]["clues"]
                assert r[0].client.node == cl.node_by_id(new_owner).base_url
                await _hear_each_other(r, tones, within=AFTER_FAILOVER)  # voice is back
            silence = [silence_around(b, killed_at) for r in moved for b in r]
            print(f"\nfailover: {len(moved)} room(s) moved, voice back after "
                  f"{[round(s, 2) if s else None for s in silence]} s")

            await drive(rooms, ledger, lambda v: v["phase"] == "over", timeout=120)
            for r in rooms:
                assert r[0].client.view["result"]["winners"]
                _assert_log_is_what_the_bots_did(cl, r, ledger)
        finally:
            await _close(rooms)


@VOICE_AFTER_FAILOVER
async def test_sigterm_drains_a_node_its_rooms_move_and_nothing_is_lost(tmp_path):
    with ClusterProc(tmp_path, nodes=2) as cl:
        tones = TONES[1:4]
        rooms = []
        try:
            for _ in range(2):
                rooms.append(await cluster_room(cl.nodes[0].base_url, [Tone(t) for t in tones]))
            owners = {r[0].client.code: cl.owner_of(r[0].client.code) for r in rooms}
            victim = owners[rooms[0][0].client.code]
            moved = [r for r in rooms if owners[r[0].client.code] == victim]
            await asyncio.gather(*(b.start_voice() for r in moved for b in r))
            ledger = Ledger()
            for r in rooms:
                await r[0].client.send("start")
            await drive(rooms, ledger, lambda v: v["phase"] == "debate", skip=("ready", "vote"))
            await settle(rooms)
            before = {r[0].client.code: r[0].client.view for r in moved}
            reconnects = {b.pid: b.client.reconnects for r in moved for b in r}
            node = cl.node_by_id(victim)
            t0 = time.monotonic()
            code = await asyncio.to_thread(node.stop, 30)            # SIGTERM: drain, exit
            drained = time.monotonic() - t0
            assert code is not None
            for r in moved:
                await wait_reconnected(r, {b.pid: reconnects[b.pid] for b in r})
                c = r[0].client.code
                assert cl.owner_of(c) not in (None, victim)
                assert r[0].client.view["clues"] == before[c]["clues"]
                await _hear_each_other(r, tones, within=AFTER_FAILOVER)
            print(f"\ndrain: {len(moved)} room(s) moved in {drained:.2f} s")
            await drive(rooms, ledger, lambda v: v["phase"] == "over", timeout=120)
            for r in rooms:
                _assert_log_is_what_the_bots_did(cl, r, ledger)
        finally:
            await _close(rooms)


async def test_a_paused_owner_cannot_append_to_a_room_another_node_took_over(tmp_path):
    with ClusterProc(tmp_path, nodes=2) as cl:
        rooms = []
        try:
            room = await cluster_room(cl.nodes[0].base_url, [Tone(t) for t in TONES[1:4]])
            rooms.append(room)
            code = room[0].client.code
            owner = cl.owner_of(code)
            other = "node2" if owner == "node1" else "node1"
            ledger = Ledger()
            await room[0].client.send("start")
            await drive(rooms, ledger, lambda v: v["phase"] == "debate", skip=("ready", "vote"))
            await settle(rooms)
            paused = cl.node_by_id(owner)
            # The owner freezes past its claim's expiry; the other node takes the room over
            # (its sweeper) while the bots' sockets to the paused node stay open.
            for b in room:
                b.client.follow = False
            cl.pause(paused)
            try:
                await asyncio.to_thread(cl.wait_owner, code, lambda o: o == other, 20)
                log_before = _log(cl, code)
                # An action reaches the paused node's socket (kernel buffers it) ...
                await room[1].client.send("action", action={"type": "ready"}, ref="late")
            finally:
                cl.resume(paused)
            # ... and when it wakes, its write is fenced out: nothing is appended.
            await asyncio.sleep(2.0)
            assert _log(cl, code) == log_before
            assert cl.owner_of(code) == other
            assert await room[1].client.wait_closed(10) == 4010   # sent on to the new owner
            metrics = await asyncio.to_thread(_metrics, paused.base_url)
            assert metrics.get("sussurro_cluster_rooms_lost_total", 0) >= 1
        finally:
            await _close(rooms)


def _metrics(base_url: str) -> dict[str, float]:
    import httpx

    out = {}
    for line in httpx.get(base_url + "/metrics", timeout=5).text.splitlines():
        if line and not line.startswith("#") and "{" not in line:
            name, value = line.split()
            out[name] = float(value)
    return out


@VOICE_AFTER_FAILOVER
async def test_silence_heard_when_a_node_dies_during_a_voice_heavy_debate(tmp_path,
                                                                         record_property):
    """Issue 12's second run: every bot talks through the debate; the node is killed; the
    seconds of silence each bot hears before voice returns are reported, not asserted."""
    with ClusterProc(tmp_path, nodes=2) as cl:
        tones = TONES[1:6]
        rooms = []
        try:
            room = await cluster_room(cl.nodes[0].base_url, [Tone(t) for t in tones])
            rooms.append(room)
            await asyncio.gather(*(b.start_voice() for b in room))
            ledger = Ledger()
            await room[0].client.send("start")
            await drive(rooms, ledger, lambda v: v["phase"] == "debate", skip=("ready", "vote"))
            await _hear_each_other(room, tones)                      # five voices at once
            reconnects = {b.pid: b.client.reconnects for b in room}
            killed_at = time.monotonic()
            await asyncio.to_thread(cl.node_by_id(cl.owner_of(room[0].client.code)).kill)
            await wait_reconnected(room, reconnects)
            await _hear_each_other(room, tones, within=AFTER_FAILOVER)
            silence = {b.pid: round(s, 2) if (s := silence_around(b, killed_at)) else None
                       for b in room}
            assert all(s is not None for s in silence.values())      # voice came back
            record_property("failover_silence_s", json.dumps(silence))
            print(f"\nvoice-heavy failover: silence per bot {silence} s")
        finally:
            await _close(rooms)
