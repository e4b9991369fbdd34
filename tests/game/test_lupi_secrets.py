"""Lupi Mannari: nothing leaks through a side channel, in the core (issue 10).

- A contadino's views, phase by phase, are the same at a table whose veggente lives and
  looks and at one whose veggente is a ghost, when the public history is the same.
- No refusal tells a player what their view does not: two games whose deals differ only
  in cards p3 cannot see give p3 the same answer to every action, at every step.
"""

from __future__ import annotations

import pytest

from game import GameError, apply, view

from .lupi_scenario import Play, start

# Two deals with the same public history: p5 is devoured on night 1, p6 lynched on day 1.
# Living seer: p2 is the veggente (alive), p5 a contadino. Dead seer: p5 is the veggente.
LIVING_SEER = {"p0": "lupo", "p1": "lupo", "p2": "veggente"}
DEAD_SEER = {"p0": "lupo", "p1": "lupo", "p5": "veggente"}


def _play_two_nights(roles, observer: str) -> list[dict]:
    """Every view `observer` gets, phase by phase and after every action, over two nights."""
    p = Play(start(roles=roles))
    seen = [view(p.s, observer)]

    def step(fn, *args, **kw):
        fn(*args, **kw)
        v = view(p.s, observer)
        if v != seen[-1]:
            seen.append(v)

    step(p.timeout)                                   # -> seer
    if roles is LIVING_SEER:
        step(p.act, "p2", type="peek", target="p0")
    step(p.timeout)                                   # -> wolves
    step(p.act, "p0", type="bite", target="p5")
    step(p.act, "p1", type="bite", target="p5")
    step(p.timeout)                                   # -> day: p5 devoured
    step(p.timeout)                                   # -> nomination
    for pid in [pl.id for pl in p.s.players]:
        step(p.act, pid, type="vote", target="p7" if pid == "p6" else "p6")
    while p.s.phase == "defence":
        step(p.timeout)
    for pid in p.s.lynch_voters():
        step(p.act, pid, type="vote", target="p6")    # -> night 2
    assert p.s.phase == "night" and not p.s.player("p6").alive
    step(p.timeout)                                   # -> seer (a ghost's, at one table)
    if p.s.seer().alive:
        step(p.act, p.s.seer().id, type="peek", target="p1")
    step(p.timeout)                                   # -> wolves
    step(p.act, "p0", type="bite", target="p4")
    step(p.act, "p1", type="bite", target="p3")
    step(p.act, "p1", type="bite", target="p4")
    step(p.timeout)                                   # -> day: p4 devoured
    return seen


def test_a_contadino_sees_the_same_nights_whether_the_seer_lives_or_not():
    """Phase lengths, the order of every list, the narration, the "who has acted" marks: the
    contadino p3's views are identical, one for one, at both tables."""
    living = _play_two_nights(LIVING_SEER, "p3")
    dead = _play_two_nights(DEAD_SEER, "p3")
    assert [v["phase"] for v in living] == [v["phase"] for v in dead]
    assert living == dead


def test_a_contadino_view_does_not_move_during_the_night():
    """From nightfall to the day, a contadino's view changes only when a phase changes."""
    p = Play(start())
    p.until("seer")
    before = view(p.s, "p3")
    p.act("p2", type="peek", target="p0")
    assert view(p.s, "p3") == before
    p.timeout()
    before = view(p.s, "p3")
    p.act("p0", type="bite", target="p5")
    p.act("p1", type="bite", target="p4")
    assert view(p.s, "p3") == before


# ------------------------------------------------- refusals depend only on what p3 sees

TARGETS = ["p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7", "nobody", 7, None]


def _probes():
    out = [{"type": "ready"}, {"type": "advance"}, {"type": "nope"}, {"type": "vote"}]
    for kind in ("peek", "bite", "vote"):
        out += [{"type": kind, "target": t} for t in TARGETS]
    return out


def _answer(state, action, t):
    try:
        apply(state, "p3", action, t)
    except GameError as exc:
        return ("refused", exc.code, exc.detail)
    return ("accepted",)


# (deal a, deal b): p3 is a contadino at both tables; who holds the other cards differs.
PAIRS = {
    "wolf_or_seer": ({"p0": "lupo", "p1": "lupo", "p2": "veggente"},
                     {"p0": "lupo", "p2": "lupo", "p1": "veggente"}),
    "seer_or_none_alive": ({"p0": "lupo", "p1": "lupo", "p5": "veggente"},
                           {"p0": "lupo", "p1": "lupo", "p6": "veggente"}),
}


def _public_script(p: Play) -> None:
    """One step of a history both tables share: p5 devoured, p7 lynched, p6 devoured, p4
    lynched (the wolves win: two and two)."""
    s = p.s
    if s.phase == "wolves":
        for wolf in s.wolves():
            p.act(wolf, type="bite", target="p5" if s.day == 1 else "p6")
    elif s.phase == "nomination":
        first, second = ("p7", "p6") if s.day == 1 else ("p4", "p3")
        for pid in [pl.id for pl in s.players]:
            p.act(pid, type="vote", target=second if pid == first else first)
        return
    elif s.phase == "lynch":
        for pid in s.lynch_voters():
            p.act(pid, type="vote", target=s.nominees[0])
        return
    p.timeout()


@pytest.mark.parametrize("pair", sorted(PAIRS))
def test_refusals_tell_a_contadino_nothing_hidden(pair):
    a_roles, b_roles = PAIRS[pair]
    a, b = Play(start(roles=a_roles)), Play(start(roles=b_roles))
    compared = 0
    while a.s.phase != "over" and compared < 40:
        assert view(a.s, "p3") == view(b.s, "p3"), a.s.phase
        t = max(a.t, b.t)
        for action in _probes():
            assert _answer(a.s, action, t) == _answer(b.s, action, t), (a.s.phase, action)
        compared += 1
        _public_script(a)
        _public_script(b)
    assert compared >= 12 and b.s.phase == "over" and a.s.outcome == b.s.outcome == "lupi"
