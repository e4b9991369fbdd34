"""A secret ballot stays secret, in every engine, also at the end (issue 29 items 2 and 4).

002 "Voto segreto: si vedono solo i voti presi da ciascuno, non chi ha votato chi";
Intruso's and Infiltré's votes are always secret (docs/rules.md §5); Lupi's lynch is
secret (004). What is public: each ballot's tally, who has voted while it is open, the
roles revealed, the points (002's own scoring) and, in Lupi, who named whom in the
nomination. So two games that differ only in who voted whom in a secret ballot, with the
same public facts, must look exactly the same to every bystander and to a spectator:
every view after every step, the sound cues, the result (its stats too) and the
evening built from it (points, podium, awards).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from game import cues, evening, result, view

from . import impostor_scenario as imp
from . import lupi_scenario as lupi
from . import scenario as uc

FAST = settings(max_examples=40, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow])


class Watch:
    """Drive a game (any scenario's `Play`) and record what each bystander receives."""

    def __init__(self, play: Any, bystanders: list[str | None]) -> None:
        self.p = play
        self.who = bystanders
        self.seen: dict[str | None, list[dict]] = {pid: [] for pid in bystanders}
        self.heard: list[list[tuple[str, list[str]]]] = []
        self.record([])

    def record(self, events: list[dict]) -> None:
        for pid in self.who:
            v = view(self.p.s, pid)
            if not self.seen[pid] or self.seen[pid][-1] != v:
                self.seen[pid].append(v)
        watched = set(self.who)
        self.heard.append([(name, sorted(set(ls) & watched)) for name, ls in
                           cues(self.p.s, events)])

    def act(self, pid: str, **action: Any) -> None:
        self.record(self.p.act(pid, **action))

    def timeout(self) -> None:
        self.record(self.p.timeout())

    def votes(self, ballot: list[tuple[str, str]]) -> None:
        for voter, target in ballot:
            self.act(voter, type="vote", target=target)

    def told(self) -> dict[str, Any]:
        """Everything the bystanders got, and the evening of three such games."""
        res = result(self.p.s)
        assert res is not None
        return {"views": self.seen, "cues": self.heard, "result": res,
                "evening": evening([res, res, res])}


def _swap(ballot: list[tuple[str, str]], a: str, b: str) -> list[tuple[str, str]]:
    """The same ballot, cast in the same order, with `a`'s and `b`'s targets swapped."""
    target = dict(ballot)
    return [(v, target[b] if v == a else target[a] if v == b else t) for v, t in ballot]


def _tally(ballot: list[tuple[str, str]]) -> dict[str, int]:
    out: dict[str, int] = {}
    for _, t in ballot:
        out[t] = out.get(t, 0) + 1
    return out


def _assert_same_for_bystanders(play: Callable[[list[tuple[str, str]]], dict],
                                first: list[tuple[str, str]], a: str, b: str) -> None:
    other = _swap(first, a, b)
    assert other != first and _tally(other) == _tally(first)
    one, two = play(first), play(other)
    assert one["result"]["points"] == two["result"]["points"]  # public by the rules
    for key in ("result", "evening", "cues"):
        assert one[key] == two[key], key
    for pid, views in one["views"].items():
        assert views == two["views"][pid], f"bystander {pid} can tell who voted whom"


# ---------------------------------------------------------------- Impostore (002)

# Esperti, 5 players, p4 the impostor. A tie p1/p4, then a runoff that everyone but p4
# votes p4: every innocent found the impostor (1 point each) either way; only who voted
# p4 twice differs when p0 and p1 swap their first votes.
ESPERTI_FIRST = [("p0", "p4"), ("p1", "p3"), ("p2", "p4"), ("p3", "p1"), ("p4", "p1")]
ESPERTI_RUNOFF = [("p0", "p4"), ("p1", "p4"), ("p2", "p4"), ("p3", "p4"), ("p4", "p1")]


def _esperti(first: list[tuple[str, str]]) -> dict[str, Any]:
    g = imp.Play(imp.start("esperti", n=5, roles={"p4": "impostore"}))
    w = Watch(g, ["p2", "p3", "p4", None])
    g.seen()
    g.clues()
    w.record([])
    w.votes(first)
    assert g.s.phase == "runoff"
    w.votes(ESPERTI_RUNOFF)
    assert g.s.phase == "guess"
    w.act("p4", type="guess", word="zebra")
    assert g.s.outcome == "innocents"
    return w.told()


def test_002_esperti_secret_vote_bystanders_cannot_tell_who_voted_whom_even_at_the_end():
    """Issue 29 item 2 (Esperti, 5 players): p0 and p1 swap their first votes; the
    tallies and the points are the same, so nothing p2, p3, p4 or a spectator gets
    (views, cues, result and its stats, the evening's awards) may differ."""
    _assert_same_for_bystanders(_esperti, ESPERTI_FIRST, "p0", "p1")


# Classica with the secret vote, 8 players: p7 the impostor, p6 the Complice. p0 (an
# innocent) and p6 swap their first votes (p7 / p1); the runoff p1-p7 is the same.
CLASSICA_FIRST = [("p0", "p1"), ("p1", "p7"), ("p2", "p7"), ("p3", "p1"), ("p4", "p2"),
                  ("p5", "p3"), ("p6", "p7"), ("p7", "p1")]
CLASSICA_RUNOFF = [(f"p{i}", "p7") for i in range(7)] + [("p7", "p1")]


def _classica_secret(first: list[tuple[str, str]]) -> dict[str, Any]:
    g = imp.Play(imp.start("classica", n=8, roles={"p7": "impostore", "p6": "complice"},
                           options={"secret_vote": True, "roles": ["complice"]}))
    w = Watch(g, ["p1", "p2", "p3", "p4", "p5", "p7", None])
    g.seen()
    g.clues()
    w.record([])
    w.votes(first)
    assert g.s.phase == "runoff"
    w.votes(CLASSICA_RUNOFF)
    w.act("p7", type="guess", word="zebra")
    assert g.s.outcome == "innocents"
    return w.told()


def test_002_classica_secret_vote_with_a_complice_keeps_the_complice_vote_secret():
    """Issue 29 item 2 (Classica with `secret_vote`, 8 players with a Complice): whether
    the Complice voted the impostor or an innocent is told to nobody, not by the stats."""
    _assert_same_for_bystanders(_classica_secret, CLASSICA_FIRST, "p0", "p6")


@st.composite
def _secret_games(draw) -> tuple[list[list[tuple[str, str]]], int, str, str]:
    """An Esperti game at 5 to 7 players: every ballot's votes, the ballot whose two
    voters swap their targets, and the two voters."""
    n = draw(st.integers(5, 7))
    ids = [f"p{i}" for i in range(n)]
    first = [(v, draw(st.sampled_from([t for t in ids if t != v]))) for v in ids]
    top = max(_tally(first).values())
    tied = [t for t, k in _tally(first).items() if k == top]
    ballots = [first]
    if len(tied) > 1:
        ballots.append([(v, draw(st.sampled_from([t for t in tied if t != v]))) for v in ids])
    which = draw(st.integers(0, len(ballots) - 1))
    a, b = draw(st.lists(st.sampled_from(ids), min_size=2, max_size=2, unique=True))
    return ballots, which, a, b


@FAST
@given(_secret_games())
def test_002_secret_vote_any_swap_that_keeps_the_points_is_invisible(game):
    """Issue 29 item 2, property: in a secret-vote game two voters swap their targets in
    one ballot (tallies unchanged); when the points (public) stay the same, everyone else
    and a spectator get exactly the same views, cues, result and evening."""
    ballots, which, a, b = game
    swapped = list(ballots)
    swapped[which] = _swap(ballots[which], a, b)
    assume(swapped[which] != ballots[which])
    assume(all(v != t for v, t in swapped[which]))
    n = len(ballots[0])
    impostor = f"p{n - 1}"
    bystanders: list[str | None] = [f"p{i}" for i in range(n) if f"p{i}" not in (a, b)]

    def play(bs: list[list[tuple[str, str]]]) -> dict[str, Any]:
        g = imp.Play(imp.start("esperti", n=n, roles={impostor: "impostore"}))
        w = Watch(g, [*bystanders, None])
        g.seen()
        g.clues()
        w.record([])
        for votes in bs:
            w.votes(votes)
        if g.s.phase == "guess":
            w.act(impostor, type="guess", word="zebra")
        assert g.s.phase == "over"
        return w.told()

    one, two = play(ballots), play(swapped)
    assume(one["result"]["points"] == two["result"]["points"])
    assert one == two


# ---------------------------------------------------------------- Intruso (000)

# Intruso, 5 players, p4 the Intruso: a tie p1/p4, then a revote that finds p4.
INTRUSO_FIRST = [("p0", "p4"), ("p1", "p2"), ("p2", "p4"), ("p3", "p1"), ("p4", "p1")]
INTRUSO_REVOTE = [("p0", "p4"), ("p1", "p4"), ("p2", "p4"), ("p3", "p4"), ("p4", "p1")]


def _intruso(first: list[tuple[str, str]]) -> dict[str, Any]:
    g = uc.Play(uc.start("intruso", n=5))
    w = Watch(g, ["p2", "p3", "p4", None])
    g.to_vote()
    w.record([])
    w.votes(first)
    assert g.s.phase == "revote"
    w.votes(INTRUSO_REVOTE)
    assert g.s.phase == "over" and g.s.outcome == "civili"
    return w.told()


def test_000_intruso_secret_votes_stay_secret_at_the_end():
    """Issue 29, one rule for every engine: Intruso's votes are secret (docs/rules.md §5);
    p0 and p1 swapping their first votes changes nothing anyone else is told."""
    _assert_same_for_bystanders(_intruso, INTRUSO_FIRST, "p0", "p1")


# ---------------------------------------------------------------- Lupi (004)

# Day 1: everyone names p0, p0 names p3 (public); the lynch voters p1, p2, p4, p5, p6
# lynch p0 three to two. p2 and p4 swap their lynch votes.
LYNCH_DAY1 = [("p1", "p3"), ("p2", "p0"), ("p4", "p3"), ("p5", "p0"), ("p6", "p0")]


def _lupi(lynch: list[tuple[str, str]]) -> dict[str, Any]:
    g = lupi.Play(lupi.start())
    w = Watch(g, ["p1", "p3", "p5", "p6", None])
    g.night("p7")
    g.nominate("p0", "p3")
    w.record([])
    while g.s.phase == "defence":
        w.timeout()
    w.votes(lynch)
    assert not g.s.player("p0").alive
    g.night("p6")
    g.lynch("p1", "p3")
    assert g.s.outcome is not None
    w.record([])
    return w.told()


def test_004_lupi_lynch_votes_cannot_be_recovered_from_the_stats():
    """Issue 29 item 4: the nominations are public, the lynch secret; subtracting the
    nominations from the end's stats must not give anyone's lynch vote: p2 and p4 swapping
    theirs changes nothing the others are told."""
    _assert_same_for_bystanders(_lupi, LYNCH_DAY1, "p2", "p4")


# ---------------------------------------------------------------- every field


# The fields that name whom a record is about (its other fields say what they did).
WHO = ("id", "player", "voter", "by", "from", "who")


def _pairs(node: Any, voter: str, target: str, path: str = "") -> list[str]:
    """Where in `node` the id `voter` is paired with `target`: a mapping voter -> target
    (or a list/mapping holding it), or a record about `voter` with `target` in another
    field. (A bare list of two ids is a list of candidates, not a pair.)"""
    found = []
    if isinstance(node, dict):
        value = node.get(voter)
        if value == target or (isinstance(value, (list, dict)) and target in value):
            found.append(f"{path}.{voter}")
        names = {k for k, v in node.items() if v == voter and k in WHO}
        if names and any(v == target for k, v in node.items() if k not in names):
            found.append(path or "<root>")
        for k, v in node.items():
            found += _pairs(v, voter, target, f"{path}.{k}")
    elif isinstance(node, (list, tuple)):
        for i, v in enumerate(node):
            found += _pairs(v, voter, target, f"{path}[{i}]")
    return found


def _every_view_of(make, script, public: frozenset = frozenset()
                   ) -> list[tuple[str | None, str, str, list[str]]]:
    """Play `script` (a list of (voter, target) votes and callables); after every step walk
    every view but the voter's own for each vote cast so far (but the pairs `public` by
    another way, as a Lupi voter who names and lynches the same player)."""
    g = make()
    cast: list[tuple[str, str]] = []
    leaks = []

    def walk() -> None:
        for pid in [pl.id for pl in g.s.players] + [None]:
            v = view(g.s, pid)
            for voter, target in cast:
                if pid != voter:
                    where = _pairs(v, voter, target)
                    if where:
                        leaks.append((pid, voter, target, where))

    for step in script:
        if callable(step):
            step(g)
        else:
            g.act(step[0], type="vote", target=step[1])
            if step not in public:
                cast.append(step)
        walk()
    assert g.s.phase == "over"
    return leaks


def _impostor_script(first, runoff, impostor):
    def guess(g):
        g.act(impostor, type="guess", word="zebra")
    return [lambda g: (g.seen(), g.clues()), *first, *runoff, guess]


def test_every_field_of_every_view_never_pairs_a_voter_with_their_secret_target():
    """Issue 29: under secret voting no view (any other player's, a spectator's, the
    result) pairs a voter with whom they voted, in any field, at any step; with open
    voting the same walk finds the pairs (so the walk can see one)."""
    def esperti(secret: bool):
        return lambda: imp.Play(imp.start("esperti", n=5, roles={"p4": "impostore"},
                                          options={"secret_vote": secret}))

    script = _impostor_script(ESPERTI_FIRST, ESPERTI_RUNOFF, "p4")
    assert _every_view_of(esperti(True), script) == []
    assert _every_view_of(esperti(False), script)  # open votes: everyone sees them

    def classica():
        return imp.Play(imp.start("classica", n=8, roles={"p7": "impostore", "p6": "complice"},
                                  options={"secret_vote": True, "roles": ["complice"]}))
    assert _every_view_of(classica, _impostor_script(CLASSICA_FIRST, CLASSICA_RUNOFF,
                                                     "p7")) == []

    intruso = [lambda g: g.to_vote(), *INTRUSO_FIRST, *INTRUSO_REVOTE]
    assert _every_view_of(lambda: uc.Play(uc.start("intruso", n=5)), intruso) == []

    def lupi_day(g):
        g.night("p7")
        g.nominate("p0", "p3")
        while g.s.phase == "defence":
            g.timeout()

    def lupi_rest(g):
        g.night("p6")
        g.lynch("p1", "p3")

    lynch = [lupi_day, *LYNCH_DAY1, lupi_rest]
    named_p0 = frozenset(v for v in LYNCH_DAY1 if v[1] == "p0")  # as in their public naming
    assert _every_view_of(lambda: lupi.Play(lupi.start()), lynch, named_p0) == []
