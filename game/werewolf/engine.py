"""The werewolf engine's rules: Lupi Mannari (004), top to bottom.

A game goes: deal -> night 1 (`night`: everyone closes their eyes -> `seer`
-> `wolves`) -> day 1 (`day`: the victim is announced, the discussion ->
`nomination` -> a `defence` for each of the two nominees -> `lynch`) -> night
2 ... -> `over`, as soon as a faction wins.

Every night phase lasts its full time whatever anyone does (the seer's even
when the seer is a ghost), and the night is resolved at once when the wolves'
time is up: nothing of it reaches anyone before. Every public function takes
a state and returns a new one; the input is never mutated (we work on a
copy, so a GameError leaves the caller's state as it was). Time passes only
through `now` arguments; when a deadline `d` passes, what follows starts at
`d`, so late or repeated ticks give the same game.
"""

from __future__ import annotations

import random
from typing import Any

from .. import ballot, phases
from ..actions import PLAYER, TALLY, check_phase, check_shape
from ..errors import GameError
from ..table import check_players
from ..table_vote import table_tally
from .presets import team_counts, validate_options
from .state import CONTADINO, LUPI, LUPO, ROLES, UMANI, VEGGENTE, Death, GameState, Peek, Player

Events = list[dict[str, Any]]


# ---------------------------------------------------------------- preparation: the deal


def new_game(
    preset: str,
    options: dict[str, Any] | None,
    seed: int,
    players: list[dict[str, Any]],
    now: float,
    *,
    deal: dict[str, Any] | None = None,
    words: Any = None,
) -> GameState:
    """Deal the role cards, then the first night falls.

    The moderator (option `moderator`, a seat's id) holds no card. `deal`
    fixes the cards for scripted scenarios (tests, tutorials): `{"roles":
    {pid: role}}`, unnamed role holders are contadini; the wolves must still
    be fewer than the humans. The werewolf game has no words (`words` is
    ignored: `draw_words` gives None).
    """
    del words
    seats = check_players(players)
    opts = validate_options(preset, options, len(seats))
    mod = opts["moderator"]
    ids = [x["id"] for x in seats]
    if mod is not None and mod not in ids:
        raise GameError("bad_options", "the moderator must be one of the seats", field="moderator")
    holders = [x for x in seats if x["id"] != mod]
    rng = random.Random(seed)
    s = GameState(
        preset=preset,
        options=opts,
        seed=seed,
        players=[Player(id=x["id"], name=x["name"]) for x in holders],
        rng=rng,
        moderator=next(({"id": x["id"], "name": x["name"]} for x in seats if x["id"] == mod), None),
        phase_started=now,
    )
    if deal is not None:
        roles = _fixed_roles(s, deal.get("roles") or {})
    else:
        # 004: the moderator shuffles the cards and deals one, face down, to each player.
        wolves, seers, _ = team_counts(opts, len(holders))
        cards = [LUPO] * wolves + [VEGGENTE] * seers
        cards += [CONTADINO] * (len(holders) - len(cards))
        rng.shuffle(cards)
        roles = {pl.id: card for pl, card in zip(s.players, cards, strict=True)}
    for pl in s.players:
        pl.role = roles[pl.id]
    _start_night(s, now, [])
    return s


def draw_words(preset: str, options: dict[str, Any], seed: int) -> None:
    """No words in this game: nothing to store beside it."""
    return None


def _fixed_roles(s: GameState, roles: dict[str, str]) -> dict[str, str]:
    out = {pl.id: CONTADINO for pl in s.players}
    for pid, role in roles.items():
        if pid not in out or role not in ROLES:
            raise GameError("bad_action", "bad deal", player=str(pid)[:40], role=str(role)[:20])
        out[pid] = role
    wolves = sum(r == LUPO for r in out.values())
    if wolves == 0 or wolves >= len(out) - wolves or sum(r == VEGGENTE for r in out.values()) > 1:
        raise GameError("too_many_wolves", "a deal needs wolves, fewer than the humans, one seer")
    return out


# ---------------------------------------------------------------- the night


def _start_night(s: GameState, t: float, events: Events) -> None:
    """004: "è notte, chiudete tutti gli occhi"; every public microphone shuts."""
    s.ready, s.votes, s.candidates, s.bites = [], {}, [], {}
    s.nominees, s.defender = [], 0
    _enter(s, "night", t, "night", events)


def _after_nightfall(s: GameState, t: float, events: Events) -> None:
    # The seer's phase is played even when the seer is a ghost (004's note), so its
    # presence and length tell nothing; a table dealt without a seer skips it.
    if s.options["veggente"]:
        _enter(s, "seer", t, "seer", events)
    else:
        _enter(s, "wolves", t, "wolves", events)


def _peek(s: GameState, pl: Player, target: Any) -> None:
    """The veggente points at a living player and learns, alone, whether it is a wolf."""
    if pl.role != VEGGENTE:
        raise GameError("not_allowed", "only the veggente looks at night")
    if any(p.night == s.day for p in s.peeks):
        raise GameError("already_used", "one look per night")
    other = _target(s, target)
    if other.id == pl.id or not other.alive:
        raise GameError("not_a_candidate", "choose another living player", target=other.id)
    s.peeks.append(Peek(night=s.day, player=other.id, wolf=other.role == LUPO))


def _bite(s: GameState, pl: Player, target: Any) -> None:
    """Each wolf points at a human; the pick can change until the wolves' time is up."""
    if pl.role != LUPO:
        raise GameError("not_allowed", "only the wolves choose a victim")
    other = _target(s, target)
    if not other.alive or other.role == LUPO:
        raise GameError("not_a_candidate", "choose a living human", target=other.id)
    s.bites[pl.id] = other.id


def _resolve_night(s: GameState, t: float, events: Events) -> None:
    """At the end of the wolves' time: the most picked human is devoured; a tie at random.

    With no pick at all every living human is tied at zero and the lot decides.
    Nothing of the night reaches anyone before this moment.
    """
    humans = s.humans()
    counts = ballot.tally({w: v for w, v in s.bites.items() if w in s.wolves()}, humans)
    top = ballot.most_voted(counts)
    victim = top[0] if len(top) == 1 else s.rng.choice(top)
    s.bites = {}
    _kill(s, victim, "devoured", events)
    if not _check_wins(s, events):
        s.ready = []
        _enter(s, "day", t, "day", events)


# ---------------------------------------------------------------- the day


def _ready(s: GameState, pl: Player, t: float, events: Events) -> None:
    """Day: the living may end the discussion early (all of them); defence: the speaker yields."""
    if s.phase == "defence":
        if s.defending() != pl.id:
            raise GameError("not_your_turn", "only the nominee who has the floor", turn=s.defending())
        _next_defence(s, t, events)
        return
    if s.mark_ready(pl.id):
        _open_nomination(s, t, events)


def _open_nomination(s: GameState, t: float, events: Events) -> None:
    """004: every player, ghosts included, names whom to lynch; the two most named are nominated."""
    s.votes = {}
    s.candidates = s.living_ids()
    _enter(s, "nomination", t, "vote", events)
    events.append({"type": "vote_open", "candidates": list(s.candidates)})


def _table_vote(s: GameState, raw: Any, t: float, events: Events) -> None:
    """One-phone play: the table's spoken ballot (the nomination, ghosts included, or the
    lynch, by the living who are not nominated) closes with its tally."""
    if s.phase == "nomination":
        _close_nomination(s, t, events, table_tally(s.options, raw, s.candidates, len(s.players)))
    else:
        counts = table_tally(s.options, raw, s.candidates, len(s.lynch_voters()))
        _close_lynch(s, t, events, counts)


def _close_nomination(s: GameState, t: float, events: Events,
                      counts: dict[str, int] | None = None) -> None:
    """The two most voted are nominated; a tie for a place is drawn at random.

    Defence order: the most voted first; equal counts in the draw's order.
    `counts`: the table's tally in one-phone play instead of the cast votes.
    """
    tally = ballot.tally(s.votes, s.candidates) if counts is None else counts
    s.last_tally = dict(tally)
    s.last_nomination = dict(s.votes)
    s.ballots += [("nomination", s.day, v, c) for v, c in s.votes.items()]
    events.append({"type": "vote_closed", "tally": dict(tally)})
    drawn = list(s.candidates)
    s.rng.shuffle(drawn)
    drawn.sort(key=lambda pid: -tally[pid])  # stable: the draw orders equal counts
    s.nominees = drawn[:2]
    s.votes = {}
    s.defender = 0
    events.append({"type": "nominated", "players": list(s.nominees)})
    _start_defence(s, t, events)


def _start_defence(s: GameState, t: float, events: Events) -> None:
    """Each nominee defends alone: only their microphone is open."""
    _enter(s, "defence", t, "defence", events)
    events.append({"type": "turn", "player": s.nominees[s.defender]})


def _next_defence(s: GameState, t: float, events: Events) -> None:
    s.defender += 1
    if s.defender < len(s.nominees):
        _start_defence(s, t, events)
        return
    s.candidates = list(s.nominees)
    s.votes = {}
    _enter(s, "lynch", t, "vote", events)
    events.append({"type": "vote_open", "candidates": list(s.candidates)})


def _vote(s: GameState, pl: Player, target: Any, t: float, events: Events) -> None:
    """Both ballots: changeable until every voter has voted, never for oneself."""
    if s.phase == "nomination":
        ballot.cast(s.votes, pl.id, target, s.candidates, s.has)
        if ballot.all_voted(s.votes, [p.id for p in s.players]):
            _close_nomination(s, t, events)
        return
    # The lynch: the living who are not nominated vote, secretly, between the two.
    if not pl.alive:
        raise GameError("dead_player", "ghosts do not vote in the lynch")
    if pl.id in s.nominees:
        raise GameError("not_allowed", "the nominees do not vote in the lynch")
    ballot.cast(s.votes, pl.id, target, s.candidates, s.has)
    if ballot.all_voted(s.votes, s.lynch_voters()):
        _close_lynch(s, t, events)


def _close_lynch(s: GameState, t: float, events: Events,
                 counts: dict[str, int] | None = None) -> None:
    """The most voted nominee is lynched and becomes a ghost; a tie is drawn at random."""
    tally = ballot.tally(s.votes, s.candidates) if counts is None else counts
    s.last_tally = dict(tally)
    s.ballots += [("lynch", s.day, v, c) for v, c in s.votes.items()]
    events.append({"type": "vote_closed", "tally": dict(tally)})
    top = ballot.most_voted(tally)
    lynched = top[0] if len(top) == 1 else s.rng.choice(top)
    s.votes = {}
    _kill(s, lynched, "lynched", events)
    if not _check_wins(s, events):
        s.day += 1
        _start_night(s, t, events)


# ---------------------------------------------------------------- ghosts and wins


def _kill(s: GameState, pid: str, cause: str, events: Events) -> None:
    """The player becomes a ghost: no voice, no ability, the card stays covered."""
    s.player(pid).alive = False
    s.deaths.append(Death(player=pid, day=s.day, cause=cause))
    events.append({"type": "eliminated", "player": pid, "cause": cause})


def _check_wins(s: GameState, events: Events) -> bool:
    """Checked after every death: the humans when no wolf is left; the wolves as soon as
    they are as many as the living humans. The whole faction wins, ghosts included."""
    wolves, humans = len(s.wolves()), len(s.humans())
    if wolves == 0:
        _finish(s, UMANI, s.humans(alive_only=False), events)
        return True
    if wolves >= humans:
        _finish(s, LUPI, s.wolves(alive_only=False), events)
        return True
    return False


def _finish(s: GameState, outcome: str, winners: list[str], events: Events) -> None:
    s.votes, s.candidates, s.bites, s.ready = {}, [], {}, []
    phases.game_over(s, outcome, winners, events)


# ---------------------------------------------------------------- time


def _enter(s: GameState, phase: str, t: float, timer: str, events: Events) -> None:
    phases.enter(s, phase, t, s.options["timers"][timer], events)  # every phase has a timer


def _timeout(s: GameState, d: float, events: Events) -> None:
    """A phase's time is up (or the moderator moved on): what follows starts at `d`."""
    phase = s.phase
    events.append({"type": "timeout", "phase": phase})
    if phase == "night":
        _after_nightfall(s, d, events)
    elif phase == "seer":
        _enter(s, "wolves", d, "wolves", events)
    elif phase == "wolves":
        _resolve_night(s, d, events)
    elif phase == "day":
        _open_nomination(s, d, events)
    elif phase == "nomination":
        _close_nomination(s, d, events)  # who has not voted abstains
    elif phase == "defence":
        _next_defence(s, d, events)
    elif phase == "lynch":
        _close_lynch(s, d, events)
    else:  # pragma: no cover - every phase with a deadline is handled above
        s.deadline = None


def tick(state: GameState, now: float) -> tuple[GameState, Events]:
    """Let time pass until `now`; returns a new state and what happened."""
    return phases.tick(state, now, _timeout)


# ---------------------------------------------------------------- actions


# Every action with its fields (game/actions.py checks the shape before any rule).
SHAPES = {
    "peek": {"target": PLAYER},
    "bite": {"target": PLAYER},
    "ready": {},
    "vote": {"target": PLAYER},
    "advance": {},
    "table_vote": {"tally": TALLY},  # one-phone play: the table's spoken ballot, from any seat
}
ACTIONS = tuple(SHAPES)
_PHASE_OF = {
    "peek": ("seer",),
    "bite": ("wolves",),
    "ready": ("day", "defence"),
    "vote": ("nomination", "lynch"),
    "advance": ("night", "wolves", "day", "nomination", "defence", "lynch"),
    "table_vote": ("nomination", "lynch"),
}


def apply(
    state: GameState, pid: str, action: dict[str, Any], now: float
) -> tuple[GameState, Events]:
    """Advance time to `now`, then apply `pid`'s action. Illegal: GameError, input untouched.

    The checks come in an order that tells a player nothing their view does
    not: the shape, the phase, then the player's own card, then the target.
    """
    s, events, now = phases.catch_up(state, now, _timeout)
    if not s.seated(pid):
        raise GameError("unknown_player", "no such player", player=_safe(pid))
    kind = check_shape(action, SHAPES)
    # The seer's phase has no `advance`: it lasts the same time whoever the seer is.
    check_phase(kind, s.phase, _PHASE_OF)
    if s.is_moderator(pid):
        if kind != "advance":
            raise GameError("not_allowed", "the moderator holds no card")
        _timeout(s, now, events)
        phases.advance(s, now, events, _timeout)
        return s, events
    if kind == "advance":
        raise GameError("not_allowed", "only the moderator moves the game on")
    if kind == "table_vote":  # any seat records what the table saw
        _table_vote(s, action.get("tally"), now, events)
        return s, events
    pl = s.player(pid)
    if not pl.alive and not (kind == "vote" and s.phase == "nomination"):
        raise GameError("dead_player", "ghosts keep no ability")
    if kind == "peek":
        _peek(s, pl, action["target"])
    elif kind == "bite":
        _bite(s, pl, action["target"])
    elif kind == "ready":
        _ready(s, pl, now, events)
    elif kind == "vote":
        _vote(s, pl, action["target"], now, events)
    return s, events


def allowed_actions(s: GameState, pid: str) -> list[str]:
    """The action types `pid` may send right now (the view's `me.can`)."""
    if s.phase == "over":
        return []
    if s.is_moderator(pid):
        return ["advance"] if s.phase in _PHASE_OF["advance"] else []
    pl = s.player(pid)
    if s.options["one_phone"] and s.phase in ("nomination", "lynch"):
        return ["table_vote"]
    if s.phase == "nomination":
        return ["vote"]  # ghosts too (004)
    if not pl.alive:
        return []
    if s.phase == "seer" and pl.role == VEGGENTE and not any(p.night == s.day for p in s.peeks):
        return ["peek"]
    if s.phase == "wolves" and pl.role == LUPO:
        return ["bite"]
    if s.phase == "day" and pid not in s.ready:
        return ["ready"]
    if s.phase == "defence" and s.defending() == pid:
        return ["ready"]
    if s.phase == "lynch" and pid not in s.nominees:
        return ["vote"]
    return []


# ---------------------------------------------------------------- helpers


def _target(s: GameState, target: Any) -> Player:
    if not isinstance(target, str) or not s.has(target):
        raise GameError("unknown_player", "no such player", target=_safe(target))
    return s.player(target)


def _safe(value: Any) -> Any:
    """A short JSON-able echo of bad input for error details."""
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value if not isinstance(value, str) else value[:40]
    return type(value).__name__
