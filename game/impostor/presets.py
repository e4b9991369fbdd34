"""Impostore's styles as data, its options and the table sizes (002 "Varianti", "Ruoli").

A style (Classica, Caos, Esperti) is only a set of default options over the
one engine in `engine.py`; after choosing a style the host may change every
rule. Sosia, the fourth style of 002, is a preset of the undercover engine.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from .. import custom_words
from ..errors import GameError
from ..options import bad, check_categories, check_choice, check_flag, merged
from ..table import MAX_PLAYERS, MIN_PLAYERS, check_size
from ..table_vote import check_one_phone
from ..timers import TIMER_MAX, TIMER_MIN, validate_timers
from . import wordbank
from .state import OPTIONAL_ROLES

IMPOSTOR_INFO = ("hint", "category", "nothing")
WIN_MODES = ("first_vote", "elimination")
TURNS = ("guided", "free")
MAX_ROUNDS = 5
TIMER_KEYS = ("clue", "discuss", "guess")
# 002 "Timer": none by default; Normale and Veloce (a clue, discussing and voting, the guess).
PACES: dict[str, dict[str, float | None]] = {
    "none": {"clue": None, "discuss": None, "guess": None},
    "normale": {"clue": 45, "discuss": 180, "guess": 60},
    "veloce": {"clue": 30, "discuss": 120, "guess": 30},
}
# "Non conosco la parola": requests per game (each opens a yes/no vote).
MAX_WORD_REQUESTS = 3
# Seats an optional role takes beside the innocents and impostors.
ROLE_SEATS = {"complice": 1, "gemelli": 2, "pagliaccio": 1}
# 002 "Ruoli": each optional role asks for two more players than the base 3 (9 with all three).
BASE_PLAYERS, PLAYERS_PER_ROLE = 3, 2


@dataclass(frozen=True)
class Preset:
    """A style of Impostore: its name and the options it starts from."""

    name: str
    engine: str
    lang: str
    defaults: dict[str, Any] = field(default_factory=dict)


_BASE: dict[str, Any] = {
    "lang": "it",
    "categories": None,
    "custom_words": None,
    "impostors": 1,  # an integer, or "random" (1 to about one every two players)
    "tell_count": False,  # with "random": the impostors are told how many they are
    "impostor_info": "hint",  # what the impostors' card shows: a hint word, the category, nothing
    "impostors_know": False,  # the impostors see each other
    "roles": [],  # optional roles: complice, gemelli, pagliaccio
    "rounds": 1,  # rounds of clues before the discussion (1 to 5)
    "turns": "guided",  # the app calls each speaker, or the table goes by itself
    "floor": False,  # guided turns: only the called player's microphone is open
    "first_innocent": False,  # the first speaker is never an impostor (and everyone knows)
    "win_mode": "first_vote",  # 002 "Chi vince": at the first vote, or by elimination
    "secret_vote": False,  # only the tallies are shown, never who voted whom
    "timers": dict(PACES["none"]),
    "eliminated_speak": False,
    "one_phone": False,  # one phone passed around the table (the offline page; never a room)
}

PRESETS: dict[str, Preset] = {
    "classica": Preset("classica", "impostor", "it", {}),
    # 002: random count of impostors, the Pagliaccio, played by elimination.
    "caos": Preset("caos", "impostor", "it",
                   {"impostors": "random", "roles": ["pagliaccio"], "win_mode": "elimination"}),
    # 002: the impostor gets nothing, 2 rounds of clues, secret vote.
    "esperti": Preset("esperti", "impostor", "it",
                      {"impostor_info": "nothing", "rounds": 2, "secret_vote": True}),
}


def get_preset(name: str) -> Preset:
    """The style called `name`, or GameError `bad_options`."""
    try:
        return PRESETS[name]
    except (KeyError, TypeError):
        raise GameError("bad_options", f"unknown preset {name!r}", field="preset") from None


def default_options(preset: str) -> dict[str, Any]:
    """The options a new room starts with for this style (JSON-able)."""
    p = get_preset(preset)
    out = copy.deepcopy(_BASE)
    out.update(copy.deepcopy(p.defaults))
    out["lang"] = p.lang
    return out


def validate_options(preset: str, options: dict[str, Any] | None, n_players: int) -> dict[str, Any]:
    """Check and normalise the options of a style at a table of `n_players`.

    Missing keys take the style's defaults; unknown keys and bad values raise
    `bad_options` (with `detail.field`); a custom word list its own codes
    (game/custom_words.py). With 3 or more players a fixed impostor count must
    fit the table (`too_many_impostors`); over 16 players `too_many_players`.
    """
    get_preset(preset)
    out = merged(options, default_options(preset))

    check_choice(out, "lang", wordbank.langs())
    out["categories"] = check_categories(out["categories"], wordbank.categories(out["lang"]))
    out["custom_words"] = custom_words.parse_words(out["custom_words"], out["lang"])

    count = out["impostors"]
    if count != "random" and (isinstance(count, bool) or not isinstance(count, int)
                              or not 1 <= count <= max_impostors(MAX_PLAYERS, [])):
        raise bad("impostors", "impostors must be 'random' or a number from 1 to 7")
    for key in ("tell_count", "impostors_know", "floor", "first_innocent", "secret_vote",
                "eliminated_speak"):
        check_flag(out, key)
    check_choice(out, "impostor_info", IMPOSTOR_INFO)
    check_choice(out, "turns", TURNS)
    check_choice(out, "win_mode", WIN_MODES)
    roles = out["roles"]
    if not isinstance(roles, list) or not all(r in OPTIONAL_ROLES for r in roles):
        raise bad("roles", f"roles must be a list of {', '.join(OPTIONAL_ROLES)}")
    out["roles"] = [r for r in OPTIONAL_ROLES if r in roles]
    rounds = out["rounds"]
    if isinstance(rounds, bool) or not isinstance(rounds, int) or not 1 <= rounds <= MAX_ROUNDS:
        raise bad("rounds", f"rounds must be a number from 1 to {MAX_ROUNDS}")
    out["timers"] = validate_timers(out["timers"], PACES["none"], allow_none=True)
    out["one_phone"] = check_one_phone(out["one_phone"])

    check_size(n_players)
    if n_players >= MIN_PLAYERS:
        table_setup(out, n_players)
    return out


def roles_for_table(roles: list[str], n: int) -> list[str]:
    """The optional roles a table of `n` can hold, in the options' order (002 "Ruoli")."""
    kept: list[str] = []
    for role in roles:
        if n >= BASE_PLAYERS + PLAYERS_PER_ROLE * (len(kept) + 1):
            kept.append(role)
    return kept


def max_impostors(n: int, roles: list[str]) -> int:
    """About one every two players: fewer impostors than the other players who are
    neither Complice nor Pagliaccio (so a game by elimination never starts won)."""
    others = n - sum(ROLE_SEATS[r] for r in roles if r != "gemelli")
    return max(1, (others - 1) // 2)


def table_setup(options: dict[str, Any], n: int) -> tuple[list[str], int]:
    """(optional roles dealt, the most impostors) at a table of `n`.

    A role the table is too small for is left out; a fixed impostor count
    that does not fit leaves roles out too (the count the host set comes
    first), and is refused if it does not fit even without them.
    """
    roles = roles_for_table(options["roles"], n)
    count = options["impostors"]
    if count != "random":
        while roles and count > max_impostors(n, roles):
            roles = roles[:-1]
        if count > max_impostors(n, roles):
            raise GameError("too_many_impostors", "too many impostors for this table",
                            most=max_impostors(n, []), n=n)
    return roles, max_impostors(n, roles)


def catalog() -> dict[str, Any]:
    """This engine's part of `game.catalog()` (JSON-able): styles, paces, limits, categories."""
    return {
        "presets": {
            name: {"engine": p.engine, "lang": p.lang, "family": "impostore",
                   "defaults": default_options(name)}
            for name, p in PRESETS.items()
        },
        # The styles 002 offers, in its order (Sosia is the undercover engine's).
        "styles": ["classica", "caos", "esperti", "sosia"],
        "paces": copy.deepcopy(PACES),
        "timers": {"keys": list(TIMER_KEYS), "min": TIMER_MIN, "max": TIMER_MAX},
        "impostor_info": list(IMPOSTOR_INFO),
        "win_modes": list(WIN_MODES),
        "turns": list(TURNS),
        "roles": {r: BASE_PLAYERS + PLAYERS_PER_ROLE for r in OPTIONAL_ROLES},
        "max_rounds": MAX_ROUNDS,
        "word_requests": MAX_WORD_REQUESTS,
        "max_impostors": {str(n): max_impostors(n, []) for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)},
        "categories": {lang: wordbank.category_names(lang) for lang in wordbank.langs()},
        "custom_words": {"max_bytes": custom_words.MAX_BYTES,
                         "max_entries": custom_words.MAX_ENTRIES,
                         "min_words": custom_words.MIN_WORDS},
    }
