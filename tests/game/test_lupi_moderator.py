"""Lupi Mannari's moderator (issue 10): the app by default, or a seated human who holds no
card, sees every card and night choice, advances the phases and is heard by everyone."""

from __future__ import annotations

from game import cues, result, validate_options, view

from .lupi_scenario import MOD, Play, start


def test_the_app_narrates_every_phase_aloud_unless_the_room_turns_the_voice_off():
    """The app moderator: every view carries the narration; `speak` follows the room's option."""
    p = Play(start())
    n = p.view("p3")["narration"]
    assert n == {"by": "app", "speak": True, "lines": [{"key": "night_falls"}]}
    quiet = Play(start(options={"narration_voice": False}))
    assert quiet.view("p3")["narration"]["speak"] is False
    assert quiet.view("p3")["narration"]["lines"] == n["lines"]  # the text is always there
    assert validate_options("lupi", None, 8)["narration_voice"] is True


def test_every_phase_has_its_narration_the_same_for_everyone():
    p = Play(start())
    seen = {}
    for _ in range(8):
        views = [p.view(pid)["narration"] for pid in ("p0", "p2", "p5", None)]
        assert all(v == views[0] for v in views), p.s.phase
        seen[p.s.phase] = views[0]["lines"]
        if p.s.phase == "lynch":
            nominees = list(p.s.nominees)
        if p.s.phase == "wolves":
            p.act("p0", type="bite", target="p5")
        p.timeout()
    assert seen["seer"] == [{"key": "seer_wakes"}]
    assert seen["day"] == [{"key": "wolves_sleep"}, {"key": "day_breaks"},
                           {"key": "devoured", "player": "p5"}, {"key": "discuss"}]
    assert seen["nomination"] == [{"key": "nominate"}]
    assert seen["lynch"] == [{"key": "lynch_vote", "players": nominees}]


def test_without_a_seer_no_seer_phase_and_no_seer_line():
    """A table dealt without a veggente (host option) skips the phase: everyone knows there
    is none, so the skip tells nothing."""
    p = Play(start(roles={"p0": "lupo", "p1": "lupo"}, options={"veggente": False}))
    p.timeout()
    assert p.s.phase == "wolves"
    assert p.view("p3")["narration"]["lines"] == [{"key": "wolves_wake"}]


def test_a_human_moderator_sees_every_card_and_every_night_choice():
    p = Play(start(moderator=True))
    p.until("seer")
    p.act("p2", type="peek", target="p1")
    p.until("wolves")
    p.act("p0", type="bite", target="p4")
    p.act("p1", type="bite", target="p5")
    secrets = p.view(MOD)["secrets"]
    assert secrets["roles"]["p0"] == "lupo" and secrets["roles"]["p2"] == "veggente"
    assert secrets["peeks"] == [{"night": 1, "player": "p1", "wolf": True}]
    assert secrets["bites"] == {"p0": "p4", "p1": "p5"}
    p.timeout()
    p.nominate("p4" if p.s.player("p4").alive else "p5", "p3")
    p.until("lynch")
    p.act("p0", type="vote", target="p3")
    assert p.view(MOD)["secrets"]["votes"] == {"p0": "p3"}  # they count the secret ballots
    assert p.view("p6")["secrets"] is None


def test_a_human_moderator_advances_the_phases():
    """`advance` ends the phase at once, as its deadline would; not the seer's phase, which
    always lasts its time (its length must tell nothing), and only for the moderator."""
    p = Play(start(moderator=True))
    p.fail("p3", "not_allowed", type="advance")
    p.act(MOD, type="advance")
    assert p.s.phase == "seer" and p.s.phase_started == p.t
    p.fail(MOD, "wrong_phase", type="advance")
    assert p.view(MOD)["me"]["can"] == []
    p.timeout()
    p.act("p0", type="bite", target="p5")
    p.act(MOD, type="advance")  # "prende atto della decisione e chiama la fine della fase"
    assert p.s.phase == "day" and p.s.deaths[-1].player == "p5"
    for phase in ("nomination", "defence", "defence", "lynch"):
        p.act(MOD, type="advance")
        assert p.s.phase == phase
    p.fail(MOD, "not_allowed", type="vote", target="p3")  # the moderator holds no vote
    p.act(MOD, type="advance")  # nobody voted: a tie between the two, drawn
    assert p.s.phase == "night" and p.s.deaths[-1].cause == "lynched"


def test_a_human_moderator_is_heard_by_everyone_and_hears_the_wolves():
    p = Play(start(moderator=True))
    pol = p.policy()
    assert pol.public == frozenset({MOD}) and pol.mouths == frozenset({MOD})
    p.until("wolves")
    assert p.policy().channels == (frozenset({"p0", "p1", MOD}),)
    p.act("p0", type="bite", target="p5")
    p.timeout()
    assert MOD in p.policy().public
    p.until("defence")
    assert p.policy().public == frozenset({p.s.defending()})  # only the defender
    assert p.policy().muted[MOD] == "floor"


def test_a_human_moderator_reads_the_narration_and_hears_the_table_cues():
    p = Play(start(moderator=True))
    n = p.view("p3")["narration"]
    assert n["by"] == "moderator" and n["speak"] is False and n["lines"]
    p.until("wolves")
    p.act("p0", type="bite", target="p5")
    p.timeout()
    played = dict(cues(p.s, p.events))
    assert MOD in played["day"] and MOD in played["elimination"]


def test_the_moderator_gets_no_victory_or_defeat():
    p = Play(start(moderator=True))
    p.night("p5")
    p.lynch("p0", "p3")
    p.night("p4")
    p.lynch("p1", "p3")
    got = cues(p.s, p.events)
    assert all(MOD not in listeners for name, listeners in got if name in ("victory", "defeat"))
    assert view(p.s, MOD)["result"]["moderator"] == {"id": MOD, "name": "Mod"}


def test_points_and_stats_of_a_finished_game():
    """docs/rules-lupi.md: a winner scores 1, a surviving winner 2, a loser 0; the stats
    count the closed ballots on each side."""
    p = Play(start())
    p.night("p6")
    p.lynch("p0", "p3")   # everyone names p0 (p0 names p3), the voters lynch p0
    p.night("p5")
    p.lynch("p1", "p3")
    res = result(p.s)
    assert res["points"] == {"p0": 0, "p1": 0, "p2": 2, "p3": 2, "p4": 2, "p5": 1, "p6": 1,
                             "p7": 2}
    st = res["stats"]
    assert list(st["p3"]) == ["side", "role", "won", "eliminated", "votes_on_impostors",
                              "votes_on_innocents", "votes_received", "guessed"]
    assert st["p0"]["side"] == "impostor" and st["p2"]["side"] == "innocent"
    assert st["p6"] == {"side": "innocent", "role": "contadino", "won": True, "eliminated": True,
                        "votes_on_impostors": 2, "votes_on_innocents": 0, "votes_received": 0,
                        "guessed": None}
    assert st["p0"]["votes_received"] == 7 + 5 and st["p0"]["votes_on_innocents"] == 1
    assert {pid for pid, x in st.items() if x["won"]} == set(res["winners"])
