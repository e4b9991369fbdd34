"""Random legal games through the public API, with invariant checks, for every engine.

`run(preset, players, games, seed)` plays `games` games where every player
acts at random from what their own view says they can do and where deadlines
sometimes pass instead. Each engine brings its random player and its
invariants (`<engine>.sim`: `random_options`, `random_action`, `guess_pool`,
`oracle`, `start_invariants`, `illegal_invariants`, `end_invariants`,
`report_extra`, `OUTCOMES`). The report:

    {"preset", "players", "games", "finished", "wins": {outcome: n},
     "longest_rounds", "longest_steps", "invariants_broken": [str, ...], ...engine figures}

Checked for every engine: a legal action (one the view offers, with a legal
argument) is never refused, every game ends within `MAX_STEPS` steps, a phase
without a timer always has someone who can act (it waits for the players), and the
engine's own invariants hold (an illegal action changes nothing, the counts
at the start, one outcome with consistent winners ...).
"""

from __future__ import annotations

import random
from typing import Any

from .engines import engine_of_preset
from .errors import GameError
from .simulate_common import EMOJI, SYLLABLES, nonsense

__all__ = ["EMOJI", "SYLLABLES", "MAX_STEPS", "nonsense", "random_clue", "random_action",
           "play", "run"]

MAX_STEPS = 6000


def random_clue(rng: random.Random, v: dict[str, Any]) -> str:
    """A clue that passes the checks for the player whose view is `v` (any engine)."""
    return engine_of_preset(v["preset"]).sim.random_clue(rng, v)


def random_action(rng: random.Random, v: dict[str, Any], pool: list[str]) -> dict | None:
    """A random action the view `v` allows (None if none)."""
    return engine_of_preset(v["preset"]).sim.random_action(rng, v, pool)


def play(
    preset: str,
    n: int,
    seed: int,
    options: dict[str, Any] | None = None,
    p_timeout: float = 0.08,
    oracle_guess: float = 0.3,
    check_illegal: bool = True,
) -> tuple[Any, list[str], int]:
    """Play one random game; returns (final state, invariants broken, steps)."""
    engine = engine_of_preset(preset)
    sim = engine.sim
    rng = random.Random(seed)
    broken: list[str] = []
    players = [{"id": f"p{i}", "name": f"P{i}"} for i in range(n)]
    state = engine.new_game(preset, options, seed, players, 0.0)
    broken += sim.start_invariants(state)
    pool = sim.guess_pool(state)
    now = 0.0
    steps = 0
    while state.phase != "over":
        steps += 1
        if steps > MAX_STEPS:
            broken.append(f"seed {seed}: no end after {MAX_STEPS} steps")
            break
        views = {p["id"]: engine.view(state, p["id"]) for p in players}
        actors = [pid for pid, v in views.items() if v["me"]["can"]]
        if check_illegal and steps % 7 == 0:
            broken += sim.illegal_invariants(state, views, now, seed)
        deadline = engine.next_deadline(state)
        if deadline is None and not actors:
            # A phase without a timer waits for the players: someone must be able to act.
            broken.append(f"seed {seed}: nobody can act and no deadline in phase {state.phase}")
            break
        if deadline is not None and (not actors or rng.random() < p_timeout):
            now = max(now, deadline)
            state, _ = engine.tick(state, now)
            continue
        pid = rng.choice(actors)
        v = views[pid]
        action: dict[str, Any] | None = None
        if "guess" in v["me"]["can"] and rng.random() < oracle_guess:
            action = sim.oracle(state, pid)
        if action is None:
            action = sim.random_action(rng, v, pool)
        if action is None:
            continue
        now += rng.choice([0.0, 0.2, 1.0])
        deadline = engine.next_deadline(state)
        if deadline is not None:
            now = min(now, deadline - 0.01)
        try:
            state, _ = engine.apply(state, pid, action, now)
        except GameError as exc:
            broken.append(f"seed {seed}: legal {action} by {pid} refused: {exc.code}")
            break
    broken += sim.end_invariants(state, seed)
    return state, broken, steps


def run(preset: str = "intruso", players: int = 8, games: int = 200, seed: int = 1) -> dict:
    """Play `games` random legal games of `preset` with `players` players; report figures."""
    engine = engine_of_preset(preset)
    rng = random.Random(seed)
    report: dict[str, Any] = {
        "preset": preset,
        "players": players,
        "games": games,
        "finished": 0,
        "wins": {},
        "longest_rounds": 0,
        "longest_steps": 0,
        "invariants_broken": [],
    }
    for _ in range(games):
        game_seed = rng.randrange(2**31)
        options = engine.sim.random_options(rng, preset, players)
        try:
            state, broken, steps = play(preset, players, game_seed, options)
        except GameError as exc:
            report["invariants_broken"].append(f"seed {game_seed}: {exc.code} {exc.message}")
            continue
        report["invariants_broken"] += broken
        report["longest_rounds"] = max(report["longest_rounds"], getattr(state, "round", 0))
        report["longest_steps"] = max(report["longest_steps"], steps)
        if state.phase == "over":
            report["finished"] += 1
            outcome = engine.result(state)["outcome"]
            report["wins"][outcome] = report["wins"].get(outcome, 0) + 1
            engine.sim.report_extra(state, report)
    return report
