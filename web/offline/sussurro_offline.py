"""The one-phone page's Python side, run under Pyodide in a web worker.

The page keeps one game at a time here and talks to it through `call`, one
JSON request in, one JSON answer out: `{"ok": value}` or `{"error": {code,
message, detail}}` for a refused action (the state is then unchanged, as in
the core). Everything the page learns of a game comes from the core's own
`view`, `next_deadline` and `result`: no rule is written twice.

The page stores the game's record (preset, options, seed, players, words,
start time and every accepted action with its time) on the phone, so a
reload rebuilds the game with `restore`, as a restarted server does.
"""

from __future__ import annotations

import json
from typing import Any

import game
from game import GameError

_game: dict[str, Any] = {"state": None}


def _snapshot() -> dict[str, Any]:
    """What the page draws: the public view, every seat's own view, the deadline."""
    s = _game["state"]
    views = {pl["id"]: game.view(s, pl["id"]) for pl in _game["players"]}
    return {
        "public": game.view(s, None),
        "views": views,
        "deadline": game.next_deadline(s),
        "result": game.result(s),
    }


def catalog() -> dict[str, Any]:
    """The rules' catalog (the same the server gives at /api/catalog)."""
    return game.catalog()


def defaults(preset: str) -> dict[str, Any]:
    """A preset's default options."""
    return game.default_options(preset)


def validate(preset: str, options: dict[str, Any], n: int) -> dict[str, Any]:
    """The options normalised for a table of `n` (or the core's refusal)."""
    return game.validate_options(preset, options, n)


def start(preset: str, options: dict[str, Any], seed: int, players: list[dict[str, Any]],
          now: float) -> dict[str, Any]:
    """Deal a new game: its words are drawn apart and returned for the record."""
    opts = game.validate_options(preset, options, len(players))
    words = game.draw_words(preset, opts, seed)
    state = game.new_game(preset, opts, seed, players, now, words=words)
    _game.update(state=state, players=players)
    return {"options": opts, "words": words, "events": game.opening_events(state),
            **_snapshot()}


def restore(record: dict[str, Any]) -> dict[str, Any]:
    """Rebuild the game of a stored record by replaying its log."""
    state = game.replay(record["preset"], record["options"], record["seed"], record["players"],
                        record["log"], started_at=record["started_at"], words=record["words"])
    _game.update(state=state, players=record["players"])
    return _snapshot()


def act(player: str, action: dict[str, Any], now: float) -> dict[str, Any]:
    """One seat's action at `now`: the events and the new snapshot."""
    state, events = game.apply(_game["state"], player, action, now)
    _game["state"] = state
    return {"events": events, **_snapshot()}


def tick(now: float) -> dict[str, Any]:
    """Let the game's time pass until `now`."""
    state, events = game.tick(_game["state"], now)
    _game["state"] = state
    return {"events": events, **_snapshot()}


def state_bytes() -> str:
    """The game's canonical bytes (UTF-8 JSON), to compare with CPython's."""
    return game.state_bytes(_game["state"]).decode("utf-8")


def evening(results: list[dict[str, Any]]) -> dict[str, Any]:
    """The evening so far (points, podium, awards) from the finished games' results."""
    return game.evening(results)


def lemma(word: str, lang: str) -> str | None:
    """The core's dictionary lemma of `word` (the zlib path here: the benchmark times
    the first call, which reads the language's dictionary)."""
    from game import lemmas

    return lemmas.lemma(word, lang)


_CALLS = {f.__name__: f for f in (catalog, defaults, validate, start, restore, act, tick,
                                  state_bytes, evening, lemma)}


def call(request: str) -> str:
    """Run `{"fn": name, "args": {...}}`; answer `{"ok": value}` or `{"error": {...}}`."""
    req = json.loads(request)
    fn = _CALLS.get(req.get("fn"))
    if fn is None:
        return json.dumps({"error": {"code": "bad_call", "message": str(req.get("fn"))[:40]}})
    try:
        return json.dumps({"ok": fn(**(req.get("args") or {}))}, ensure_ascii=False)
    except GameError as exc:
        return json.dumps({"error": exc.to_dict()}, ensure_ascii=False)
