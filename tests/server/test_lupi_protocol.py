"""Lupi Mannari through the real server's protocol (no voice): the room's settings, the
table's refusals, refusals that tell nothing, a restart in the middle of the wolves'
phase (views and the phase's clock rebuilt by replay), a whole game by random clients
and its points in the evening."""

from __future__ import annotations

import asyncio
import random

import pytest

from client.autoplay import play
from client.protocol_client import Client
from tests.server.roomkit import NAMES, by_id, close_all, seated

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]

LONG = {"night": 600, "seer": 600, "wolves": 600, "day": 180, "vote": 600, "defence": 600}


async def settings(host: Client, **options) -> dict:
    mark = host.mark()
    await host.send("settings", options=options)
    return await host.wait_for(lambda m: m["type"] in ("room", "error"), since=mark)


async def start(host: Client) -> dict:
    mark = host.mark()
    await host.send("start")
    return await host.wait_for(lambda m: m["type"] in ("view", "error"), since=mark)


async def test_lupi_settings_and_the_table_are_checked(server):
    clients = await seated(server, 5, preset="lupi")
    host = clients[0]
    try:
        assert host.room["preset"] == "lupi" and host.room["settings"]["options"]["lupi"] == "auto"
        bad = await settings(host, timers={"day": 181})
        assert bad["type"] == "error" and bad["code"] == "bad_options"
        assert bad["detail"]["field"] == "timers"
        refused = await start(host)  # five seats, auto wolves: 004 wants 8
        assert refused["type"] == "error" and refused["code"] == "too_few_players"
        assert refused["detail"]["min"] == 8
        ok = await settings(host, lupi=3)
        assert ok["type"] == "room"
        refused = await start(host)
        assert refused["code"] == "too_many_wolves" and refused["detail"]["most"] == 1
        await settings(host, lupi=1, moderator="nobody")
        refused = await start(host)
        assert refused["code"] == "bad_options" and refused["detail"]["field"] == "moderator"
        await settings(host, moderator=clients[4].player, timers=LONG)
        first = await start(host)
        assert first["type"] == "view" and first["view"]["phase"] == "night"
        mod = clients[4]
        v = await mod.wait_view(lambda v: v.get("game") == "werewolf")
        assert v["me"]["moderator"] and len(v["secrets"]["roles"]) == 4
        # Refusals: only the moderator advances; a card's action is its holder's alone.
        mark = host.mark()
        await host.act({"type": "advance"})
        err = await host.wait_for(lambda m: m["type"] == "error", since=mark)
        assert err["code"] == "not_allowed"
        await mod.act({"type": "advance"})
        await host.wait_view(lambda v: v["phase"] == "seer")
        mark = mod.mark()
        await mod.act({"type": "advance"})
        err = await mod.wait_for(lambda m: m["type"] == "error", since=mark)
        assert err["code"] == "wrong_phase"  # the seer's phase runs its time
    finally:
        await close_all(clients)


async def test_a_restart_in_the_wolves_phase_rebuilds_every_view(server):
    clients = await seated(server, 5, preset="lupi")
    host = clients[0]
    try:
        await settings(host, lupi=1, moderator=host.player, timers={**LONG, "seer": 5})
        await start(host)
        await host.act({"type": "advance"})
        views = {c.player: await c.wait_view(lambda v: v["phase"] == "wolves", 20)
                 for c in clients}
        wolf = next(c for c in clients if views[c.player]["me"]["role"] == "lupo")
        prey = next(p for p in views[wolf.player]["players"]
                    if p["id"] != wolf.player and p["alive"])["id"]
        await wolf.act({"type": "bite", "target": prey})
        picked = await wolf.wait_view(lambda v: v["me"]["pack_picks"] == {wolf.player: prey})
        before = {c.player: c.view for c in clients}
        await close_all(clients)
        server.restart()
        for c in clients:
            await c.connect()
        for c in clients:
            after = await c.wait_view(lambda v: v["phase"] == "wolves")
            assert after == before[c.player], c.player  # the same view, clock included
        assert wolf.view["me"]["pack_picks"] == picked["me"]["pack_picks"]
        await host.act({"type": "advance"})
        day = await wolf.wait_view(lambda v: v["phase"] == "day")
        assert day["deaths"] == [{"player": prey, "day": 1, "cause": "devoured"}]
    finally:
        await close_all(clients)


async def test_random_clients_play_a_whole_game_and_score_the_evening(server):
    clients = await seated(server, 4, preset="lupi")
    host = clients[0]
    # Issue 13: a shared screen watches the whole game; it learns no role before the end.
    tv = await Client.watch(server.base_url, host.code)
    await tv.connect()
    try:
        await settings(host, lupi=1, timers={"night": 5, "seer": 5, "wolves": 5, "day": 5,
                                             "vote": 5, "defence": 5})
        await start(host)
        finals = await asyncio.gather(*(play(c, random.Random(i), 120)
                                        for i, c in enumerate(clients)))
        result = finals[0]["result"]
        assert result["outcome"] in ("lupi", "umani")
        assert {p["role"] for p in result["players"]} == {"lupo", "veggente", "contadino"}
        room = await host.wait_for(lambda m: m["type"] == "room" and m["phase"] == "over")
        points = {p["id"]: p["points"] for p in room["players"]}
        assert points == {pid: result["points"][pid] for pid in by_id(clients)}
        assert sum(points.values()) >= 1 and NAMES[0] in {p["name"] for p in room["players"]}
        await tv.wait_view(lambda v: v["phase"] == "over")
        roles = {"lupo", "veggente", "contadino"}
        for msg in tv.messages:
            if msg["type"] == "view" and msg["view"]["phase"] == "over":
                break
            assert msg["type"] != "whisper", msg
            assert not roles & set(_strings(msg)), f"the spectator saw a role: {msg}"
            if msg["type"] == "view":
                view = msg["view"]
                assert view["me"] is None and view["secrets"] is None and view["result"] is None
                assert not {"role", "vote", "bite"} & {k for p in view["players"] for k in p}
    finally:
        await close_all([*clients, tv])


def _strings(value) -> list[str]:
    """Every string value (not key) in a JSON document."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []
