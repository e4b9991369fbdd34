"""Property tests: random presets, tables, power sets and legal play.

Every game ends within a bound, the invariants of `game.simulate` hold, an
illegal action leaves the state byte for byte unchanged, a replay of the log
gives the same bytes, and no view ever shows a player a word, role, power or
vote the rules do not reveal to them.
"""

from __future__ import annotations

import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from game import GameError, apply, new_game, replay, state_bytes, tick, view
from game.simulate import MAX_STEPS, play, random_action
from game.undercover.state import POWERS, ROLES, GameState

FAST = settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)


@st.composite
def games(draw, max_players: int = 16) -> tuple[str, int, int, dict[str, Any]]:
    preset = draw(st.sampled_from(["intruso", "infiltre", "sosia"]))
    n = draw(st.integers(3, max_players))
    seed = draw(st.integers(0, 2**31 - 1))
    powers = draw(
        st.one_of(
            st.just("auto"),
            st.lists(st.sampled_from(POWERS), unique=True, max_size=max(0, n - 1)).filter(
                lambda ps: len(ps) + ("gemelli" in ps) <= n
            ),
        )
    )
    options: dict[str, Any] = {"powers": powers}
    if preset != "sosia":
        options["fantasmi"] = draw(st.sampled_from(["auto", 0, 1]))
    if draw(st.booleans()):
        options["eliminated_speak"] = True
    return preset, n, seed, options


def secrets_shown(state: GameState, pid: str, v: dict) -> list[str]:
    """What `v` shows `pid` that the rules do not reveal to them (empty when nothing)."""
    if state.phase == "over":
        return []
    me = state.player(pid)
    shown: list[str] = []
    allowed_role = {me.role} if me.role == "fantasma" else set()
    v = dict(v, preset=None, me=dict(v["me"], word=None, power=None, role=None, muted=None))
    for p in v["players"]:
        if p["revealed_role"] is not None:
            if p["alive"]:
                shown.append(f"role of living {p['id']}")
    strings: list[str] = []

    def walk(x: Any, key: str = "") -> None:
        if isinstance(x, dict):
            for k, val in x.items():
                if k in ("revealed_role", "role") and val in ROLES and key in ("players", "eliminations"):
                    continue  # revealed roles of eliminated players are public
                walk(val, k)
        elif isinstance(x, list):
            for val in x:
                walk(val, key)
        elif isinstance(x, str):
            strings.append(x)

    walk(v)
    for word in {state.word_civili, state.word_intrusi} - {me.word}:
        if word in strings:
            shown.append(f"word {word!r}")
    shown += [f"power {s}" for s in strings if s in POWERS]
    shown += [f"role {s}" for s in strings if s in ROLES and s not in allowed_role]
    if v["phase"] in ("vote", "revote") and v["vote_counts"] is not None:
        shown.append("vote counts during the vote")
    if v["me"]["vote"] is not None and state.votes.get(pid) != v["me"]["vote"]:
        shown.append("someone else's vote")
    if v["acting"] is not None and v["phase"] == "judge" and v["acting"] != pid:
        shown.append("the Giudice")
    return shown


def spectator_secrets(state: GameState, v: dict) -> list[str]:
    """What a spectator's view shows that no seat may see (empty when nothing)."""
    if state.phase == "over":
        return []
    shown = []
    if v["me"] is not None:
        shown.append("a player's own card")
    v = dict(v, preset=None)   # "intruso" is a preset's name as well as a role
    strings: list[str] = []

    def walk(x: Any, key: str = "") -> None:
        if isinstance(x, dict):
            for k, val in x.items():
                if k in ("revealed_role", "role") and key in ("players", "eliminations"):
                    continue
                walk(val, k)
        elif isinstance(x, list):
            for val in x:
                walk(val, key)
        elif isinstance(x, str):
            strings.append(x)

    walk(v)
    shown += [f"word {w!r}" for w in (state.word_civili, state.word_intrusi) if w in strings]
    shown += [f"power {s}" for s in strings if s in POWERS]
    shown += [f"role {s}" for s in strings if s in ROLES]
    if v["phase"] == "judge" and v["acting"] is not None:
        shown.append("the Giudice")
    if any(p["whisper_ok"] for p in v["players"]):
        shown.append("whisper targets")
    return shown


@FAST
@given(games())
def test_random_legal_games_end_and_keep_their_invariants(g):
    """Every game ends within MAX_STEPS steps with exactly one outcome; no invariant breaks."""
    preset, n, seed, options = g
    state, broken, steps = play(preset, n, seed, options)
    assert broken == []
    assert state.phase == "over" and steps <= MAX_STEPS
    assert state.outcome in ("civili", "infiltrati", "fantasma", "buffone") and state.winners


@FAST
@given(games(max_players=9))
def test_no_view_shows_a_secret_the_rules_do_not_reveal(g):
    """view(state, pid) contains only what pid may know (words, roles, powers, votes);
    view(state, None), a spectator's, only what every player may see."""
    preset, n, seed, options = g
    state = new_game(preset, options, seed, [{"id": f"p{i}", "name": f"P{i}"} for i in range(n)], 0)
    rng = random.Random(seed)
    t = 0.0
    for _ in range(400):
        if state.phase == "over":
            break
        views = {pl.id: view(state, pl.id) for pl in state.players}
        for pid, v in views.items():
            assert secrets_shown(state, pid, v) == [], (pid, state.phase)
        assert spectator_secrets(state, view(state, None)) == [], state.phase
        actors = [pid for pid, v in views.items() if v["me"]["can"]]
        # Without a timer (Sosia's default, 002) only the players move the game on.
        assert actors or state.deadline is not None, state.phase
        if state.deadline is not None and (not actors or rng.random() < 0.1):
            t = state.deadline
            state, _ = tick(state, t)
            continue
        pid = rng.choice(actors)
        action = random_action(rng, views[pid], ["zzzz"])
        if action is None:
            continue
        try:
            state, _ = apply(state, pid, action, t)
        except GameError:
            pass
    if state.phase == "over":
        everything = view(state, "p0")["result"]
        assert {p["word"] for p in everything["players"]} <= {
            state.word_civili,
            state.word_intrusi,
            None,
        }


ILLEGAL = [
    {"type": "vote", "target": "p0"},
    {"type": "clue", "text": "zorp"},
    {"type": "ready"},
    {"type": "judge", "target": "p1"},
    {"type": "guess", "word": "x"},
    {"type": "swap", "target": "p2"},
    {"type": "bind", "target": "p1"},
    {"type": "avenge", "target": "p1"},
    {"type": "clue", "text": "uno due tre quattro cinque sei"},
    {"type": "vote"},
    {"type": "nope"},
]


@FAST
@given(games(max_players=8), st.integers(0, 10_000))
def test_refused_actions_leave_the_state_unchanged_and_replays_match(g, salt):
    """A GameError changes nothing; the log of accepted actions replays byte for byte."""
    preset, n, seed, options = g
    ps = [{"id": f"p{i}", "name": f"P{i}"} for i in range(n)]
    state = new_game(preset, options, seed, ps, 5.0)
    rng = random.Random(salt)
    log: list[dict] = []
    t = 5.0
    for _ in range(150):
        if state.phase == "over":
            break
        if state.deadline is not None and state.deadline <= t:
            state, _ = tick(state, t)  # a late action was refused: time has passed anyway
            log.append({"t": t, "player": None, "action": {"type": "tick"}})
        pid = f"p{rng.randrange(n)}"
        v = view(state, pid)
        illegal = rng.random() < 0.3 or not v["me"]["can"]
        action = rng.choice(ILLEGAL) if illegal else random_action(rng, v, ["zzzz"])
        if action is None:
            continue
        # Sometimes the action comes late: the deadline passes first and the view is stale.
        late = rng.random() < 0.1 and state.deadline is not None
        t = state.deadline + rng.choice([0.0, 3.0]) if late else t + 0.25
        risky = illegal or late or action["type"] == "swap"
        before = state_bytes(state) if risky else None
        try:
            state, _ = apply(state, pid, action, t)
        except GameError:
            assert before is not None, f"legal {action} by {pid} refused"
            assert state_bytes(state) == before
            continue
        log.append({"t": t, "player": pid, "action": action})
    again = replay(preset, options, seed, ps, log, started_at=5.0)
    assert state_bytes(again) == state_bytes(state)
