"""A whole game through the WebSocket protocol only, and what each client may learn."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from client.protocol_client import Client
from tests.server.roomkit import FAST, close_all, play_all, seated

ROLES = {"civile", "intruso", "fantasma"}


def _strings(value: Any) -> list[str]:
    """Every string value (not key) in a JSON document."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


@pytest.mark.parametrize("preset", ["intruso", "infiltre", "sosia"])
async def test_five_clients_play_a_whole_game_and_learn_no_secret_early(shared_server, preset):
    clients = await seated(shared_server, 5, preset=preset)
    host = clients[0]
    # Issue 13: a shared screen watches the whole game and must learn nothing either.
    tv = await Client.watch(shared_server.base_url, host.code)
    await tv.connect()
    await host.send("settings", options={**FAST, "powers": "auto" if preset == "intruso" else []})
    await host.send("start")
    finals = await play_all(clients, seed=5)
    try:
        result = finals[0]["result"]
        assert result["winners"] and result["outcome"]
        # Everyone ends on the same revealed result, and the room says so.
        assert all(f["result"] == result for f in finals)
        await host.wait_for(lambda m: m["type"] == "room" and m["phase"] == "over")
        # The game's points (docs/rules.md) are the room's evening points.
        assert {p["id"]: p["points"] for p in host.room["players"]} == result["points"]
        assert host.room["evening"]["games"] == 1

        truth = {p["id"]: p for p in result["players"]}
        both_words = set(result["words"].values())
        await tv.wait_view(lambda v: v["phase"] == "over")
        for c in [*clients, tv]:
            spectator = c is tv
            held: set[str] = set()  # words this player was given (a swap gives a second one)
            saw_over = False
            for msg in c.messages:
                if msg["type"] == "view":
                    view = msg["view"]
                    if view["phase"] == "over":
                        saw_over = True
                        break
                    if not spectator and view["me"]["word"]:
                        held.add(view["me"]["word"])
                    _check_view_secrets(view, None if spectator else c.player, truth)
                hidden = both_words - held
                text = json.dumps(msg, ensure_ascii=False)
                for word in hidden:
                    assert not re.search(rf"(?<!\w){re.escape(word)}(?!\w)", text), (
                        f"{c.player} saw the word {word!r} it never held: {msg}")
                mine = set() if spectator else {truth[c.player]["power"]}
                others_powers = {p["power"] for pid, p in truth.items()
                                 if pid != c.player and p["power"]} - mine
                leaked = others_powers & set(_strings(msg))
                assert not leaked, f"{c.player} saw powers {leaked}: {msg}"
            assert saw_over
    finally:
        await close_all([*clients, tv])


def _check_view_secrets(view: dict[str, Any], me: str | None, truth: dict[str, Any]) -> None:
    """What a view may show before the end; `me` None: the spectator view (no `me`)."""
    out = {e["player"] for e in view["eliminations"]}
    for p in view["players"]:
        # A role is shown only once the player is out; never a word, power or ballot.
        assert p["revealed_role"] is None or p["id"] in out, p
        assert not {"role", "word", "power", "vote"} & set(p), p
    if me is None:
        assert view["me"] is None
    else:
        assert view["me"]["id"] == me
        assert view["me"]["role"] in (None, truth[me]["role"])
        if view["me"]["role"] is not None:
            assert view["me"]["role"] == "fantasma"
    # Under secret voting nobody sees who voted whom while the ballot is open.
    if view["phase"] in ("vote", "revote"):
        assert view["vote_counts"] is None
    assert view["result"] is None
