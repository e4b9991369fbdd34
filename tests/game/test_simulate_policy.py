"""The simulator over every preset and table size, and the audio policy phase by phase."""

from __future__ import annotations

import json

import pytest

from game import AudioPolicy, audio_policy
from game.simulate import run

from .scenario import Play, start


@pytest.mark.parametrize("preset", ["intruso", "infiltre", "sosia", "classica", "caos", "esperti"])
def test_simulate_every_preset_and_table_size_keeps_the_invariants(preset):
    """`sussurro simulate`: random legal games, 3..16 players, no invariant broken."""
    finished = 0
    for n in range(3, 17):
        report = run(preset, n, games=2 if n <= 8 else 1, seed=n)
        assert report["invariants_broken"] == [], report["invariants_broken"][:3]
        assert report["finished"] == report["games"]
        assert sum(report["wins"].values()) == report["games"]
        finished += report["finished"]
    assert finished == 2 * 6 + 8


def test_simulate_report_shape_and_cli():
    from sussurro.cli import main

    report = run("intruso", 6, games=5, seed=2)
    assert set(report) >= {"games", "finished", "wins", "longest_rounds", "invariants_broken"}
    assert report["games"] == 5 and report["longest_rounds"] >= 1
    assert main(["simulate", "--preset", "sosia", "--players", "4", "--games", "3"]) == 0
    for style in ("classica", "caos", "esperti"):
        assert main(["simulate", "--preset", style, "--players", "9", "--games", "3"]) == 0


def test_simulate_outcomes_cover_every_side():
    wins: dict[str, int] = {}
    for seed in range(2):
        for side, k in run("intruso", 7, games=15, seed=seed)["wins"].items():
            wins[side] = wins.get(side, 0) + k
    assert {"civili", "infiltrati", "fantasma"} <= set(wins)


# ---------------------------------------------------------------- audio policy


def test_policy_is_plain_frozen_data():
    pol = audio_policy(start())
    assert isinstance(pol, AudioPolicy) and pol.channels == () and pol.floor is None
    with pytest.raises(AttributeError):
        pol.public = frozenset()  # type: ignore[misc]


def test_policy_phase_by_phase():
    """Public: all living (not the Muto during clues); whispers in the debate only."""
    g = Play(start(n=6, roles={"p5": "intruso"}, powers={"p0": "ubriacone", "p2": "muto"}))
    everyone = {f"p{i}" for i in range(6)}
    pol = audio_policy(g.s)  # powers phase
    assert g.s.phase == "powers" and pol.public == everyone and pol.whisper == {}
    g.act("p0", type="intoxicate", targets=["p1", "p3"])
    pol = audio_policy(g.s)  # clues
    assert pol.public == everyone - {"p2"} and pol.muted == {"p2": "muto"}
    assert pol.drunk == {"p1", "p3"} and pol.mouths == everyone - {"p2"}
    g.clues()
    pol = audio_policy(g.s)  # debate
    assert pol.public == everyone and set(pol.whisper) == everyone
    assert all(pid not in to and len(to) == 5 for pid, to in pol.whisper.items())
    g.ready()
    pol = audio_policy(g.s)  # vote
    assert pol.public == everyone and pol.whisper == {}
    g.everyone_votes("p1", "p0")
    pol = audio_policy(g.s)  # next round: p1 is out, still drunk, but muted
    assert pol.muted == {"p1": "eliminated", "p2": "muto"} and "p1" in pol.drunk
    assert "p1" not in pol.mouths


def test_view_is_json_and_matches_the_contract_shape():
    g = Play(start(n=5, powers={"p1": "spia"}))
    v = g.view("p1")
    json.dumps(v)
    assert set(v) >= {
        "game", "preset", "lang", "phase", "round", "phase_started", "deadline", "turn",
        "order", "players", "candidates", "clues", "eliminations", "me", "vote_counts",
        "result",
    }  # fmt: skip
    assert set(v["me"]) >= {"id", "alive", "word", "role", "power", "known", "vote", "can"}
    assert set(v["players"][0]) >= {
        "id", "name", "alive", "revealed_role", "ready", "voted", "whisper_ok",
    }  # fmt: skip
    assert v["game"] == "undercover" and v["phase"] == "clues" and v["round"] == 1
    assert v["me"]["known"][0]["fact"] == "civili_word"
