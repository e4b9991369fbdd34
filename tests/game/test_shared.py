"""RULES.md "Shared by every game" as the undercover engine plays it, and the core's contract."""

from __future__ import annotations

import copy

import pytest

from game import (
    GameError,
    apply,
    audio_policy,
    default_options,
    new_game,
    next_deadline,
    state_bytes,
    tick,
    validate_options,
    view,
)

from .scenario import Play, players, start

# ---------------------------------------------------------------- votes


def test_shared_vote_changeable_until_everyone_has_voted():
    """RULES.md: A vote can be changed until everyone has voted or time runs out."""
    g = Play(start())
    g.to_vote()
    g.act("p0", type="vote", target="p1")
    g.act("p0", type="vote", target="p2")
    assert g.view("p0")["me"]["vote"] == "p2"
    for pid in ("p1", "p2", "p3"):
        g.act(pid, type="vote", target="p4")
    assert g.s.phase == "vote"
    g.act("p4", type="vote", target="p2")  # the last vote closes the ballot
    assert not g.s.player("p4").alive


def test_shared_nobody_votes_for_themselves():
    """RULES.md: nobody may vote for themselves."""
    g = Play(start())
    g.to_vote()
    g.fail("p1", "self_vote", type="vote", target="p1")


def test_shared_who_has_not_voted_by_the_deadline_abstains():
    """RULES.md: who has not voted by the deadline abstains."""
    g = Play(start())
    g.to_vote()
    g.votes({"p0": "p4", "p1": "p4"})
    g.timeout()
    assert not g.s.player("p4").alive and g.s.last_tally["p4"] == 2


def test_shared_nobody_voting_eliminates_nobody():
    """Choice (docs/rules.md): a ballot where everyone abstains eliminates nobody."""
    g = Play(start())
    g.to_vote()
    g.timeout()
    assert all(pl.alive for pl in g.s.players) and g.s.phase == "clues"


# ---------------------------------------------------------------- the eliminated


def test_shared_eliminated_are_muted_no_whispers_no_votes():
    """RULES.md: Eliminated players stay as listeners: muted, no whispers, no votes."""
    g = Play(start(n=6, roles={"p5": "intruso"}))
    g.eliminate("p1", "p0")
    pol = audio_policy(g.s)
    assert "p1" not in pol.public and pol.muted["p1"] == "eliminated"
    g.clues()
    pol = audio_policy(g.s)
    assert "p1" not in pol.whisper and all("p1" not in to for to in pol.whisper.values())
    g.fail("p1", "dead_player", type="ready")
    g.ready()
    g.fail("p1", "dead_player", type="vote", target="p2")
    g.fail("p0", "not_a_candidate", type="vote", target="p1")
    assert g.view("p1")["me"]["can"] == []


def test_shared_host_option_lets_the_eliminated_speak():
    """RULES.md: A host option lets the eliminated speak (default off)."""
    assert default_options("intruso")["eliminated_speak"] is False
    g = Play(start(n=6, roles={"p5": "intruso"}, options={"eliminated_speak": True}))
    g.eliminate("p1", "p0")
    pol = audio_policy(g.s)
    assert "p1" in pol.public and "p1" not in pol.muted
    g.clues()
    assert "p1" not in audio_policy(g.s).whisper  # speaking publicly, never whispering


def test_shared_eliminated_learn_no_new_secret():
    """RULES.md: they learn no secret they did not have until the game ends."""
    g = Play(start(n=7, roles={"p6": "intruso"}, powers={"p0": "sabotatore"}))
    g.eliminate("p1", "p2")
    before = g.view("p1")["me"]
    g.clues()
    g.act("p0", type="swap", target="p6")
    g.ready()
    g.act("p2", type="vote", target="p3")
    after = g.view("p1")
    assert after["me"]["word"] == before["word"] and after["me"]["known"] == before["known"]
    assert after["me"]["vote"] is None and after["vote_counts"] is None
    assert after["result"] is None


def test_shared_everyone_speaks_at_the_end():
    g = Play(start())
    g.eliminate("p4", "p0")
    pol = audio_policy(g.s)
    assert pol.public == {"p0", "p1", "p2", "p3", "p4"} and pol.muted == {}


# ---------------------------------------------------------------- time


def test_core_deadlines_chain_from_the_deadline_not_from_a_late_tick():
    """contracts: when a deadline d passes, the next one is computed from d."""
    s = start(now=0.0, options={"timers": {"clue": 10}})
    late, _ = tick(s, 35.0)  # three turns time out, each at its own deadline
    assert late.deadline == 40.0 and len(late.clues) == 3
    step = s
    for t in (5.0, 10.0, 12.0, 20.0, 29.0, 30.0, 35.0):
        step, _ = tick(step, t)
    assert state_bytes(step) == state_bytes(late)


def test_core_apply_advances_time_first():
    """contracts: apply first advances time to now, then applies the action."""
    s = start(options={"timers": {"clue": 10}})
    first, second = s.order[:2]
    with pytest.raises(GameError) as info:
        apply(s, first, {"type": "clue", "text": "zorp"}, 10.5)
    assert info.value.code == "not_your_turn"
    s2, _ = apply(s, second, {"type": "clue", "text": "zorp"}, 10.5)
    assert s2.clues[0].skipped and s2.clues[1].text == "zorp" and s2.deadline == 20.5


def test_core_next_deadline_and_tick_before_it_change_nothing():
    s = start(options={"timers": {"clue": 10}})
    assert next_deadline(s) == 10.0
    s2, events = tick(s, 9.99)
    assert events == [] and state_bytes(s2) == state_bytes(s)
    s3, _ = tick(s, 10.0)
    assert s3.clues and s3.clues[0].skipped


def test_core_apply_never_mutates_its_input():
    s = start()
    before = state_bytes(s)
    copy_before = copy.deepcopy(s)
    apply(s, s.order[0], {"type": "clue", "text": "zorp"}, 1.0)
    tick(s, 1000.0)
    assert state_bytes(s) == before == state_bytes(copy_before)


@pytest.mark.parametrize(
    "pid,action,code",
    [
        ("nobody", {"type": "ready"}, "unknown_player"),
        ("p0", {"type": "dance"}, "bad_action"),
        ("p0", "ready", "bad_action"),
        ("p0", {"type": "vote", "target": "p1"}, "wrong_phase"),
        ("p0", {"type": "bind", "target": "p1"}, "wrong_phase"),
        # The shape is checked before the phase: malformed is malformed in any phase.
        ("p0", {"type": "vote", "target": 3}, "bad_action"),
        ("p0", {"type": "vote"}, "bad_action"),
        ("p0", {"type": "vote", "target": "p1", "extra": 1}, "bad_action"),
        ("p0", {"type": "clue", "text": 7}, "bad_action"),
        ("p0", {"type": "intoxicate", "targets": ["p1"]}, "bad_action"),
        ("p0", {"type": "ready", "now": True}, "bad_action"),
    ],
)
def test_core_illegal_action_raises_its_code_and_changes_nothing(pid, action, code):
    s = start()
    before = state_bytes(s)
    with pytest.raises(GameError) as info:
        apply(s, pid, action, 1.0)
    assert info.value.code == code and state_bytes(s) == before


def test_core_view_of_an_unknown_player_is_refused():
    with pytest.raises(GameError) as info:
        view(start(), "ghost")
    assert info.value.code == "unknown_player"


def test_core_replay_honours_logged_ticks():
    """A log may carry ticks: replay lets time pass at them, like the original game."""
    from game import replay

    log = [{"t": 45.0, "player": None, "action": {"type": "tick"}}]
    # no moment to read one's card first (issue 31 item 11): the turns time out from 10.0
    opts = {"powers": [], "fantasmi": 0, "intrusi": 1, "timers": {"clue": 10}, "reading_time": 0}
    again = replay("intruso", opts, 1, players(5), log, started_at=10.0)
    plain = new_game("intruso", opts, 1, players(5), 10.0)
    assert len(again.clues) == 3 and all(c.skipped for c in again.clues)
    assert state_bytes(again) == state_bytes(tick(plain, 45.0)[0])


def test_core_same_seed_same_game():
    a = new_game("intruso", None, 42, players(9), 0.0)
    b = new_game("intruso", None, 42, players(9), 0.0)
    c = new_game("intruso", None, 43, players(9), 0.0)
    assert state_bytes(a) == state_bytes(b) != state_bytes(c)


# ---------------------------------------------------------------- options


@pytest.mark.parametrize(
    "options,field",
    [
        ({"lang": "de"}, "lang"),
        ({"categories": ["nope"]}, "categories"),
        ({"categories": []}, "categories"),
        ({"powers": ["magic"]}, "powers"),
        ({"powers": ["muto", "muto"]}, "powers"),
        ({"timers": {"clue": 2}}, "timers"),
        ({"timers": {"nap": 20}}, "timers"),
        ({"eliminated_speak": "yes"}, "eliminated_speak"),
        ({"colour": 1}, "colour"),
        ({"intrusi": -1}, "intrusi"),
        ({"intrusi": True}, "intrusi"),
    ],
)
def test_options_bad_settings_have_clear_codes(options, field):
    with pytest.raises(GameError) as info:
        validate_options("intruso", options, 6)
    assert info.value.code == "bad_options" and info.value.detail["field"] == field


def test_options_defaults_round_trip_and_lobby_filling():
    for preset in ("intruso", "infiltre", "sosia"):
        opts = validate_options(preset, default_options(preset), 8)
        assert opts == default_options(preset)
        assert validate_options(preset, {}, 1) == default_options(preset)  # lobby still filling
    with pytest.raises(GameError) as info:
        validate_options("intruso", {}, 17)
    assert info.value.code == "too_many_players"
    with pytest.raises(GameError) as info:
        validate_options("nope", {}, 5)
    assert info.value.code == "bad_options"


def test_options_categories_choose_the_pair():
    from game import words

    cats = words.categories("en")
    s = new_game("intruso", {"lang": "en", "categories": [cats[0]]}, 3, players(5), 0)
    assert s.category == cats[0] and s.options["lang"] == "en"
