"""SQLite persistence and restarts of the real server process."""

from __future__ import annotations

import asyncio
import hashlib
import json
import pathlib
import time

import pytest

from client.protocol_client import Client
from tests.server.roomkit import (
    by_id,
    close_all,
    db_rows,
    fresh_picture,
    next_clue,
    play_all,
    seated,
    started,
)
from tests.support.server_proc import ServerProc


async def test_tokens_are_stored_only_as_their_sha256(shared_server):
    server = shared_server
    clients = await seated(server, 3, connect=False)
    raw = open(server.db, "rb").read() + open(server.db + "-wal", "rb").read()
    for c in clients:
        assert c.token.encode() not in raw
    rows = dict(db_rows(server.db, "SELECT id, token_hash FROM players WHERE room = ?",
                        clients[0].code))
    for c in clients:
        assert rows[c.player] == hashlib.sha256(c.token.encode()).hexdigest()


async def test_an_action_is_committed_before_its_effect_is_seen(shared_server):
    server = shared_server
    clients = await started(server, 3)
    try:
        ids = by_id(clients)
        view = clients[0].view
        turn = ids[view["turn"]]
        mark = turn.mark()
        await turn.act({"type": "clue", "text": "zorp"})
        await turn.wait_for(lambda m: m["type"] == "view" and m["view"]["clues"], since=mark)
        # The instant the effect is visible, the log row is readable from another process.
        rows = db_rows(server.db, "SELECT seq, player, action FROM actions WHERE room = ?",
                       turn.code)
        assert rows == [(0, turn.player, json.dumps({"type": "clue", "text": "zorp"},
                                                     separators=(",", ":"), sort_keys=True))]
        games = db_rows(server.db, "SELECT n, seed, ended_at FROM games WHERE room = ?",
                        turn.code)
        assert len(games) == 1 and games[0][0] == 1 and games[0][2] is None
        # A refused action is not logged.
        await turn.act({"type": "clue", "text": "again"})
        await turn.wait_for(lambda m: m["type"] == "error")
        assert len(db_rows(server.db, "SELECT 1 FROM actions WHERE room = ?", turn.code)) == 1
    finally:
        await close_all(clients)


async def _reconnect(server, clients):
    fresh = [Client(server.base_url, c.code, c.player, c.token) for c in clients]
    for c in fresh:
        await c.connect()
    return fresh


@pytest.mark.slow
@pytest.mark.parametrize("crash", [False, True], ids=["sigterm", "sigkill"])
async def test_a_game_survives_a_restart_and_is_finished_after_it(server, crash):
    clients = await started(server, 4)
    # Play a few clues so the log is not empty.
    for _ in range(2):
        await next_clue(clients)
    pictures = {c.player: await fresh_picture(c) for c in clients}
    await close_all(clients)
    server.restart(crash=crash)
    fresh = await _reconnect(server, clients)
    try:
        for c in fresh:
            view, room = await fresh_picture(c)
            before_view, before_room = pictures[c.player]
            assert view == before_view  # the replayed game is the same game
            assert room["host"] == before_room["host"] and room["phase"] == "playing"
            assert [p["id"] for p in room["players"]] == [p["id"] for p in before_room["players"]]
        finals = await play_all(fresh, seed=3)
        assert finals[0]["phase"] == "over" and finals[0]["result"]["winners"]
        ended = db_rows(server.db, "SELECT ended_at, result FROM games WHERE room = ?",
                        fresh[0].code)
        assert ended[0][0] is not None and json.loads(ended[0][1])["winners"]
        if not crash:
            # A finished game survives a restart too: the same final view, the same wins.
            final_room = await fresh[0].wait_for(
                lambda m: m["type"] == "room" and m["phase"] == "over")
            await close_all(fresh)
            server.restart()
            fresh = await _reconnect(server, clients)
            view, room = await fresh_picture(fresh[0])
            assert view == finals[0] and room["phase"] == "over"
            assert room["players"] == [{**p, "online": True} for p in final_room["players"]]
    finally:
        await close_all(fresh)


@pytest.mark.slow
async def test_deadlines_that_pass_while_the_server_is_down_count_on_restart(server):
    # No moment to read one's card: the deadline under test is the first clue's.
    clients = await started(server, 3, options={"timers": {"clue": 5}, "reading_time": 0})
    view = clients[0].view
    first = view["turn"]
    await close_all(clients)
    server.stop()
    while time.time() < view["deadline"] + 0.2:  # the server is down when the turn ends
        await asyncio.sleep(0.1)
    server.start()
    fresh = await _reconnect(server, clients)
    try:
        after, _ = await fresh_picture(fresh[0])
        assert after["clues"][0] == {"round": 1, "player": first, "text": "", "skipped": True,
                                    "spoken": False}
        # On a slow machine later turns may have timed out too; each one is a skip, in order.
        skipped = after["clues"]
        assert [c["player"] for c in skipped] == view["order"][:len(skipped)]
        assert all(c["skipped"] for c in skipped)
        if after["phase"] == "clues":
            assert after["turn"] == view["order"][len(skipped)]
    finally:
        await close_all(fresh)


@pytest.mark.slow
async def test_a_lobby_survives_a_restart_with_its_host_settings_and_kicks(server):
    clients = await seated(server, 4)
    host = clients[0]
    await host.send("settings", options={"powers": ["muto"], "lang": "fr"})
    await host.send("kick", player=clients[3].player)
    await host.send("pass_host", player=clients[1].player)
    room = await host.wait_for(lambda m: m["type"] == "room" and m["host"] == clients[1].player)
    # SIGTERM: a graceful stop (uvicorn then re-raises the signal: exit -15); connected
    # sockets are told "restarting" (1012) and the database is checkpointed and closed.
    assert server.stop() in (0, -15)
    for c in clients[:3]:
        assert await c.wait_closed() == 1012
    wal = pathlib.Path(server.db + "-wal")
    assert not wal.exists() or wal.stat().st_size == 0
    await close_all(clients)
    server.start()
    fresh = await _reconnect(server, clients[:3])
    try:
        after = fresh[0].room
        assert after["host"] == room["host"] and after["settings"] == room["settings"]
        assert [p["id"] for p in after["players"]] == [p["id"] for p in room["players"]]
        kicked = Client(server.base_url, host.code, clients[3].player, clients[3].token)
        with pytest.raises(ConnectionError):
            await kicked.connect()
        assert kicked.close_code == 4003
    finally:
        await close_all(fresh)


async def test_seat_tokens_never_reach_the_server_log(tmp_path):
    with ServerProc(tmp_path / "log.db", log_level="info") as srv:
        clients = await seated(srv, 2)
        await close_all(clients)
        log = srv.log_path.read_text()
    assert "WebSocket /ws?token=[redacted]" in log
    for c in clients:
        assert c.token not in log


async def test_the_dealt_word_pair_is_stored_with_the_game(shared_server):
    """A restart replays the stored words, not a fresh draw from the word files."""
    server = shared_server
    clients = await started(server, 3)
    try:
        rows = db_rows(server.db, "SELECT pair FROM games WHERE room = ?", clients[0].code)
        a, b, _category = json.loads(rows[0][0])
        words = {c.view["me"]["word"] for c in clients} - {None}
        assert words and words <= {a, b}
    finally:
        await close_all(clients)
