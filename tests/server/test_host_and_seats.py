"""Host powers, seats and reconnection through the protocol."""

from __future__ import annotations

import pytest

from tests.server.roomkit import (
    FAST,
    by_id,
    close_all,
    fresh_picture,
    next_clue,
    play_all,
    seated,
    started,
)
from tests.support.server_proc import ServerProc


async def test_host_starts_kicks_and_passes_the_host(shared_server):
    clients = await seated(shared_server, 4)
    host, bob, cy, di = clients
    try:
        assert host.room["host"] == host.player
        await host.send("kick", player=di.player)
        assert await di.wait_closed() == 4003
        room = await host.wait_for(lambda m: m["type"] == "room" and len(m["players"]) == 3)
        assert [p["name"] for p in room["players"]] == ["Ada", "Bob", "Cy"]
        await host.send("pass_host", player=cy.player)
        room = await bob.wait_for(lambda m: m["type"] == "room" and m["host"] == cy.player)
        assert [p["host"] for p in room["players"]] == [False, False, True]
        # The old host is now a guest; the new one starts.
        await cy.send("settings", options={**FAST, "powers": []})
        await cy.send("start")
        view = await host.wait_view(lambda v: v["phase"] == "clues")
        assert {p["id"] for p in view["players"]} == {host.player, bob.player, cy.player}
    finally:
        await close_all(clients)


async def test_when_the_host_leaves_the_next_seat_becomes_host(shared_server):
    clients = await seated(shared_server, 4)
    host, bob, cy, di = clients
    try:
        await host.leave()
        room = await cy.wait_for(lambda m: m["type"] == "room" and m["host"] != host.player)
        assert room["host"] == bob.player
        assert host.player not in {p["id"] for p in room["players"]}
        await bob.send("kick", player=bob.player)  # not oneself
        err = await bob.wait_for(lambda m: m["type"] == "error")
        assert err["code"] == "unknown_player"
        await bob.leave()
        room = await di.wait_for(lambda m: m["type"] == "room" and m["host"] == cy.player)
        assert len(room["players"]) == 2
    finally:
        await close_all(clients)


async def test_rematch_keeps_the_settings_and_counts_points(shared_server):
    clients = await seated(shared_server, 3)
    host = clients[0]
    options = {**FAST, "powers": [], "lang": "en"}
    try:
        await host.send("settings", options=options)
        await host.send("start")
        first = await play_all(clients, seed=1)
        scored = first[0]["result"]["points"]
        room = await host.wait_for(lambda m: m["type"] == "room" and m["phase"] == "over")
        settings = room["settings"]
        mark = host.mark()
        await host.send("rematch")
        room = await host.wait_for(lambda m: m["type"] == "room" and m["phase"] == "playing",
                                   since=mark)
        assert room["settings"] == settings and room["game"] == 2
        assert settings["options"]["lang"] == "en" and settings["options"]["timers"]["clue"] == 5
        assert {p["id"]: p["points"] for p in room["players"]} == scored  # the game's points
        view = await host.wait_view(lambda v: v["phase"] != "over")
        assert view["lang"] == "en" and view["round"] == 1 and view["clues"] == []
    finally:
        await close_all(clients)


async def test_a_dropped_player_reconnects_with_the_token_to_the_same_seat_and_view(
        shared_server):
    clients = await started(shared_server, 4)
    try:
        bob = clients[1]
        before = await fresh_picture(bob)
        await bob.close()
        room = await clients[0].wait_for(
            lambda m: m["type"] == "room"
            and not next(p for p in m["players"] if p["id"] == bob.player)["online"])
        assert [p["id"] for p in room["players"]] == [c.player for c in clients]
        await bob.connect()
        assert bob.welcome["player"] == before[1]["players"][1]["id"]
        after = await fresh_picture(bob)
        assert after == before
    finally:
        await close_all(clients)


async def test_a_second_socket_for_the_same_token_replaces_the_first(shared_server):
    clients = await started(shared_server, 3)
    try:
        bob = clients[1]
        from client.protocol_client import Client

        tab2 = Client(bob.base_url, bob.code, bob.player, bob.token)
        await tab2.connect()
        assert await bob.wait_closed() == 4000
        assert bob.errors[-1]["code"] == "replaced"
        assert tab2.view["me"]["id"] == bob.player
        # The new tab is the seat: it is online and gets the next views.
        room = await tab2.wait_for(lambda m: m["type"] == "room")
        assert by_id(clients)[bob.player] is bob
        assert next(p for p in room["players"] if p["id"] == bob.player)["online"]
        await tab2.close()
    finally:
        await close_all(clients)


async def test_whispers_follow_the_policy_and_stop_when_it_changes(shared_server):
    clients = await started(shared_server, 4, options={
        "timers": {"powers": 600, "clue": 600, "debate": 600, "vote": 600, "guess": 600,
                   "pick": 600}})
    try:
        a, b = clients[0], clients[1]
        mark = a.mark()
        await a.send("whisper_start", to=b.player)
        err = await a.wait_for(lambda m: m["type"] == "error", since=mark)
        assert err["code"] == "whisper_not_allowed"  # clues: no whispers
        for _ in range(len(clients)):
            view = clients[0].view
            if view["phase"] != "clues":
                break
            await next_clue(clients)
        await a.wait_view(lambda v: v["phase"] == "debate")
        await a.send("whisper_start", to=b.player)
        note = await b.wait_for(lambda m: m["type"] == "whisper")
        assert note == {"type": "whisper", "from": a.player, "to": b.player, "active": True}
        # Everyone ready -> the vote: whispers end, both are told.
        for c in clients:
            await c.act({"type": "ready"})
        off = await b.wait_for(lambda m: m["type"] == "whisper" and not m["active"])
        assert off["from"] == a.player
        await a.wait_for(lambda m: m["type"] == "whisper" and not m["active"])
        view = await a.wait_view(lambda v: v["phase"] == "vote")
        assert not any(p["whisper_ok"] for p in view["players"])
        mark = a.mark()
        await a.send("whisper_start", to=b.player)
        err = await a.wait_for(lambda m: m["type"] == "error", since=mark)
        assert err["code"] == "whisper_not_allowed"
    finally:
        await close_all(clients)


async def test_a_whisper_ends_when_the_whisperer_disconnects(shared_server):
    clients = await started(shared_server, 3)
    try:
        while clients[0].view["phase"] == "clues":
            await next_clue(clients)
        a, b = clients[0], clients[1]
        await a.send("whisper_start", to=b.player)
        await b.wait_for(lambda m: m["type"] == "whisper" and m["active"])
        await a.close()
        off = await b.wait_for(lambda m: m["type"] == "whisper" and not m["active"])
        assert off["from"] == a.player and off["to"] == b.player
    finally:
        await close_all(clients)


async def test_leaving_during_a_game_frees_the_seat_and_the_game_goes_on(shared_server):
    clients = await started(shared_server, 4)
    try:
        host, bob = clients[0], clients[1]
        await bob.leave()
        room = await host.wait_for(lambda m: m["type"] == "room" and len(m["players"]) == 3)
        assert room["phase"] == "playing" and bob.player not in [p["id"] for p in room["players"]]
        # Still a player of the game (their turns time out); the token is revoked.
        assert bob.player in [p["id"] for p in host.view["players"]]
        from client.protocol_client import Client

        again = Client(bob.base_url, bob.code, bob.player, bob.token)
        with pytest.raises(ConnectionError):
            await again.connect()
        assert again.close_code == 4004 and again.errors[-1]["code"] == "left"
    finally:
        await close_all(clients)


async def test_cues_reach_the_right_players(shared_server):
    clients = await started(shared_server, 3)
    try:
        ids = by_id(clients)
        turn = clients[0].view["turn"]
        cue = await ids[turn].wait_for(lambda m: m["type"] == "cue")
        assert cue["name"] == "your_turn"
        assert not [m for c in clients if c.player != turn for m in c.messages
                    if m["type"] == "cue"]
    finally:
        await close_all(clients)


@pytest.fixture
def quick_grace_server(tmp_path):
    with ServerProc(tmp_path / "grace.db", env={"SUSSURRO_HOST_GRACE": "0.5"}) as srv:
        yield srv


async def test_an_absent_host_hands_over_to_the_next_online_seat(quick_grace_server):
    clients = await seated(quick_grace_server, 3)
    host, bob, cy = clients
    try:
        await bob.close()
        await host.close()
        room = await cy.wait_for(lambda m: m["type"] == "room" and m["host"] != host.player)
        assert room["host"] == cy.player  # Bob is away too: the next ONLINE seat
        await host.connect()
        assert host.room["host"] == cy.player  # coming back does not take it back
    finally:
        await close_all(clients)


async def test_settings_are_a_patch_over_the_current_options(shared_server):
    clients = await seated(shared_server, 3)
    host = clients[0]
    try:
        await host.send("settings", options={"timers": {"debate": 120}, "powers": ["spia"]})
        await host.send("settings", options={"timers": {"clue": 30}})
        room = await clients[1].wait_for(
            lambda m: m["type"] == "room" and m["settings"]["options"]["timers"]["clue"] == 30)
        options = room["settings"]["options"]
        assert options["timers"]["debate"] == 120 and options["powers"] == ["spia"]
        await host.send("settings", preset="infiltre", options={})
        room = await clients[1].wait_for(
            lambda m: m["type"] == "room" and m["settings"]["preset"] == "infiltre")
        assert room["preset"] == "infiltre" and room["settings"]["options"]["lang"] == "fr"
    finally:
        await close_all(clients)
