"""Random legal games through the public API, with invariant checks.

`run(preset, players, games, seed)` plays `games` games where every player
acts at random from what their own view says they can do (random clues that
pass the checks, random votes and power uses) and where deadlines sometimes
pass instead. It returns a report:

    {"games", "finished", "wins": {outcome: n}, "cupid_cowins", "longest_rounds",
     "longest_steps", "invariants_broken": [str, ...]}

Invariants checked: the counts at the start (Civili outnumber the
infiltrators, the preset's roles only, at most one power each), an
eliminated player never acts (an attempt raises `dead_player` and changes
nothing), an illegal action leaves the state byte for byte unchanged, every
game has exactly one outcome with winners consistent with it, and every game
ends within `MAX_STEPS` steps.
"""

from __future__ import annotations

import random
from typing import Any

from . import text as texts
from . import words as wordlist
from .errors import GameError
from .presets import get_preset
from .state import CIVILE, FANTASMA, GameState, state_bytes
from .undercover import apply, new_game, tick
from .views import view

MAX_STEPS = 6000
EMOJI = ["🐱", "🌊", "🔥", "🍕", "⚽", "🎸", "🌙", "🚗", "🐟", "🍎", "❄️", "🎩"]
SYLLABLES = ["zor", "blik", "quam", "vex", "trun", "plo", "wix", "gad", "snu", "fep"]


def nonsense(rng: random.Random) -> str:
    """A made-up word that no secret word contains (consonant-heavy nonsense)."""
    return "".join(rng.choice(SYLLABLES) for _ in range(2)) + rng.choice("kqxz")


def random_action(rng: random.Random, v: dict[str, Any], guess_pool: list[str]) -> dict | None:
    """A random action of the player whose view is `v` (None if they can do nothing)."""
    can = v["me"]["can"]
    if not can:
        return None
    kind = rng.choice(can)
    me = v["me"]["id"]
    others = [p["id"] for p in v["players"] if p["id"] != me]
    living_others = [p["id"] for p in v["players"] if p["id"] != me and p["alive"]]
    if kind == "bind":
        return {"type": "bind", "target": rng.choice(others)}
    if kind == "intoxicate":
        return {"type": "intoxicate", "targets": rng.sample(others, 2)}
    if kind == "clue":
        return {"type": "clue", "text": random_clue(rng, v)}
    if kind == "ready":
        return {"type": "ready"}
    if kind == "swap":
        return {"type": "swap", "target": rng.choice(living_others)} if living_others else None
    if kind in ("vote", "judge", "avenge"):
        choices = [c for c in v["candidates"] if c != me]
        return {"type": kind, "target": rng.choice(choices)} if choices else None
    if kind == "guess":
        return {"type": "guess", "word": rng.choice(guess_pool)}
    return None


def random_clue(rng: random.Random, v: dict[str, Any]) -> str:
    """A clue that passes the checks for this player's power."""
    power = v["me"]["power"]
    if power == "muto":
        return "".join(rng.sample(EMOJI, rng.randint(1, 3)))
    words = [nonsense(rng) for _ in range(rng.randint(1, 3))]
    if power == "pappagallo":
        previous = next((c["text"] for c in reversed(v["clues"]) if not c["skipped"]), None)
        if previous:
            words[0] = rng.choice(texts.clue_words(previous))
    return " ".join(words)


def _random_options(rng: random.Random, preset: str, n: int) -> dict[str, Any] | None:
    """Mostly the preset's defaults; sometimes every power, to exercise them all."""
    p = get_preset(preset)
    if p.name == "intruso":
        return None
    if rng.random() < 0.5:
        return {"powers": "auto", "fantasmi": "auto" if p.max_fantasmi else 0}
    return None


def play(
    preset: str,
    n: int,
    seed: int,
    options: dict[str, Any] | None = None,
    p_timeout: float = 0.08,
    oracle_guess: float = 0.3,
    check_illegal: bool = True,
) -> tuple[GameState, list[str], int]:
    """Play one random game; returns (final state, invariants broken, steps)."""
    rng = random.Random(seed)
    broken: list[str] = []
    players = [{"id": f"p{i}", "name": f"P{i}"} for i in range(n)]
    state = new_game(preset, options, seed, players, 0.0)
    broken += start_invariants(state)
    lang = state.options["lang"]
    pool = [w for pair in wordlist.load_pairs(lang)[:40] for w in (pair.a, pair.b)]
    now = 0.0
    steps = 0
    while state.phase != "over":
        steps += 1
        if steps > MAX_STEPS:
            broken.append(f"seed {seed}: no end after {MAX_STEPS} steps")
            break
        views = {p["id"]: view(state, p["id"]) for p in players}
        actors = [pid for pid, v in views.items() if v["me"]["can"]]
        if check_illegal and steps % 7 == 0:
            broken += illegal_invariants(state, views, now, seed)
        if not actors or rng.random() < p_timeout:
            deadline = state.deadline
            if deadline is None:
                broken.append(f"seed {seed}: no deadline in phase {state.phase}")
                break
            now = max(now, deadline)
            state, _ = tick(state, now)
            continue
        pid = rng.choice(actors)
        v = views[pid]
        if "guess" in v["me"]["can"] and rng.random() < oracle_guess:
            action: dict[str, Any] | None = {"type": "guess", "word": state.word_civili}
        else:
            action = random_action(rng, v, pool)
        if action is None:
            continue
        now += rng.choice([0.0, 0.2, 1.0])
        if state.deadline is not None:
            now = min(now, state.deadline - 0.01)
        try:
            state, _ = apply(state, pid, action, now)
        except GameError as exc:
            # A random swap may hit a player without a word; anything else is a bug.
            if not (action["type"] == "swap" and exc.code == "not_allowed"):
                broken.append(f"seed {seed}: legal {action} by {pid} refused: {exc.code}")
                break
    broken += end_invariants(state, seed)
    return state, broken, steps


def start_invariants(s: GameState) -> list[str]:
    """Counts at the start: Civili outnumber infiltrators; roles fit the preset."""
    out = []
    civili = sum(pl.role == CIVILE for pl in s.players)
    if civili <= len(s.players) - civili:
        out.append(f"seed {s.seed}: Civili do not outnumber the infiltrators")
    if s.preset == "sosia" and any(pl.role == FANTASMA for pl in s.players):
        out.append(f"seed {s.seed}: a Fantasma in Sosia")
    twins = [pl for pl in s.players if pl.power == "gemelli"]
    if twins and (len(twins) != 2 or any(pl.role != CIVILE for pl in twins)):
        out.append(f"seed {s.seed}: Gemelli are not two Civili")
    if any(pl.power == "sabotatore" and pl.word is None for pl in s.players):
        out.append(f"seed {s.seed}: a Sabotatore without a word")
    return out


def illegal_invariants(
    s: GameState, views: dict[str, dict], now: float, seed: int
) -> list[str]:
    """An eliminated player cannot act; an action out of phase changes nothing."""
    out = []
    before = state_bytes(s)
    attempts = []
    for pid, v in views.items():
        if not v["me"]["alive"] and not v["me"]["can"]:
            target = next((p["id"] for p in v["players"] if p["id"] != pid and p["alive"]), pid)
            attempts.append((pid, {"type": "vote", "target": target}, ("dead_player", "wrong_phase")))
            break
    idle = next((pid for pid, v in views.items() if not v["me"]["can"]), None)
    if idle is not None and s.phase != "over":
        attempts.append((idle, {"type": "judge", "target": idle}, None))
    for pid, action, codes in attempts:
        try:
            apply(s, pid, action, now)
        except GameError as exc:
            if codes and exc.code not in codes:
                out.append(f"seed {seed}: {action} by {pid} gave {exc.code}")
        else:
            out.append(f"seed {seed}: illegal {action} by {pid} accepted in {s.phase}")
        if state_bytes(s) != before:
            out.append(f"seed {seed}: a refused action changed the state")
    return out


def end_invariants(s: GameState, seed: int) -> list[str]:
    """Exactly one outcome, with winners that fit it."""
    out = []
    if s.phase != "over":
        return out
    if s.outcome not in ("civili", "infiltrati", "fantasma", "buffone"):
        out.append(f"seed {seed}: outcome {s.outcome!r}")
        return out
    winners = set(s.winners)
    if not winners:
        out.append(f"seed {seed}: nobody won")
    civili = {pl.id for pl in s.players if pl.role == CIVILE}
    camp = {pl.id for pl in s.players if pl.role != CIVILE}
    if s.outcome == "civili" and not civili <= winners:
        out.append(f"seed {seed}: Civili won but not all of them are winners")
    if s.outcome == "infiltrati" and not camp <= winners:
        out.append(f"seed {seed}: infiltrators won but not all of them are winners")
    if s.outcome == "civili" and any(pl.alive for pl in s.players if pl.id in camp):
        out.append(f"seed {seed}: Civili won with an infiltrator alive")
    extra = winners - (civili if s.outcome == "civili" else camp) - set(s.cupid)
    if s.outcome in ("civili", "infiltrati") and extra:
        out.append(f"seed {seed}: unexpected winners {sorted(extra)}")
    return out


def run(preset: str = "intruso", players: int = 8, games: int = 200, seed: int = 1) -> dict:
    """Play `games` random legal games of `preset` with `players` players; report figures."""
    get_preset(preset)
    rng = random.Random(seed)
    report: dict[str, Any] = {
        "preset": preset,
        "players": players,
        "games": games,
        "finished": 0,
        "wins": {},
        "cupid_cowins": 0,
        "longest_rounds": 0,
        "longest_steps": 0,
        "invariants_broken": [],
    }
    for _ in range(games):
        game_seed = rng.randrange(2**31)
        options = _random_options(rng, preset, players)
        try:
            state, broken, steps = play(preset, players, game_seed, options)
        except GameError as exc:
            report["invariants_broken"].append(f"seed {game_seed}: {exc.code} {exc.message}")
            continue
        report["invariants_broken"] += broken
        report["longest_rounds"] = max(report["longest_rounds"], state.round)
        report["longest_steps"] = max(report["longest_steps"], steps)
        if state.phase == "over":
            report["finished"] += 1
            report["wins"][state.outcome] = report["wins"].get(state.outcome, 0) + 1
            if len(state.cupid) == 2 and set(state.cupid) <= set(state.winners):
                if state.outcome in ("civili", "infiltrati"):
                    report["cupid_cowins"] += 1
    return report
