"""A random legal player over the protocol: for tests, bots and load scripts.

`autoplay(view, rng)` is one random legal action for the player whose view
this is (or None); `play(client, rng)` answers a client's views with it until
the game is over.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
from typing import TYPE_CHECKING, Any

from game.simulate import nonsense, random_action, random_clue

if TYPE_CHECKING:
    from client.protocol_client import Client


def autoplay(view: dict[str, Any], rng: random.Random | None = None) -> dict[str, Any] | None:
    """One legal-looking action for this view's player, or None if nothing is due.

    Follows `view.me.can`: Cupido binds and the Ubriacone intoxicates random
    others; a clue is a made-up word (an emoji for the Muto, a word of the
    previous clue for the Pappagallo); in the debate the Sabotatore may swap
    (rarely) then everyone is ready; votes go to a random candidate other than
    oneself (once); the Giudice and the Vendicatore pick a random candidate;
    a guess is a made-up word. The views of another engine are answered by that
    engine's random player (`game.simulate.random_action`), one vote per ballot.
    """
    rng = rng or random.Random()
    if view.get("game") not in (None, "undercover"):
        # Another engine's game: its own random player (game/<engine>/sim.py).
        # (A made-up word to guess with: an empty pool would fail the impostor's guess.)
        return random_action(rng, view, [nonsense(rng)]) if view.get("me") else None
    me = view.get("me") or {}
    can = me.get("can") or []
    myself = me.get("id")
    if view.get("game") not in (None, "undercover"):
        # Another engine: its own random player (game.simulate), voting once per ballot.
        if ("vote" in can and me.get("vote") is not None) or (
                "word_vote" in can and me.get("word_vote") is not None):
            return None
        return random_action(rng, view, [nonsense(rng)])
    living = [p["id"] for p in view.get("players", []) if p.get("alive") and p["id"] != myself]
    candidates = [c for c in view.get("candidates") or [] if c != myself]
    if "bind" in can and living:
        return {"type": "bind", "target": rng.choice(living)}
    if "intoxicate" in can:
        others = [p["id"] for p in view.get("players", []) if p["id"] != myself]
        if len(others) >= 2:
            return {"type": "intoxicate", "targets": rng.sample(others, 2)}
    if "clue" in can:
        return {"type": "clue", "text": random_clue(rng, view)}
    if "guess" in can:
        return {"type": "guess", "word": nonsense(rng)}
    if "avenge" in can:
        pool = candidates or living
        return {"type": "avenge", "target": rng.choice(pool)} if pool else None
    if "judge" in can and candidates:
        return {"type": "judge", "target": rng.choice(candidates)}
    if "swap" in can and rng.random() < 0.2:
        if living:
            return {"type": "swap", "target": rng.choice(living)}
    if "ready" in can:
        return {"type": "ready"}
    if "vote" in can and me.get("vote") is None:
        pool = candidates or living
        return {"type": "vote", "target": rng.choice(pool)} if pool else None
    return None


async def play(client: Client, rng: random.Random | None = None, timeout: float = 120.0,
               delay: float = 0.0) -> dict[str, Any]:
    """Answer every view of `client` with `autoplay` until the game is over; the final view.

    An action the server refuses is not retried for the same view (the next
    view, or a deadline, moves the game on).
    """
    rng = rng or random.Random()
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    tried: set[str] = set()
    while True:
        mark = client.mark()
        view = client.view
        if view is not None and view.get("phase") == "over":
            return view
        if view is not None:
            action = autoplay(view, rng)
            # Not again for the same view: any progress of the game changes the view.
            key = json.dumps([view, action], sort_keys=True)
            if action is not None and key not in tried:
                tried.add(key)
                if delay:
                    await asyncio.sleep(delay)
                await client.act(action)
        left = end - loop.time()
        if left <= 0:
            raise TimeoutError("the game did not end in time")
        with contextlib.suppress(TimeoutError):
            await client.wait_for(lambda m: m["type"] in ("view", "error"), min(left, 2.0),
                                  since=mark)
