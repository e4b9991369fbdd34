"""Lupi Mannari property tests: random tables, options and legal play.

Every game ends within a bound with one faction winning whole, the invariants of
`game.werewolf.sim` hold, an illegal action leaves the state byte for byte unchanged,
a replay of the log gives the same bytes, and no view (a spectator's included) shows a
card, a night choice or a secret ballot the rules do not reveal to its reader.
"""

from __future__ import annotations

import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from game import GameError, apply, new_game, replay, state_bytes, tick, view
from game.simulate import MAX_STEPS, play, random_action
from game.werewolf.state import ROLES, GameState

FAST = settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)


@st.composite
def tables(draw, max_players: int = 16) -> tuple[int, int, dict[str, Any]]:
    moderator = draw(st.booleans())
    holders = draw(st.integers(4, max_players - int(moderator)))
    seed = draw(st.integers(0, 2**31 - 1))
    options: dict[str, Any] = {"veggente": draw(st.booleans())}
    if holders < 8 or draw(st.booleans()):
        options["lupi"] = draw(st.integers(1, (holders - 2) // 2))
    if moderator:
        options["moderator"] = "p0"  # the first seat runs the game
    return holders + int(moderator), seed, options


def seats(n: int) -> list[dict[str, str]]:
    return [{"id": f"p{i}", "name": f"P{i}"} for i in range(n)]


def secrets_shown(s: GameState, pid: str | None, v: dict) -> list[str]:
    """What `v` shows its reader that the rules do not reveal to them (empty when nothing)."""
    if s.phase == "over":
        return []
    if s.is_moderator(pid):
        return []  # the moderator sees everything
    shown: list[str] = []
    if v["secrets"] is not None:
        shown.append("the moderator's secrets")
    me = v["me"]
    strings: list[str] = []

    def walk(x: Any) -> None:
        if isinstance(x, dict):
            for k, val in x.items():
                if k != "role":
                    walk(val)
        elif isinstance(x, list):
            for val in x:
                walk(val)
        elif isinstance(x, str):
            strings.append(x)

    walk({k: x for k, x in v.items() if k != "me"})
    shown += [f"card {r}" for r in strings if r in ROLES]
    if v["phase"] in ("nomination", "lynch") and v["vote_counts"] is not None:
        shown.append("counts during a ballot")
    if pid is None:
        if me is not None:
            shown.append("a spectator has a card")
        return shown
    pl = s.player(pid)
    if me["role"] != pl.role:
        shown.append("a wrong card")
    if me["pack"] and (pl.role != "lupo" or set(me["pack"]) != set(s.wolves(alive_only=False))):
        shown.append("the pack")
    if me["pack_picks"] is not None and not (pl.role == "lupo" and pl.alive
                                             and s.phase == "wolves"):
        shown.append("the wolves' picks")
    if me["seen"] and pl.role != "veggente":
        shown.append("the seer's looks")
    if me["vote"] is not None and s.votes.get(pid) != me["vote"]:
        shown.append("someone else's vote")
    return shown


@FAST
@given(tables())
def test_random_legal_games_end_and_keep_their_invariants(t):
    """Every game ends within MAX_STEPS steps with one faction winning; no invariant breaks."""
    n, seed, options = t
    state, broken, steps = play("lupi", n, seed, options)
    assert broken == []
    assert state.phase == "over" and steps <= MAX_STEPS
    assert state.outcome in ("lupi", "umani") and state.winners


@FAST
@given(tables(max_players=10))
def test_no_view_shows_a_secret_the_rules_do_not_reveal(t):
    """view(state, pid) holds only what pid may know; view(state, None), a spectator's, only
    what everyone may see; the moderator sees everything."""
    n, seed, options = t
    state = new_game("lupi", options, seed, seats(n), 0)
    rng = random.Random(seed)
    now = 0.0
    readers = [pl.id for pl in state.players] + ([state.moderator["id"]] if state.moderator else [])
    for _ in range(300):
        if state.phase == "over":
            break
        views = {pid: view(state, pid) for pid in readers}
        for pid, v in views.items():
            assert secrets_shown(state, pid, v) == [], (pid, state.phase, secrets_shown(state, pid, v))
        assert secrets_shown(state, None, view(state, None)) == [], state.phase
        actors = [pid for pid, v in views.items() if v["me"]["can"]]
        if not actors or rng.random() < 0.15:
            now = state.deadline
            state, _ = tick(state, now)
            continue
        pid = rng.choice(actors)
        action = random_action(rng, views[pid], [])
        if action is not None:
            state, _ = apply(state, pid, action, now)
    if state.phase == "over":
        assert {p["role"] for p in view(state, None)["result"]["players"]} <= set(ROLES)


ILLEGAL = [
    {"type": "peek", "target": "p1"},
    {"type": "bite", "target": "p2"},
    {"type": "vote", "target": "p0"},
    {"type": "vote", "target": "p3"},
    {"type": "ready"},
    {"type": "advance"},
    {"type": "vote"},
    {"type": "nope"},
    {"type": "bite", "target": ["p1"]},
]


@FAST
@given(tables(max_players=10), st.integers(0, 10_000))
def test_refused_actions_leave_the_state_unchanged_and_replays_match(t, salt):
    """A GameError changes nothing; the log of accepted actions replays byte for byte."""
    n, seed, options = t
    ps = seats(n)
    state = new_game("lupi", options, seed, ps, 5.0)
    rng = random.Random(salt)
    log: list[dict] = []
    now = 5.0
    for _ in range(200):
        if state.phase == "over":
            break
        if state.deadline is not None and state.deadline <= now:
            state, _ = tick(state, now)
            log.append({"t": now, "player": None, "action": {"type": "tick"}})
        pid = f"p{rng.randrange(n)}"
        v = view(state, pid)
        illegal = rng.random() < 0.3 or not v["me"]["can"]
        action = rng.choice(ILLEGAL) if illegal else random_action(rng, v, [])
        if action is None:
            now += 1.0
            continue
        late = rng.random() < 0.1 and state.deadline is not None
        now = state.deadline + rng.choice([0.0, 3.0]) if late else now + 0.5
        before = state_bytes(state)
        try:
            state, _ = apply(state, pid, action, now)
        except GameError:
            assert illegal or late, f"legal {action} by {pid} refused in {state.phase}"
            assert state_bytes(state) == before
            continue
        log.append({"t": now, "player": pid, "action": action})
    again = replay("lupi", options, seed, ps, log, started_at=5.0)
    assert state_bytes(again) == state_bytes(state)
