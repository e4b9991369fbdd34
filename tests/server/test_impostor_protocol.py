"""Impostore through the WebSocket protocol only: whole games, every message of every client
read for secrets (the word, the hint, the category, roles, ballots), a custom word list
that the table never sees, and the podium in the room message."""

from __future__ import annotations

import re
from typing import Any

import pytest

from client.protocol_client import Client
from tests.server.roomkit import close_all, play_all, seated


def _strings(value: Any) -> list[str]:
    """Every string value (not key) in a JSON document."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _mentions(msg: dict[str, Any], secret: str) -> bool:
    pattern = re.compile(rf"(?<!\w){re.escape(secret)}(?!\w)", re.IGNORECASE)
    return any(pattern.search(s) for s in _strings(msg))


VARIANTS = {
    # The impostor sees a hint word: never the word, the category; nobody else sees the hint.
    "hint": {"impostor_info": "hint", "impostors": 1},
    # The impostors see the category; they know each other, a Complice knows them, the
    # count is random and they are told it; the vote is secret.
    "category": {"impostor_info": "category", "impostors": "random", "tell_count": True,
                 "impostors_know": True, "roles": ["complice"], "secret_vote": True,
                 "turns": "free", "win_mode": "elimination"},
}


@pytest.mark.parametrize("variant", sorted(VARIANTS))
async def test_impostore_games_reveal_no_secret_in_any_message(shared_server, variant):
    clients = await seated(shared_server, 5, preset="classica")
    host = clients[0]
    # Issue 13: a shared screen watches too, and learns no more than the rules show all.
    tv = await Client.watch(shared_server.base_url, host.code)
    await tv.connect()
    await host.send("settings", options=VARIANTS[variant])
    await host.wait_for(lambda m: m["type"] == "room"
                        and m["settings"]["options"]["impostor_info"]
                        == VARIANTS[variant]["impostor_info"])
    assert not host.errors, host.errors
    await host.send("start")
    finals = await play_all(clients, seed=11)
    try:
        result = finals[0]["result"]
        assert all(f["result"] == result for f in finals)
        roles = {p["id"]: p["role"] for p in result["players"]}
        impostors = {pid for pid, r in roles.items() if r == "impostore"}
        words = result["words_dealt"]
        category = [result["category"], result["category_name"]]
        for c in clients:
            me = c.player
            saw_over = False
            for msg in c.messages:
                if msg["type"] == "view" and msg["view"]["phase"] == "over":
                    saw_over = True
                    break
                if me in impostors:
                    leaked = [w for w in words if _mentions(msg, w)]
                    assert not leaked, f"impostor {me} saw {leaked}: {msg}"
                    if variant == "hint":
                        assert not any(_mentions(msg, x) for x in category), msg
                elif result["hint"]:
                    assert not _mentions(msg, result["hint"]), f"{me} saw the hint: {msg}"
                if msg["type"] != "view":
                    continue
                view = msg["view"]
                assert view["me"]["role"] == roles[me]
                out = {e["player"] for e in view["eliminations"]}
                for p in view["players"]:
                    assert p["revealed_role"] is None or p["id"] in out
                    if VARIANTS[variant].get("secret_vote"):
                        assert p["vote"] is None
                if VARIANTS[variant].get("secret_vote"):
                    assert view["ballot"] is None
                for fact in view["me"]["known"]:
                    assert roles[fact["player"]] == "impostore"
                    assert roles[me] in ("complice", "impostore")
            assert saw_over
        await tv.wait_view(lambda v: v["phase"] == "over")
        secrets = [*words, *category, *([result["hint"]] if result["hint"] else [])]
        for msg in tv.messages:
            if msg["type"] == "view" and msg["view"]["phase"] == "over":
                break
            leaked = [x for x in secrets if x and _mentions(msg, x)]
            assert not leaked, f"the spectator saw {leaked}: {msg}"
            if msg["type"] != "view":
                continue
            view = msg["view"]
            assert view["me"] is None
            out = {e["player"] for e in view["eliminations"]}
            for p in view["players"]:
                assert p["revealed_role"] is None or p["id"] in out
                if VARIANTS[variant].get("secret_vote"):
                    assert p["vote"] is None
            if VARIANTS[variant].get("secret_vote"):
                assert view["ballot"] is None
        # The points of the game are the room's evening points, shown to all.
        room = await host.wait_for(lambda m: m["type"] == "room" and m["phase"] == "over")
        assert room["evening"]["points"] == {k: v for k, v in result["points"].items()}
        assert room["evening"]["podium"] == [] or room["evening"]["podium"][0]["place"] == 1
    finally:
        await close_all([*clients, tv])


async def test_a_custom_word_list_is_dealt_but_never_shown_to_the_table(shared_server):
    """Issue 9: a room's own list, stored with its settings, dealt in the game; the room
    message shows its size only (the host's list would tell everyone the candidates)."""
    clients = await seated(shared_server, 3, preset="classica")
    host = clients[0]
    text = "ornitorinco: becco, australia\nquokka: sorriso\nfenicottero: rosa, zampa"
    await host.send("settings", options={"custom_words": text})
    room = await host.wait_for(lambda m: m["type"] == "room"
                               and m["settings"]["options"]["custom_words"] is not None)
    assert room["settings"]["options"]["custom_words"] == {"count": 3}
    await host.send("settings", options={"custom_words": "gatto\nx\ncane"}, ref="bad")
    err = await host.wait_for(lambda m: m["type"] == "error" and m.get("ref") == "bad")
    assert err["code"] == "words_too_short" and err["detail"]["line"] == 2
    await host.send("start")
    finals = await play_all(clients, seed=3)
    try:
        assert finals[0]["result"]["word"] in ("ornitorinco", "quokka", "fenicottero")
        assert finals[0]["result"]["category"] == "custom"
        for c in clients:
            for msg in c.messages:
                if msg["type"] == "view" and msg["view"]["phase"] == "over":
                    break
                if msg["type"] == "room":
                    assert not any(_mentions(msg, w)
                                   for w in ("ornitorinco", "quokka", "fenicottero", "becco"))
    finally:
        await close_all(clients)
