"""Lupi Mannari's strings (web/i18n/lupi.*.json): every narration line, phase, role, muted
reason, timer and error the werewolf engine can produce has its text in it, fr and en."""

from __future__ import annotations

import random

import pytest

from game import apply, audio_policy, catalog, new_game, tick, view
from game.simulate import random_action
from game.werewolf.presets import TIMER_KEYS
from game.werewolf.state import PHASES, ROLES
from tests.browser.test_i18n import LANGS, load


def produced() -> tuple[set[str], set[str]]:
    """Narration keys and muted reasons met in random games of every shape."""
    keys: set[str] = set()
    muted: set[str] = set()
    for seed in range(40):
        n = 9 if seed % 3 else 6
        opts = {"lupi": 2 if n == 9 else 1, "veggente": seed % 4 != 0}
        if seed % 5 == 0 and n == 9:
            opts["moderator"] = "p0"
        s = new_game("lupi", opts, seed, [{"id": f"p{i}", "name": f"P{i}"} for i in range(n)], 0.0)
        rng = random.Random(seed)
        while True:
            v = view(s, "p1")
            keys |= {line["key"] for line in v["narration"]["lines"]}
            muted |= set(audio_policy(s).muted.values())
            if s.phase == "over":
                break
            pid = f"p{rng.randrange(n)}"
            action = random_action(rng, view(s, pid), [])
            if action is not None and rng.random() < 0.7:
                s, _ = apply(s, pid, action, s.phase_started + 0.5)
            else:
                s, _ = tick(s, s.deadline)
    return keys, muted


KEYS, MUTED = produced()


def test_random_games_meet_every_narration_line():
    assert KEYS >= {"night_falls", "lynched", "seer_wakes", "seer_sleeps", "wolves_wake",
                    "wolves_sleep", "day_breaks", "devoured", "discuss", "nominate", "nominated",
                    "defend", "lynch_vote", "lupi_win", "umani_win"}, KEYS
    assert MUTED == {"night", "ghost", "floor"}


@pytest.mark.parametrize("lang", LANGS)
def test_every_werewolf_string_exists(lang):
    d = load(lang)
    missing = [f"lupi.say.{k}" for k in KEYS if f"lupi.say.{k}" not in d]
    missing += [f"lupi.phase.{p}" for p in PHASES if f"lupi.phase.{p}" not in d]
    missing += [f"role.{r}" for r in ROLES if f"role.{r}" not in d]
    missing += [f"lupi.role.{r}.help" for r in ROLES if f"lupi.role.{r}.help" not in d]
    missing += [f"muted.{m}" for m in MUTED if f"muted.{m}" not in d]
    missing += [f"opt.timer.{k}" for k in TIMER_KEYS if f"opt.timer.{k}" not in d]
    missing += [f"preset.{p}" for p in catalog()["presets"] if f"preset.{p}" not in d]
    missing += [k for k in ("error.too_many_wolves", "help.lupi.body", "help.tab.lupi") if k not in d]
    assert not missing, missing
