"""The werewolf engine's preset (Lupi Mannari, 004) as data: options, the setup table, timers.

Options of the `lupi` preset:

- `lang`: the narration's language (`it`, `fr`, `en`).
- `lupi`: `"auto"` (004's table by size) or how many wolves (1-7).
- `veggente`: whether the table has a veggente (004: one).
- `moderator`: `None` (the app narrates and runs the game) or the player id of
  a seated human moderator, who holds no role. The id is checked at the deal,
  when the seats are known (`bad_options`, field `moderator`).
- `narration_voice`: the app's narration is also spoken by the browsers
  (speech synthesis); off: text only.
- `timers`: `night` (everyone closes their eyes), `seer`, `wolves`, `day` (the
  discussion, at most 3 minutes: 004), `vote` (each of the two ballots),
  `defence` (each nominee's speech). Seconds.
- `one_phone`: one phone passed around the table (the offline page, never a
  room): the app is the moderator, the ballots are the table's `table_vote`.

The table: 004 plays with 8 or more. With `lupi` on "auto" the wolves come
from `auto_wolves` and a game needs 8 role holders; a host who sets the
number of wolves may play smaller tables as long as the wolves stay fewer
than the humans even after the first night's victim (humans >= wolves + 2).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import GameError
from ..options import bad, check_choice, check_flag, merged
from ..table import check_size
from ..table_vote import check_one_phone
from ..timers import validate_timers

PRESET = "lupi"
ENGINE = "werewolf"
MIN_AUTO = 8  # 004: "N° giocatori: 8+"
MAX_WOLVES = 7  # wolves + 2 <= humans at 16 role holders
DAY_MAX = 180  # 004: "dopo un massimo di tre minuti di discussione"

TIMER_KEYS = ("night", "seer", "wolves", "day", "vote", "defence")
DEFAULT_TIMERS = {"night": 10, "seer": 20, "wolves": 45, "day": 180, "vote": 45, "defence": 30}



@dataclass(frozen=True)
class Preset:
    """A preset of this engine (one: Lupi Mannari, Italian by default)."""

    name: str
    engine: str
    lang: str


PRESETS: dict[str, Preset] = {PRESET: Preset(name=PRESET, engine=ENGINE, lang="it")}


def auto_wolves(role_holders: int) -> int:
    """004's setup: 2 wolves from 8 to 15 players, a third one from 16."""
    return 3 if role_holders >= 16 else 2


def default_options(preset: str) -> dict[str, Any]:
    """The options a new room starts with (JSON-able)."""
    _check_preset(preset)
    return {
        "lang": "it",
        "lupi": "auto",
        "veggente": True,
        "moderator": None,
        "narration_voice": True,
        "timers": dict(DEFAULT_TIMERS),
        "one_phone": False,
    }


def _check_preset(preset: Any) -> None:
    if preset not in PRESETS:
        raise GameError("bad_options", f"unknown preset {str(preset)[:40]!r}", field="preset")


def validate_options(preset: str, options: dict[str, Any] | None, n_players: int) -> dict[str, Any]:
    """Check and normalise `options` (missing keys take the defaults).

    Shape errors raise `bad_options` with `detail.field`; over 16 seats,
    `too_many_players`. The counts against the table (`too_few_players`,
    `too_many_wolves`) and the moderator's seat are checked at the deal
    (`new_game`): a werewolf lobby fills up to 8 and more, and its host must be
    able to set the game up meanwhile.
    """
    _check_preset(preset)
    out = merged(options, default_options(preset))

    from .. import languages  # every language: Lupi's words are the web's narration

    check_choice(out, "lang", languages.codes())
    lupi = out["lupi"]
    if lupi != "auto" and (
        isinstance(lupi, bool) or not isinstance(lupi, int) or not 1 <= lupi <= MAX_WOLVES
    ):
        raise bad("lupi", f"lupi must be 'auto' or an integer from 1 to {MAX_WOLVES}")
    for key in ("veggente", "narration_voice"):
        check_flag(out, key)
    mod = out["moderator"]
    if mod is not None and (not isinstance(mod, str) or not mod or len(mod) > 40):
        raise bad("moderator", "moderator must be null (the app) or a player id")
    out["timers"] = validate_timers(out["timers"], DEFAULT_TIMERS)
    out["one_phone"] = check_one_phone(out["one_phone"])
    if out["one_phone"] and mod is not None:
        # A human moderator sees every card: on one phone passed around there is no
        # second screen for them, and the phone itself narrates.
        raise bad("moderator", "on one phone the app is the moderator")
    if out["timers"]["day"] > DAY_MAX:
        raise bad("timers", f"the day's discussion lasts at most {DAY_MAX} seconds")
    check_size(n_players)
    return out


def minimum_table(options: dict[str, Any]) -> int:
    """The fewest role holders a game of these options needs."""
    if options["lupi"] == "auto":
        return MIN_AUTO
    return 2 * options["lupi"] + 2


def team_counts(options: dict[str, Any], role_holders: int) -> tuple[int, int, int]:
    """(wolves, veggenti, contadini) for this many role holders, or GameError.

    `too_few_players` under the table's minimum with the auto count (8);
    `too_many_wolves` when the host's wolves would not stay fewer than the
    humans after the first night (humans >= wolves + 2).
    """
    lupi = options["lupi"]
    if lupi == "auto":
        if role_holders < MIN_AUTO:
            raise GameError("too_few_players", f"at least {MIN_AUTO} players besides the moderator",
                            min=MIN_AUTO)
        lupi = auto_wolves(role_holders)
    elif role_holders - lupi < lupi + 2:
        raise GameError("too_many_wolves", "the wolves must stay fewer than the humans",
                        most=max(0, (role_holders - 2) // 2), n=role_holders)
    seers = 1 if options["veggente"] else 0
    return lupi, seers, role_holders - lupi - seers


def catalog() -> dict[str, Any]:
    """This engine's part of `game.catalog()` (JSON-able)."""
    return {
        "presets": {
            PRESET: {
                "engine": ENGINE,
                "lang": "it",
                "min_players": MIN_AUTO,
                "max_lupi": MAX_WOLVES,
                "defaults": default_options(PRESET),
            }
        },
        "roles": ["lupo", "contadino", "veggente"],
        "timers": {
            "keys": list(TIMER_KEYS),
            "defaults": dict(DEFAULT_TIMERS),
            "max": {"day": DAY_MAX},
        },
    }
