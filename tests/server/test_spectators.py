"""Issue 13, a shared screen: spectator passes over HTTP and the WebSocket.

A spectator is no player: no seat, never in `players`, cannot act (every
action, whisper or setting answers `spectator` and changes nothing); a room
holds at most `max_spectators` passes; a pass survives a server restart like
a seat; a spectator gets the spectator view (`game.view(state, None)`) and
the cues the whole table hears.
"""

from __future__ import annotations

import asyncio

import httpx
import pytest

from client.protocol_client import Client, HttpError
from tests.server.roomkit import SLOW, close_all, request, seated, started
from tests.support.server_proc import ServerProc


async def _closed(client: Client, timeout: float = 5.0) -> None:
    for _ in range(int(timeout / 0.05)):
        if client.closed:
            return
        await asyncio.sleep(0.05)
    raise TimeoutError("the socket stayed open")


async def test_a_spectator_watches_without_a_seat_and_cannot_act(shared_server):
    clients = await started(shared_server, 3)
    tv = await Client.watch(shared_server.base_url, clients[0].code)
    try:
        await tv.connect()
        assert tv.player.startswith("s") and tv.welcome["player"] is None
        assert tv.welcome["spectator"] == tv.player
        # Not a player: never in the roster; counted as a screen watching.
        room = await tv.wait_for(lambda m: m["type"] == "room" and m["spectators"] == 1)
        assert tv.player not in {p["id"] for p in room["players"]}
        assert len(room["players"]) == 3
        # The spectator view: the public picture, no `me`.
        view = await tv.wait_view(lambda v: v["phase"] != "over")
        assert view["me"] is None
        turn = view["turn"]
        before = clients[0].view
        # Every message that would change something is refused with `spectator`.
        for i, (kind, fields) in enumerate([
            ("action", {"action": {"type": "clue", "text": "zorp"}}),
            ("whisper_start", {"to": turn or "p1"}),
            ("whisper_stop", {}),
            ("settings", {"options": SLOW}),
            ("start", {}), ("rematch", {}), ("kick", {"player": "p2"}),
            ("pass_host", {"player": "p2"}), ("unban", {"name": "x"}),
        ]):
            err = await request(tv, kind, f"t{i}", **fields)
            assert err["code"] == "spectator", (kind, err)
        # Nothing changed: the game still waits for the same turn, the room is the same.
        view_now, _ = clients[0].view, None
        assert view_now["turn"] == before["turn"] and view_now["clues"] == before["clues"]
        assert [p["id"] for p in clients[0].room["players"]] == ["p1", "p2", "p3"]
        # Players still play; the spectator sees the public effect.
        player = next(c for c in clients if c.player == turn)
        await player.act({"type": "clue", "text": "zorp"})
        await tv.wait_view(lambda v: any(c["text"] == "zorp" for c in v["clues"]))
    finally:
        await close_all([*clients, tv])


async def test_spectator_passes_are_limited_per_room_and_given_back(tmp_path):
    srv = ServerProc(tmp_path / "s.db", env={"SUSSURRO_MAX_SPECTATORS": "2"}).start()
    try:
        host = await Client.create(srv.base_url, "Ada")
        a = await Client.watch(srv.base_url, host.code)
        await Client.watch(srv.base_url, host.code)
        with pytest.raises(HttpError) as refused:
            await Client.watch(srv.base_url, host.code)
        assert (refused.value.status, refused.value.code) == (409, "spectators_full")
        # Not a seat either: the room still takes players.
        await Client.join(srv.base_url, host.code, "Bob")
        # A pass given back frees its place, and its token stops working.
        await a.connect()
        await a.send("leave")
        await _closed(a)
        assert a.close_code == 4004
        with pytest.raises(ConnectionError):
            await a.connect(timeout=3)
        assert a.close_code == 4001 and a.errors[-1]["code"] == "bad_token"
        c = await Client.watch(srv.base_url, host.code)
        assert c.player == "s3"  # ids are never reused
        # An unknown room answers 404 as for joins.
        async with httpx.AsyncClient(base_url=srv.base_url) as http:
            r = await http.post("/api/rooms/ZZZZZ/watch")
        assert (r.status_code, r.json()["code"]) == (404, "unknown_room")
    finally:
        srv.stop()


async def test_a_spectator_pass_survives_a_restart_mid_game(server):
    clients = await started(server, 3)
    tv = await Client.watch(server.base_url, clients[0].code)
    await tv.connect()
    before = await tv.wait_view(lambda v: v["phase"] != "over")
    await close_all([*clients, tv])
    server.restart()
    again = Client(server.base_url, tv.code, tv.player, tv.token)
    try:
        await again.connect()
        assert again.welcome["spectator"] == tv.player
        view = await again.wait_view(lambda v: v["phase"] == before["phase"])
        assert view["me"] is None and view["turn"] == before["turn"]
        err = await request(again, "action", "r1", action={"type": "clue", "text": "zorp"})
        assert err["code"] == "spectator"
    finally:
        await again.close()


async def test_a_spectator_hears_the_table_cues_but_not_a_players_own(shared_server):
    """Cues: vote_open and elimination go to the whole table, so to screens; your_turn
    is one player's, so never a screen's."""
    clients = await seated(shared_server, 3)
    host = clients[0]
    tv = await Client.watch(shared_server.base_url, host.code)
    await tv.connect()
    try:
        mark = host.mark()
        await host.send("settings", options={"powers": [], **SLOW})
        await host.wait_for(lambda m: m["type"] == "room", since=mark)
        await host.send("start")
        by = {c.player: c for c in clients}
        for _ in range(3):  # every clue of the round
            view = await host.wait_view(lambda v: v["phase"] != "clues" or v["turn"])
            if view["phase"] != "clues":
                break
            turn = view["turn"]
            await by[turn].act({"type": "clue", "text": f"zorp{turn}"})
            await host.wait_view(lambda v, t=turn: v["turn"] != t)
        # Everyone ready: the debate ends, the vote opens (a cue for the whole table).
        await host.wait_view(lambda v: v["phase"] == "debate")
        for c in clients:
            await c.act({"type": "ready"})
        await tv.wait_for(lambda m: m["type"] == "cue" and m["name"] == "vote_open")
        cues = [m["name"] for m in tv.messages if m["type"] == "cue"]
        player_cues = [m["name"] for c in clients for m in c.messages if m["type"] == "cue"]
        assert "your_turn" in player_cues
        assert "your_turn" not in cues
    finally:
        await close_all([*clients, tv])
