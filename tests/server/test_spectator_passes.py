"""Issue 29 item 6, "spectator passes cannot be removed and never expire": anyone with
the code could take every pass (`POST /watch` x8), the real TV then got 409
`spectators_full`, and `kick {player: s1}` answered `unknown_player`.

The room message lists the passes (`passes`: id and whether a screen is connected);
the host removes one with `kick {player: sN}` (its socket gets `kicked` and close 4003,
its token stops working, its place is free); a pass whose screen is not connected is
dropped after `spectator_idle_ttl` (one never connected at all after
`spectator_claim_ttl`), and that survives a restart.
"""

from __future__ import annotations

import pytest

from client.protocol_client import Client, HttpError
from tests.server.roomkit import close_all, request
from tests.support.server_proc import ServerProc


async def test_issue29_6_the_host_sees_and_removes_a_pass_and_the_real_tv_then_gets_one(tmp_path):
    srv = ServerProc(tmp_path / "s.db", env={"SUSSURRO_MAX_SPECTATORS": "8"}).start()
    clients: list[Client] = []
    try:
        host = await Client.create(srv.base_url, "Ada")
        bob = await Client.join(srv.base_url, host.code, "Bob")
        clients += [host, bob]
        # Someone with the code takes all 8 passes.
        grabbed = [await Client.watch(srv.base_url, host.code) for _ in range(8)]
        clients += grabbed
        with pytest.raises(HttpError) as refused:
            await Client.watch(srv.base_url, host.code)
        assert (refused.value.status, refused.value.code) == (409, "spectators_full")
        # One of them is connected: the host sees which.
        await grabbed[0].connect()
        await host.connect()
        await bob.connect()
        room = await host.wait_for(lambda m: m["type"] == "room" and m.get("passes") is not None
                                   and any(p["online"] for p in m["passes"]))
        assert [p["id"] for p in room["passes"]] == [f"s{i}" for i in range(1, 9)]
        assert [p["online"] for p in room["passes"]] == [True] + [False] * 7
        assert all(set(p) == {"id", "online"} for p in room["passes"])  # nothing secret
        # Only the host removes a pass; an unknown one is refused.
        err = await request(bob, "kick", "k1", player="s1")
        assert err["code"] == "not_host"
        err = await request(host, "kick", "k2", player="s99")
        assert err["code"] == "unknown_player"
        # The host removes the connected one: its screen is told and closed.
        mark = host.mark()
        await host.send("kick", player="s1")
        assert await grabbed[0].wait_closed() == 4003
        assert grabbed[0].errors[-1]["code"] == "kicked"
        room = await host.wait_for(lambda m: m["type"] == "room" and len(m["passes"]) == 7,
                                   since=mark)
        assert "s1" not in {p["id"] for p in room["passes"]}
        assert room["banned"] == []  # removing a pass bans nobody
        # Its token no longer opens anything, and the real TV gets the place.
        with pytest.raises(ConnectionError):
            await Client(srv.base_url, host.code, "s1", grabbed[0].token).connect(timeout=3)
        tv = await Client.watch(srv.base_url, host.code)
        clients.append(tv)
        assert tv.player == "s9"
        await tv.connect()
        assert tv.welcome["spectator"] == "s9"
    finally:
        await close_all(clients)
        srv.stop()


async def test_issue29_6_a_pass_not_connected_expires_and_frees_its_place(tmp_path):
    srv = ServerProc(tmp_path / "s.db", env={
        "SUSSURRO_MAX_SPECTATORS": "2", "SUSSURRO_SPECTATOR_CLAIM_TTL": "1",
        "SUSSURRO_SPECTATOR_IDLE_TTL": "2"}).start()
    clients: list[Client] = []
    try:
        host = await Client.create(srv.base_url, "Ada")
        clients.append(host)
        never = await Client.watch(srv.base_url, host.code)  # taken, never connected
        gone = await Client.watch(srv.base_url, host.code)   # connected once, then closed
        clients += [never, gone]
        await gone.connect()
        await host.connect()
        await gone.close()
        # Both are dropped by the room's timer; the lobby sees the list empty.
        room = await host.wait_for(lambda m: m["type"] == "room" and m["passes"] == [],
                                   timeout=15)
        assert room["spectators"] == 0
        for dropped in (never, gone):
            with pytest.raises(ConnectionError):
                await Client(srv.base_url, host.code, dropped.player,
                             dropped.token).connect(timeout=3)
        # The places are free again; a connected screen is never dropped.
        tv = await Client.watch(srv.base_url, host.code)
        clients.append(tv)
        await tv.connect()
        mark = host.mark()
        await host.send("hello")
        room = await host.wait_for(lambda m: m["type"] == "room", since=mark)
        assert room["passes"] == [{"id": tv.player, "online": True}]
    finally:
        await close_all(clients)
        srv.stop()


async def test_issue29_6_an_idle_pass_still_expires_after_a_restart(tmp_path):
    srv = ServerProc(tmp_path / "s.db", env={
        "SUSSURRO_SPECTATOR_CLAIM_TTL": "1", "SUSSURRO_SPECTATOR_IDLE_TTL": "1"}).start()
    try:
        host = await Client.create(srv.base_url, "Ada")
        await Client.watch(srv.base_url, host.code)
        srv.restart()
        await host.connect()
        await host.wait_for(lambda m: m["type"] == "room" and m["passes"] == [], timeout=15)
        await host.close()
    finally:
        srv.stop()
