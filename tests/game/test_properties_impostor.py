"""Property tests of the impostor engine (as tests/game/test_properties.py for the undercover
one): random styles, tables, options and legal play.

Every game ends with one outcome and the invariants of `game.simulate`; a refused action
changes nothing and the log replays byte for byte; no view shows a player (or a
spectator) a word, hint, category, role or ballot the rules do not reveal; and "Non
conosco la parola" is anonymous: what every other player receives is the same whoever
asked.
"""

from __future__ import annotations

import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from game import GameError, apply, cues, new_game, replay, state_bytes, tick, view
from game.impostor.state import ROLES, GameState
from game.simulate import MAX_STEPS, play, random_action

from .impostor_scenario import WORDS

FAST = settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
TIMERS = {"clue": 30, "discuss": 120, "guess": 30}


@st.composite
def games(draw, max_players: int = 16, timed: bool | None = None) -> tuple[str, int, int, dict]:
    preset = draw(st.sampled_from(["classica", "caos", "esperti"]))
    n = draw(st.integers(3, max_players))
    seed = draw(st.integers(0, 2**31 - 1))
    most = max(1, (n - 1) // 2)
    options: dict[str, Any] = {
        "impostors": draw(st.one_of(st.just("random"), st.integers(1, most))),
        "tell_count": draw(st.booleans()),
        "impostor_info": draw(st.sampled_from(["hint", "category", "nothing"])),
        "impostors_know": draw(st.booleans()),
        "roles": draw(st.lists(st.sampled_from(["complice", "gemelli", "pagliaccio"]),
                               unique=True)),
        "rounds": draw(st.integers(1, 3)),
        "turns": draw(st.sampled_from(["guided", "free"])),
        "floor": draw(st.booleans()),
        "first_innocent": draw(st.booleans()),
        "win_mode": draw(st.sampled_from(["first_vote", "elimination"])),
        "secret_vote": draw(st.booleans()),
        "eliminated_speak": draw(st.booleans()),
    }
    if timed if timed is not None else draw(st.booleans()):
        options["timers"] = dict(TIMERS)
    return preset, n, seed, options


def _players(n: int) -> list[dict[str, str]]:
    return [{"id": f"p{i}", "name": f"P{i}"} for i in range(n)]


def _start(g, now: float = 0.0) -> GameState:
    preset, n, seed, options = g
    return new_game(preset, options, seed, _players(n), now, words=WORDS)


@FAST
@given(games())
def test_random_legal_games_end_and_keep_their_invariants(g):
    """Every game ends within MAX_STEPS steps with one outcome; no invariant breaks; a phase
    without a timer always has someone who can act."""
    preset, n, seed, options = g
    state, broken, steps = play(preset, n, seed, options)
    assert broken == []
    assert state.phase == "over" and steps <= MAX_STEPS
    assert state.outcome in ("innocents", "impostors", "pagliaccio") and state.winners


def _strings(x: Any, skip: tuple[str, ...] = ()) -> list[str]:
    out: list[str] = []

    def walk(v: Any, key: str = "") -> None:
        if key in skip:
            return
        if isinstance(v, dict):
            for k, val in v.items():
                walk(val, k)
        elif isinstance(v, list):
            for val in v:
                walk(val, key)
        elif isinstance(v, str):
            out.append(v)

    walk(x)
    return out


WORD_STRINGS = {w["word"] for w in WORDS["words"]}
HINT_STRINGS = {h for w in WORDS["words"] for h in w["hints"]}


def secrets_shown(s: GameState, pid: str | None, v: dict) -> list[str]:
    """What `v` shows that the rules do not reveal to `pid` (None: a spectator)."""
    if s.phase == "over":
        return []
    shown: list[str] = []
    me = s.player(pid) if pid is not None else None
    impostor = me is not None and me.role == "impostore"
    info = s.options["impostor_info"]
    public = dict(v, me=None)
    # Revealed roles are checked below; `roles` lists the optional roles in play (public).
    strings = _strings(public, skip=("revealed_role", "role", "roles"))
    mine = v["me"] or {}
    words_ok = set(s.words_seen) if me is not None and not impostor else set()
    for word in WORD_STRINGS - words_ok:
        if word in strings or word in _strings(mine):
            shown.append(f"word {word!r}")
    hint_ok = {s.hint} if impostor and info == "hint" else set()
    for hint in HINT_STRINGS - hint_ok:
        if hint in strings + _strings(mine):
            shown.append(f"hint {hint!r}")
    if s.category in strings:
        shown.append("the category in public")
    if mine.get("category") and impostor and info != "category":
        shown.append("the category to an impostor")
    if me is None and v["me"] is not None:
        shown.append("a card to a spectator")
    out = {e.player for e in s.eliminations}
    for p in v["players"]:
        if p["revealed_role"] is not None and p["id"] not in out:
            shown.append(f"role of {p['id']} in play")
    shown += [f"role {r}" for r in strings if r in ROLES]
    if mine.get("role") is not None and mine["role"] != me.role:
        shown.append("a wrong role")
    for fact in mine.get("known", []):
        other = s.player(fact["player"])
        ok = (fact["fact"] == "twin" and me.role == other.role == "gemello") or (
            fact["fact"] == "impostor" and other.role == "impostore"
            and (me.role == "complice" or (impostor and s.options["impostors_know"])))
        if not ok:
            shown.append(f"fact {fact}")
    if s.options["secret_vote"]:
        if any(p["vote"] is not None for p in v["players"]) or v["ballot"] is not None:
            shown.append("who voted whom under the secret vote")
    if v["phase"] in ("vote", "runoff") and v["vote_counts"] is not None:
        shown.append("the tally while voting")
    if mine.get("impostor_count") is not None and not (
            impostor and s.options["tell_count"]):
        shown.append("the impostor count")
    return shown


@FAST
@given(games(max_players=10))
def test_no_view_shows_a_secret_the_rules_do_not_reveal(g):
    """view(state, pid) holds only what pid may know; view(state, None) the public part."""
    preset, n, seed, options = g
    state = _start(g)
    rng = random.Random(seed)
    t = 0.0
    for _ in range(300):
        if state.phase == "over":
            break
        views = {pl.id: view(state, pl.id) for pl in state.players}
        for pid, v in views.items():
            assert secrets_shown(state, pid, v) == [], (pid, state.phase)
        assert secrets_shown(state, None, view(state, None)) == [], state.phase
        actors = [pid for pid, v in views.items() if v["me"]["can"]]
        if state.deadline is not None and (not actors or rng.random() < 0.1):
            t = state.deadline
            state, _ = tick(state, t)
            continue
        pid = rng.choice(actors)
        action = random_action(rng, views[pid], ["gatto", "zebra"])
        if action is None:
            continue
        t += 1.0
        try:
            state, _ = apply(state, pid, action, t)
        except GameError:
            pass
    if state.phase == "over":
        r = view(state, "p0")["result"]
        assert r["word"] == state.word and r["words_dealt"] == state.words_seen


ILLEGAL = [
    {"type": "vote", "target": "p0"},
    {"type": "seen"},
    {"type": "ask_word"},
    {"type": "word_vote", "change": True},
    {"type": "word_vote", "change": "yes"},
    {"type": "done"},
    {"type": "ready"},
    {"type": "guess", "word": "gatto"},
    {"type": "clue", "text": "zorp"},
    {"type": "vote"},
    {"type": "nope"},
]


@FAST
@given(games(max_players=8, timed=True), st.integers(0, 10_000))
def test_refused_actions_leave_the_state_unchanged_and_replays_match(g, salt):
    """A GameError changes nothing; the log of accepted actions replays byte for byte."""
    preset, n, seed, options = g
    state = _start(g, 5.0)
    rng = random.Random(salt)
    log: list[dict] = []
    t = 5.0
    for _ in range(150):
        if state.phase == "over":
            break
        if state.deadline is not None and state.deadline <= t:
            state, _ = tick(state, t)
            log.append({"t": t, "player": None, "action": {"type": "tick"}})
        pid = f"p{rng.randrange(n)}"
        v = view(state, pid)
        illegal = rng.random() < 0.3 or not v["me"]["can"]
        action = rng.choice(ILLEGAL) if illegal else random_action(rng, v, ["gatto"])
        if action is None:
            continue
        late = rng.random() < 0.1 and state.deadline is not None
        t = state.deadline + rng.choice([0.0, 3.0]) if late else t + 0.25
        before = state_bytes(state)
        try:
            state, _ = apply(state, pid, action, t)
        except GameError:
            assert illegal or late, f"legal {action} by {pid} refused"
            assert state_bytes(state) == before
            continue
        log.append({"t": t, "player": pid, "action": action})
    again = replay(preset, options, seed, _players(n), log, started_at=5.0, words=WORDS)
    assert state_bytes(again) == state_bytes(state)


@FAST
@given(games(max_players=9), st.integers(0, 10_000), st.data())
def test_the_word_request_is_anonymous(g, salt, data):
    """002 §2: nessuno saprà chi è stato. Whoever of two players asks, every other player and
    a spectator get the same views and the same cues, step after step (the game goes on the
    same way: the same votes, the same looks at the card, the same clocks)."""
    preset, n, seed, options = g
    base = _start(g)
    rng = random.Random(salt)
    t = 0.0
    for pid in rng.sample([p.id for p in base.players], rng.randrange(n)):
        t += 1.0
        base, _ = apply(base, pid, {"type": "seen"}, t)
        if base.phase != "card":
            return  # everyone has seen: no request possible any more
    a, b = data.draw(st.lists(st.sampled_from([p.id for p in base.players]), min_size=2,
                              max_size=2, unique=True))
    others = [p.id for p in base.players if p.id not in (a, b)] + [None]
    script = [(pid, {"type": "word_vote", "change": rng.random() < 0.5})
              for pid in rng.sample([p.id for p in base.players], n)]
    script += [(pid, {"type": "seen"}) for pid in rng.sample([p.id for p in base.players], n)]
    branches = []
    for asker in (a, b):
        s, ev = apply(base, asker, {"type": "ask_word"}, t + 1.0)
        trace = [({o: view(s, o) for o in others}, [(c, sorted(set(ls) - {a, b}))
                                                    for c, ls in cues(s, ev)])]
        clock = t + 1.0
        for pid, action in script:
            clock += 0.5
            try:
                s, ev = apply(s, pid, action, clock)
            except GameError as exc:
                trace.append(("refused", pid, exc.code))
                continue
            trace.append(({o: view(s, o) for o in others},
                          [(c, sorted(set(ls) - {a, b})) for c, ls in cues(s, ev)]))
        branches.append(trace)
    assert branches[0] == branches[1]
