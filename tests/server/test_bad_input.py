"""Every class of bad input gets its stable error code and changes nothing."""

from __future__ import annotations

import contextlib
import json

import pytest
import websockets

from client.protocol_client import Client
from tests.server.roomkit import by_id, close_all, fresh_picture, request, seated, started
from tests.support.server_proc import ServerProc


async def _unchanged_after(client: Client, send, expected_code: str) -> dict:
    """Send something bad; its error has `expected_code` and view and room stay the same."""
    before = await fresh_picture(client)
    mark = client.mark()
    await send()
    err = await client.wait_for(lambda m: m["type"] == "error", since=mark)
    assert err["code"] == expected_code, err
    assert await fresh_picture(client) == before
    return err


async def test_malformed_oversized_unknown_and_ill_typed_frames_are_refused(shared_server):
    clients = await started(shared_server, 3)
    c = clients[1]
    try:
        await _unchanged_after(c, lambda: c.send_raw("{not json"), "bad_json")
        await _unchanged_after(c, lambda: c.send_raw(b"\xff\xfe"), "bad_json")
        await _unchanged_after(c, lambda: c.send_raw(json.dumps(
            {"type": "ping", "pad": "x" * 20000})), "too_large")
        await _unchanged_after(c, lambda: c.send("teleport"), "unknown_type")
        await _unchanged_after(c, lambda: c.send_raw("[1, 2]"), "bad_message")
        await _unchanged_after(c, lambda: c.send("kick", player=5), "bad_message")
        await _unchanged_after(c, lambda: c.send("kick"), "bad_message")
        # The action's own shape is the game core's (any engine): refused in any phase.
        await _unchanged_after(c, lambda: c.act({"type": "vote", "target": 3}), "bad_action")
        await _unchanged_after(c, lambda: c.act({"type": "vote", "target": "p1", "x": 1}),
                               "bad_action")
        await _unchanged_after(c, lambda: c.act({"type": "fly"}), "bad_action")
        await _unchanged_after(c, lambda: c.act({"type": "intoxicate", "targets": ["p1"]}),
                               "bad_action")
        # What no game takes is refused at the edge.
        await _unchanged_after(c, lambda: c.act({"type": "vote", "target": {"id": "p1"}}),
                               "bad_message")
        await _unchanged_after(c, lambda: c.act({"type": "Vote!"}), "bad_message")
        # The socket survives all of it.
        assert not c.closed
    finally:
        await close_all(clients)


async def test_out_of_phase_and_out_of_turn_actions_are_refused_by_the_game(shared_server):
    # No moment to read one's card first: `ready` would be legal in it (issue 31 item 11).
    clients = await started(shared_server, 4, {"reading_time": 0})
    try:
        view = clients[0].view
        assert view["phase"] == "clues"
        turn = view["turn"]
        others = [c for c in clients if c.player != turn]
        target = others[1].player
        await _unchanged_after(others[0], lambda: others[0].act(
            {"type": "vote", "target": target}), "wrong_phase")
        await _unchanged_after(others[0], lambda: others[0].act(
            {"type": "clue", "text": "zorp"}), "not_your_turn")
        err = await request(others[0], "action", "r1", action={"type": "ready"})
        assert err["code"] == "wrong_phase" and err["ref"] == "r1"
    finally:
        await close_all(clients)


async def test_host_only_messages_from_another_player_are_refused(shared_server):
    clients = await seated(shared_server, 3)
    guest = clients[2]
    try:
        await _unchanged_after(guest, lambda: guest.send("settings", options={"powers": []}),
                               "not_host")
        await _unchanged_after(guest, lambda: guest.send("start"), "not_host")
        await _unchanged_after(guest, lambda: guest.send("kick", player="p1"), "not_host")
        await _unchanged_after(guest, lambda: guest.send("pass_host", player="p3"), "not_host")
        await _unchanged_after(guest, lambda: guest.send("rematch"), "not_host")
        host = clients[0]
        await _unchanged_after(host, lambda: host.send("settings", options={"bogus": 1}),
                               "bad_options")
        await _unchanged_after(host, lambda: host.send("kick", player="p99"), "unknown_player")
        await _unchanged_after(host, lambda: host.send("rematch"), "wrong_phase")
        await _unchanged_after(host, lambda: host.act({"type": "ready"}), "wrong_phase")
    finally:
        await close_all(clients)


async def test_lobby_start_with_too_few_players_is_refused_by_the_game(shared_server):
    clients = await seated(shared_server, 2)
    try:
        await _unchanged_after(clients[0], lambda: clients[0].send("start"), "too_few_players")
    finally:
        await close_all(clients)


async def test_game_in_progress_refuses_settings_kick_start_and_newcomers(shared_server):
    clients = await started(shared_server, 3)
    host = clients[0]
    try:
        await _unchanged_after(host, lambda: host.send("settings", options={}), "wrong_phase")
        await _unchanged_after(host, lambda: host.send("kick", player="p2"), "wrong_phase")
        await _unchanged_after(host, lambda: host.send("start"), "wrong_phase")
        with pytest.raises(Exception) as info:
            await Client.join(shared_server.base_url, host.code, "Late")
        assert info.value.status == 409 and info.value.code == "game_running"
    finally:
        await close_all(clients)


async def test_unknown_and_revoked_tokens_are_refused_and_closed(shared_server):
    ws_url = shared_server.ws_base + "/ws?token="
    async with websockets.connect(ws_url + "not-a-real-token") as ws:
        msg = json.loads(await ws.recv())
        assert msg["type"] == "error" and msg["code"] == "bad_token"
        with pytest.raises(websockets.ConnectionClosed):
            await ws.recv()
        assert ws.close_code == 4001
    clients = await seated(shared_server, 3)
    try:
        host, guest = clients[0], clients[2]
        await host.send("kick", player=guest.player)
        assert await guest.wait_closed() == 4003
        assert any(e["code"] == "kicked" for e in guest.errors)
        async with websockets.connect(ws_url + guest.token) as ws:
            assert json.loads(await ws.recv())["code"] == "kicked"
            with pytest.raises(websockets.ConnectionClosed):
                await ws.recv()
            assert ws.close_code == 4003
    finally:
        await close_all(clients)


@pytest.fixture
def default_limits_server(tmp_path):
    # The default burst (40) with a slow refill, so a loaded machine cannot refill the
    # bucket while the burst is read; a quick close for the flood test.
    with ServerProc(tmp_path / "rl.db", env={"SUSSURRO_WS_RATE": "2", "SUSSURRO_WS_BURST": "40",
                                             "SUSSURRO_WS_ABUSE_CLOSE": "100"}) as srv:
        yield srv


async def test_a_burst_over_the_socket_rate_is_refused_and_a_flood_is_disconnected(
        default_limits_server):
    clients = await seated(default_limits_server, 3)
    c = clients[1]
    try:
        before = await fresh_picture(c)
        mark = c.mark()
        for i in range(100):
            await c.send("ping", t=i)
        await c.wait_for(lambda m: m["type"] == "error" and m["code"] == "rate_limited",
                         since=mark)
        pongs = [m for m in c.messages[mark:] if m["type"] == "pong"]
        assert 38 <= len(pongs) < 100  # the burst passes, the rest is dropped
        await c.close()
        await c.connect()
        assert await fresh_picture(c) == before
        # Far over the limit: the server hangs up with 4029.
        flooder = by_id(clients)["p3"]
        with contextlib.suppress(websockets.ConnectionClosed):
            for _ in range(2000):
                await flooder.send("ping")
        assert await flooder.wait_closed() == 4029
        assert flooder.errors[-1]["code"] == "rate_limited"
    finally:
        await close_all(clients)


async def test_a_frame_beyond_the_hard_limit_closes_the_socket_and_the_seat_stays(
        shared_server):
    clients = await seated(shared_server, 3)
    c = clients[1]
    try:
        with contextlib.suppress(websockets.ConnectionClosed):
            await c.send_raw("x" * 100_000)
        assert await c.wait_closed() == 1009
        await c.connect()  # nothing was lost: the same seat comes back
        assert c.welcome["player"] == "p2"
    finally:
        await close_all(clients)


async def test_the_server_declines_per_message_deflate(shared_server):
    """Browsers offer permessage-deflate; the server takes no extension, so every frame it
    sends is plain (deflating each small message cost ~18 us of ~90: bench/ROOM.md). Its
    messages still arrive whole."""
    async with websockets.connect(shared_server.ws_base + "/ws?token=not-a-real-token",
                                  compression="deflate") as ws:
        assert "permessage-deflate" in ws.request.headers["Sec-WebSocket-Extensions"]
        assert "Sec-WebSocket-Extensions" not in ws.response.headers
        assert ws.protocol.extensions == []
        assert json.loads(await ws.recv())["code"] == "bad_token"
