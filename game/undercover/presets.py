"""Presets of the undercover engine as data, their options and the balance tables.

Intruso (000), Infiltré (001) and Sosia (002's variant) differ only in the
fields of `Preset`; the engine in `game/undercover/engine.py` reads them.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from .. import custom_words
from ..errors import GameError
from ..options import bad, check_categories, check_choice, check_flag, merged
from ..table import MIN_PLAYERS, check_size
from ..table_vote import check_one_phone
from ..timers import validate_timers
from .state import POWERS

# Auto-balance by player count: (intrusi, fantasmi). Civili always outnumber the two together.
BALANCE: dict[int, tuple[int, int]] = {
    3: (1, 0),
    4: (1, 0),
    5: (1, 1),
    6: (1, 1),
    7: (2, 1),
    8: (2, 1),
    9: (3, 1),
    10: (3, 1),
    11: (3, 2),
    12: (3, 2),
    13: (4, 2),
    14: (4, 2),
    15: (4, 2),
    16: (4, 2),
}

# Power cards dealt when powers are "auto" (Gemelli count as one card for two players).
POWER_COUNT: dict[int, int] = {
    3: 1, 4: 1, 5: 2, 6: 2, 7: 3, 8: 3, 9: 4, 10: 4,
    11: 5, 12: 5, 13: 6, 14: 6, 15: 7, 16: 7,
}  # fmt: skip

TIMER_KEYS = ("powers", "clue", "debate", "vote", "guess", "pick")
# Seconds to read one's card before the first clue's timer starts (0: none), ended early
# when every player has read it (docs/rules.md, "Reading one's card").
READING_DEFAULT = 15
READING_MAX = 60

# Powers that need a phone of one's own during the table's talk, or the server's voice
# mix: the Sabotatore swaps in secret during a debate, the Ubriacone's victims are heard
# drunk. One-phone play leaves them out (docs/rules.md).
NOT_ON_ONE_PHONE = ("sabotatore", "ubriacone")


@dataclass(frozen=True)
class Preset:
    """What makes Intruso, Infiltré or Sosia: data read by the one undercover engine."""

    name: str
    engine: str
    lang: str
    max_intrusi: int
    max_fantasmi: int
    default_fantasmi: Any  # "auto" or an int
    default_powers: Any  # "auto" or a list
    powers_allowed: bool
    # "one_civile": infiltrators win when exactly one Civile is left (000 §6);
    # "parity": when they are as many as the Civili still in play (001, 002).
    infiltrators_win: str
    # Tied again after the revote and no living Giudice (who decides first, in every
    # preset): "nobody" is eliminated (000 §5, 002) or "random": the lot decides (001).
    second_tie: str
    # True: a correct guess by the Fantasma/Amnésique makes the whole camp win (001).
    guess_wins_camp: bool
    # True: too many infiltrators for the table are removed, never the Fantasma (001).
    shrink_intrusi: bool
    # True: 002's impostor count: a fixed number or "random" (1 to about one every two
    # players), instead of the balance table's "auto" (Sosia, RULES.md).
    count_002: bool = False
    # True: an eliminated Intruso has one guess of the Civili word; right, his camp
    # wins (002 §5, Sosia: the revealed role tells him he was one).
    intruso_guesses: bool = False
    # True: 002's pace, "Timer: nessuno di base": no timer by default, each phase waits
    # for the players, and the host may set a timer or clear it (null) (Sosia).
    timers_optional: bool = False


PRESETS: dict[str, Preset] = {
    "intruso": Preset(
        name="intruso", engine="undercover", lang="it", max_intrusi=4, max_fantasmi=2,
        default_fantasmi="auto", default_powers="auto", powers_allowed=True,
        infiltrators_win="one_civile", second_tie="nobody", guess_wins_camp=False,
        shrink_intrusi=False,
    ),
    "infiltre": Preset(
        name="infiltre", engine="undercover", lang="fr", max_intrusi=4, max_fantasmi=1,
        default_fantasmi=0, default_powers=[], powers_allowed=True,
        infiltrators_win="parity", second_tie="random", guess_wins_camp=True,
        shrink_intrusi=True,
    ),
    "sosia": Preset(
        name="sosia", engine="undercover", lang="it", max_intrusi=7, max_fantasmi=0,
        default_fantasmi=0, default_powers=[], powers_allowed=True,
        infiltrators_win="parity", second_tie="nobody", guess_wins_camp=False,
        shrink_intrusi=False, count_002=True, intruso_guesses=True, timers_optional=True,
    ),
}  # fmt: skip

DEFAULT_TIMERS = {"powers": 30, "clue": 45, "debate": 180, "vote": 60, "guess": 45, "pick": 30}


def default_timers(p: Preset) -> dict[str, float | None]:
    """The timers a room of `p` starts with: 000's and 001's, or none (002, Sosia)."""
    return {k: None for k in DEFAULT_TIMERS} if p.timers_optional else dict(DEFAULT_TIMERS)


def get_preset(name: str) -> Preset:
    """The preset called `name`, or GameError `bad_options`."""
    try:
        return PRESETS[name]
    except (KeyError, TypeError):
        raise GameError("bad_options", f"unknown preset {name!r}", field="preset") from None


def default_options(preset: str) -> dict[str, Any]:
    """The options a new room starts with for `preset` (JSON-able)."""
    p = get_preset(preset)
    return {
        "lang": p.lang,
        "categories": None,
        "custom_words": None,
        "intrusi": 1 if p.count_002 else "auto",
        "fantasmi": copy.deepcopy(p.default_fantasmi),
        "powers": copy.deepcopy(p.default_powers),
        "timers": default_timers(p),
        "eliminated_speak": False,
        # One phone passed around the table (docs/rules.md, "One phone"): spoken clues,
        # the table's vote in one action.
        "one_phone": False,
        "reading_time": READING_DEFAULT,
    }


def _count(value: Any, field: str, maximum: int) -> Any:
    if value == "auto":
        return "auto"
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= maximum:
        raise bad(field, f"{field} must be 'auto' or an integer from 0 to {maximum}")
    return value


def _count_002(value: Any, field: str, maximum: int) -> Any:
    """002's impostor count: a fixed number (at least one) or "random"."""
    if value == "random":
        return "random"
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= maximum:
        raise bad(field, f"{field} must be 'random' or an integer from 1 to {maximum}")
    return value


def validate_options(preset: str, options: dict[str, Any] | None, n_players: int) -> dict[str, Any]:
    """Check and normalise `options` for `preset` at a table of `n_players`.

    Missing keys take the preset's defaults. Shape errors raise `bad_options`
    (with `detail.field`); a table over 16 raises `too_many_players`; with 3 or
    more players the counts must fit the table (`too_many_infiltrators`,
    `no_infiltrators`, `too_many_powers`). Under 3 players (a lobby still
    filling) only the shape is checked: `new_game` refuses `too_few_players`.
    """
    p = get_preset(preset)
    out = merged(options, default_options(preset))

    from .. import words  # the word data is another module's job; imported lazily

    check_choice(out, "lang", words.langs())
    out["categories"] = check_categories(out["categories"], sorted(words.categories(out["lang"])))
    out["custom_words"] = custom_words.parse_pairs(out["custom_words"])
    count = _count_002 if p.count_002 else _count
    out["intrusi"] = count(out["intrusi"], "intrusi", p.max_intrusi)
    out["fantasmi"] = _count(out["fantasmi"], "fantasmi", p.max_fantasmi)

    powers = out["powers"]
    if powers != "auto":
        if not isinstance(powers, list) or not all(isinstance(x, str) for x in powers):
            raise bad("powers", "powers must be 'auto' or a list of power names")
        unknown = [x for x in powers if x not in POWERS]
        if unknown:
            raise bad("powers", f"unknown power {unknown[0]!r}")
        if len(set(powers)) != len(powers):
            raise bad("powers", "each power at most once")
        if powers and not p.powers_allowed:
            raise bad("powers", "this preset has no powers")
        out["powers"] = [x for x in POWERS if x in powers]  # canonical order

    out["one_phone"] = check_one_phone(out["one_phone"])
    if out["one_phone"] and isinstance(out["powers"], list):
        phoneless = [x for x in out["powers"] if x in NOT_ON_ONE_PHONE]
        if phoneless:
            raise bad("powers", f"{phoneless[0]} needs a phone per player")
    out["timers"] = validate_timers(out["timers"], default_timers(p), allow_none=p.timers_optional)
    check_flag(out, "eliminated_speak")
    reading = out["reading_time"]
    if isinstance(reading, bool) or not isinstance(reading, (int, float)) or \
            not 0 <= reading <= READING_MAX:
        raise bad("reading_time", f"reading_time must be a number of seconds from 0 to {READING_MAX}")

    check_size(n_players)
    if n_players >= MIN_PLAYERS:
        intrusi, fantasmi = team_counts(p, out, n_players)
        n_powers = power_cards(out, n_players)
        if out["powers"] != "auto" and len(n_powers) + ("gemelli" in n_powers) > n_players:
            raise GameError("too_many_powers", "more power cards than players", n=n_players)
        del intrusi, fantasmi
    return out


def team_counts(p: Preset, options: dict[str, Any], n: int, rng: Any = None) -> tuple[int, int]:
    """(intrusi, fantasmi) for this table; raises when the host's counts cannot fit.

    Civili must outnumber intrusi + fantasmi. With "auto" the table above is
    used and trimmed to fit; Infiltré removes Infiltrés (never the Amnésique).
    With 002's count (Sosia) "random" draws 1 to about one every two players
    with `rng` (without it, at the deal only: the most the table allows).
    """
    if p.count_002:
        most = (n - 1) // 2
        if options["intrusi"] == "random":
            return (rng.randint(1, most) if rng is not None else most), 0
        if options["intrusi"] > most:
            raise GameError("too_many_infiltrators", "Civili must outnumber the infiltrators",
                            most=most, n=n)
        return options["intrusi"], 0
    t_intrusi, t_fantasmi = BALANCE[n]
    fantasmi = options["fantasmi"]
    intrusi = options["intrusi"]
    most = (n - 1) // 2  # largest infiltrator total with Civili still outnumbering them
    if fantasmi == "auto":
        # The auto part is the table's, trimmed so the Civili still outnumber the
        # infiltrators: it gives way to a number the host set for the Intrusi.
        room = most if intrusi == "auto" else max(0, most - intrusi)
        fantasmi = min(t_fantasmi, p.max_fantasmi, room)
    if fantasmi > most:
        raise GameError(
            "too_many_infiltrators", "too many Fantasmi for this table", most=most, n=n
        )
    if intrusi == "auto":
        intrusi = min(t_intrusi, most - fantasmi)
    elif intrusi + fantasmi > most:
        if p.shrink_intrusi:
            intrusi = most - fantasmi  # the Amnésique takes the Infiltré's place
        else:
            raise GameError(
                "too_many_infiltrators",
                "Civili must outnumber the infiltrators",
                most=most,
                n=n,
            )
    if intrusi + fantasmi == 0:
        if options["intrusi"] == "auto":
            intrusi = 1
        elif options["fantasmi"] == "auto" and p.max_fantasmi > 0:
            fantasmi = 1
        else:
            raise GameError("no_infiltrators", "at least one Intruso or Fantasma")
    return intrusi, fantasmi


def power_cards(options: dict[str, Any], n: int, rng: Any = None) -> list[str]:
    """The power cards of the game: the host's list, or `POWER_COUNT[n]` drawn at random."""
    powers = options["powers"]
    if powers != "auto":
        return list(powers)
    if rng is None:
        return ["?"] * POWER_COUNT[n]
    pool = [x for x in POWERS if not (options.get("one_phone") and x in NOT_ON_ONE_PHONE)]
    return sorted(rng.sample(pool, POWER_COUNT[n]), key=POWERS.index)


def catalog() -> dict[str, Any]:
    """This engine's part of `game.catalog()`: its presets, powers and timers (JSON-able)."""
    return {
        "presets": {
            name: {
                "engine": p.engine,
                "lang": p.lang,
                "max_intrusi": p.max_intrusi,
                "max_fantasmi": p.max_fantasmi,
                "powers_allowed": p.powers_allowed,
                # Sosia is one of Impostore's styles (002): the lobby lists it there.
                "family": "impostore" if p.count_002 else name,
                "count": "002" if p.count_002 else "balance",
                "intruso_guesses": p.intruso_guesses,
                "timers_optional": p.timers_optional,
                "defaults": default_options(name),
            }
            for name, p in PRESETS.items()
        },
        "powers": list(POWERS),
        "powers_one_phone": [x for x in POWERS if x not in NOT_ON_ONE_PHONE],
        "timers": {"keys": list(TIMER_KEYS), "defaults": dict(DEFAULT_TIMERS)},
        "custom_words": {"max_bytes": custom_words.MAX_BYTES,
                         "max_entries": custom_words.MAX_ENTRIES,
                         "min_pairs": custom_words.MIN_PAIRS},
    }
