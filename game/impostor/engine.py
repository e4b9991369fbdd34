"""Impostore's rules (002), top to bottom.

A game goes: deal -> `card` (everyone looks at their card; "Non conosco la
parola" may open a `word_vote`) -> `clues` (spoken, 1 to 5 rounds, guided or
free turns) -> `vote` (discuss and vote; a tie -> `runoff`) -> an eliminated
impostor's `guess` -> who wins: at the first vote the game ends; by
elimination a new `clues` phase follows until a side has won -> `over`.

Every public function takes a state and returns a new one; the input is
never mutated (a GameError leaves the caller's state as it was). Time passes
only through `now`; when a deadline `d` passes, what follows starts at `d`.
A phase without a timer (002's default pace) waits for the players.
"""

from __future__ import annotations

import random
from typing import Any

from .. import ballot, phases
from .. import text as texts
from ..actions import FLAG, PLAYER, TALLY, TEXT, check_phase, check_shape
from ..errors import GameError
from ..table import check_players
from ..table_vote import table_tally
from ..unicode_text import clean
from . import wordbank
from .presets import MAX_WORD_REQUESTS, get_preset, table_setup, validate_options
from .state import (
    COMPLICE,
    GEMELLO,
    IMPOSTORE,
    INNOCENTE,
    PAGLIACCIO,
    SIDE,
    Ballot,
    Elimination,
    GameState,
    Player,
    Turn,
)

Events = list[dict[str, Any]]

# ---------------------------------------------------------------- 002 §1: a secret word


def draw_words(preset: str, options: dict[str, Any], seed: int) -> dict[str, Any]:
    """The words of a game: a category and its words, the first dealt, the others in
    reserve for "Non conosco la parola" (`{"category", "words": [{"word", "hints"}]}`).

    Drawn from their own generator (not the game's), so a server can store them
    before the deal and pass them to `new_game` and `replay` as `words`.
    """
    rng = random.Random(f"words:{seed}")
    return wordbank.draw(rng, options["lang"], options["categories"], 1 + MAX_WORD_REQUESTS,
                         custom=options.get("custom_words"))


def _check_words(words: Any) -> dict[str, Any]:
    ok = (isinstance(words, dict) and isinstance(words.get("category"), str)
          and isinstance(words.get("words"), list) and words["words"]
          and all(isinstance(w, dict) and isinstance(w.get("word"), str) and w["word"].strip()
                  and isinstance(w.get("hints", []), list) for w in words["words"]))
    if not ok:
        raise GameError("bad_action", "words must be {category, words: [{word, hints}]}")
    return {"category": words["category"],
            "words": [{"word": w["word"], "hints": [str(h) for h in w.get("hints", [])]}
                      for w in words["words"]]}


def new_game(
    preset: str,
    options: dict[str, Any] | None,
    seed: int,
    players: list[dict[str, Any]],
    now: float,
    *,
    deal: dict[str, Any] | None = None,
    words: dict[str, Any] | None = None,
) -> GameState:
    """Deal a new game: the word, the roles, what each card shows; then the `card` phase.

    `words` (from `draw_words`) are the game's words; without them they are drawn
    now. `deal` fixes the roles for scripted games: `{"roles": {pid: role}}`
    (unnamed players are innocents; the counts are then the deal's).
    """
    p = get_preset(preset)
    seats = check_players(players)
    opts = validate_options(preset, options, len(seats))
    rng = random.Random(seed)
    chosen = _check_words(words if words is not None else draw_words(preset, opts, seed))
    s = GameState(
        preset=p.name, options=opts, seed=seed, rng=rng, game=p.engine,
        players=[Player(id=x["id"], name=x["name"]) for x in seats],
        category=chosen["category"], reserve=chosen["words"], phase_started=now,
    )
    roles = _fixed_roles(s, deal.get("roles") or {}) if deal is not None else _draw_roles(s)
    for pl in s.players:
        pl.role = roles[pl.id]
    s.impostor_count = sum(pl.role == IMPOSTORE for pl in s.players)
    present = {pl.role for pl in s.players}
    s.roles_in_play = [r for r, role in (("complice", COMPLICE), ("gemelli", GEMELLO),
                                         ("pagliaccio", PAGLIACCIO)) if role in present]
    _show_cards(s)
    _deal_word(s, 0)
    s.requests_left = min(MAX_WORD_REQUESTS, len(s.reserve) - 1)
    phases.enter(s, "card", now, s.options["timers"]["clue"], [])
    return s


def _draw_roles(s: GameState) -> dict[str, str]:
    """002 "Ruoli" and "Quanti impostori": the count is fixed or drawn (1 to about
    one every two players); the optional roles the table can hold are dealt."""
    n = len(s.players)
    roles_in_play, most = table_setup(s.options, n)
    count = s.options["impostors"]
    if count == "random":
        count = s.rng.randint(1, most)
    seats = [pl.id for pl in s.players]
    s.rng.shuffle(seats)
    dealt = [IMPOSTORE] * count
    for role in roles_in_play:
        dealt += [GEMELLO, GEMELLO] if role == "gemelli" else [role]
    dealt += [INNOCENTE] * (n - len(dealt))
    return dict(zip(seats, dealt, strict=True))


def _fixed_roles(s: GameState, roles: dict[str, str]) -> dict[str, str]:
    out = {pl.id: INNOCENTE for pl in s.players}
    for pid, role in roles.items():
        if pid not in out or role not in SIDE:
            raise GameError("bad_action", "bad deal", player=pid, role=role)
        out[pid] = role
    if IMPOSTORE not in out.values():
        raise GameError("bad_action", "a deal needs an impostor")
    if list(out.values()).count(GEMELLO) not in (0, 2):
        raise GameError("bad_action", "the Gemelli are two")
    return out


def _show_cards(s: GameState) -> None:
    """Who knows whom from their card: the Complice the impostors, the Gemelli each
    other, the impostors each other when the room says so (marked on the avatars)."""
    impostors = [pl.id for pl in s.players if pl.role == IMPOSTORE]
    twins = [pl.id for pl in s.players if pl.role == GEMELLO]
    for pl in s.players:
        if pl.role == COMPLICE or (pl.role == IMPOSTORE and s.options["impostors_know"]):
            pl.known += [{"player": x, "fact": "impostor"} for x in impostors if x != pl.id]
        if pl.role == GEMELLO:
            pl.known += [{"player": x, "fact": "twin"} for x in twins if x != pl.id]


def _deal_word(s: GameState, index: int) -> None:
    """The `index`-th word of the game becomes the secret; the impostors' hint with it."""
    entry = s.reserve[index]
    s.word = entry["word"]
    s.words_seen.append(entry["word"])
    hints = entry.get("hints") or []
    s.hint = s.rng.choice(hints) if hints else None


# ---------------------------------------------------------------- 002 §2: the card


def _seen(s: GameState, pl: Player, t: float, events: Events) -> None:
    if s.mark_ready(pl.id):
        if s.word_request:  # one-phone play: the request waited for the last card
            _open_word_vote(s, t, events)
        else:
            _start_clues(s, t, events)


def _ask_word(s: GameState, pl: Player, t: float, events: Events) -> None:
    """"Non conosco la parola": anonymous; opens a yes/no vote on changing the word.

    Limits (docs/rules-impostore.md): during the card phase only, at most
    MAX_WORD_REQUESTS per game, one per player and word.
    """
    if s.requests_left <= 0:
        raise GameError("no_requests_left", "no more word changes can be asked in this game")
    if pl.id in s.asked:
        raise GameError("already_asked", "you already asked about this word")
    s.asked.append(pl.id)
    if s.options["one_phone"]:
        # The asker holds the phone alone: the request waits for every card to be seen
        # (docs/rules-impostore.md), and a second one meanwhile joins the first.
        if not s.word_request:
            s.requests_left -= 1
        s.word_request = True
        if s.all_ready():
            _open_word_vote(s, t, events)
        return
    s.requests_left -= 1
    _open_word_vote(s, t, events)


def _open_word_vote(s: GameState, t: float, events: Events) -> None:
    s.word_request = False
    s.word_votes = {}
    phases.enter(s, "word_vote", t, s.options["timers"]["clue"], events)
    events.append({"type": "word_request"})  # never who asked
    events.append({"type": "vote_open", "candidates": []})


def _word_vote(s: GameState, pl: Player, change: bool, t: float, events: Events) -> None:
    s.word_votes[pl.id] = change
    if all(pid in s.word_votes for pid in s.living_ids()):
        _close_word_vote(s, t, events)


def _table_word_vote(s: GameState, change: bool, t: float, events: Events) -> None:
    """One-phone play: the table voted aloud; one tap says whether the yes won."""
    if not s.options["one_phone"]:
        raise GameError("not_allowed", "the table votes in one go only in one-phone play")
    s.word_votes = {}
    _close_word_vote(s, t, events, table=change)


def _close_word_vote(s: GameState, t: float, events: Events, table: bool | None = None) -> None:
    """More yes than no: a new word of the same category, roles unchanged; then the
    card again (everyone looks at the new one). `table`: the table's spoken outcome
    in one-phone play (recorded as one yes or one no: the counts are not known)."""
    if table is None:
        yes = sum(s.word_votes.values())
        no = len(s.word_votes) - yes
    else:
        yes, no = int(table), int(not table)
    changed = yes > no and len(s.words_seen) < len(s.reserve)
    s.last_word_vote = {"yes": yes, "no": no, "changed": int(changed)}
    s.word_votes = {}
    events.append({"type": "word_vote_closed", "yes": yes, "no": no, "changed": changed})
    if changed:
        _deal_word(s, len(s.words_seen))
        s.asked = []
        s.ready = []
    phases.enter(s, "card", t, s.options["timers"]["clue"], events)
    if s.all_ready():
        _start_clues(s, t, events)


# ---------------------------------------------------------------- 002 §3: spoken clues


def _start_clues(s: GameState, t: float, events: Events) -> None:
    """A clue phase: a new random order (the first never an impostor if the room says
    so, and then everyone knows the first is innocent), 1 to 5 rounds."""
    s.round += 1
    s.clue_round = 1
    order = s.living_ids()
    s.rng.shuffle(order)
    if s.options["first_innocent"]:
        first = next((i for i, pid in enumerate(order) if SIDE[s.player(pid).role] == "innocent"),
                     next((i for i, pid in enumerate(order)
                           if s.player(pid).role != IMPOSTORE), 0))
        order.insert(0, order.pop(first))
        # Marked innocent for all only when true (no innocent left: a Complice may start).
        if SIDE[s.player(order[0]).role] == "innocent" and order[0] not in s.known_innocent:
            s.known_innocent.append(order[0])
    s.order = order
    s.turn_index = 0
    s.ready = []
    s.votes = {}
    s.candidates = []
    timers = s.options["timers"]
    if s.options["turns"] == "guided":
        phases.enter(s, "clues", t, timers["clue"], events)
    else:
        # Free turns: the table goes by itself; a timer covers every turn of every round.
        total = None if timers["clue"] is None else timers["clue"] * len(order) * s.options["rounds"]
        phases.enter(s, "clues", t, total, events)
    # The first speaker is called (guided) or told they start (free): a chime on their phone.
    events.append({"type": "turn", "player": order[0]})


def _done(s: GameState, pl: Player, t: float, events: Events) -> None:
    if s.order[s.turn_index] != pl.id:
        raise GameError("not_your_turn", "it is not your turn", turn=s.order[s.turn_index])
    _end_turn(s, "done", t, events)


def _end_turn(s: GameState, how: str, t: float, events: Events) -> None:
    """The called player's turn ends (they tapped, or time ran out); the next is called."""
    s.turns.append(Turn(phase=s.round, round=s.clue_round, player=s.order[s.turn_index], ended=how))
    s.turn_index += 1
    if s.turn_index >= len(s.order):
        if s.clue_round >= s.options["rounds"]:
            _open_ballot(s, "vote", s.living_ids(), t, events)
            return
        s.clue_round += 1
        s.turn_index = 0
    phases.enter(s, "clues", t, s.options["timers"]["clue"], events, announce=False)
    events.append({"type": "turn", "player": s.order[s.turn_index]})


def _free_ready(s: GameState, pl: Player, t: float, events: Events) -> None:
    if s.mark_ready(pl.id):
        _open_ballot(s, "vote", s.living_ids(), t, events)


# ---------------------------------------------------------------- 002 §4: discuss and vote


def _open_ballot(s: GameState, kind: str, candidates: list[str], t: float, events: Events) -> None:
    s.votes = {}
    s.candidates = list(candidates)
    s.ready = []
    phases.enter(s, kind, t, s.options["timers"]["discuss"], events)
    events.append({"type": "vote_open", "candidates": list(candidates)})


def _vote(s: GameState, pl: Player, target: Any, t: float, events: Events) -> None:
    """Changeable until every living player has voted; never for oneself."""
    ballot.cast(s.votes, pl.id, target, s.candidates, s.has)
    if ballot.all_voted(s.votes, s.living_ids()):
        _close_ballot(s, t, events)


def _table_vote(s: GameState, raw: Any, t: float, events: Events) -> None:
    """One-phone play: the table's spoken vote closes the ballot with its tally."""
    _close_ballot(s, t, events, table_tally(s.options, raw, s.candidates, len(s.living())))


def _close_ballot(s: GameState, t: float, events: Events,
                  counts: dict[str, int] | None = None) -> None:
    """The most voted is out; a tie -> a runoff among the tied; tied again: nobody.

    `counts`: the table's tally in one-phone play instead of the cast votes.
    """
    tally = ballot.tally(s.votes, s.candidates) if counts is None else counts
    s.ballots.append(Ballot(round=s.round, kind=s.phase, votes=dict(s.votes), tally=tally))
    events.append({"type": "vote_closed", "tally": dict(tally)})
    if not any(tally.values()) and s.phase == "vote":
        events.append({"type": "no_elimination", "why": "no_votes"})
        _after_vote(s, None, None, t, events)
        return
    top = ballot.most_voted(tally)
    if len(top) == 1:
        _eliminate(s, top[0], t, events)
    elif s.phase == "vote":
        _open_ballot(s, "runoff", top, t, events)
    else:
        events.append({"type": "no_elimination", "why": "tie"})
        _after_vote(s, None, None, t, events)


def _eliminate(s: GameState, pid: str, t: float, events: Events) -> None:
    """Out of the game, role revealed. The Pagliaccio wins at once; an impostor guesses."""
    pl = s.player(pid)
    pl.alive = False
    pl.revealed_role = pl.role
    s.eliminations.append(Elimination(player=pid, role=pl.role, round=s.round))
    s.votes, s.candidates = {}, []
    events.append({"type": "eliminated", "player": pid, "role": pl.role, "cause": "vote"})
    if pl.role == PAGLIACCIO:
        _finish(s, "pagliaccio", [pid], events)
    elif pl.role == IMPOSTORE:
        s.acting = pid
        phases.enter(s, "guess", t, s.options["timers"]["guess"], events)
    else:
        _after_vote(s, pid, None, t, events)


# ---------------------------------------------------------------- 002 §5: the impostor's guess


def _guess(s: GameState, pl: Player, word: Any, t: float, events: Events) -> None:
    """One try at the word; case, accents, an article and small typos do not matter."""
    if pl.id != s.acting:
        raise GameError("not_allowed", "only the eliminated impostor guesses")
    if not isinstance(word, str) or not word.strip():
        raise GameError("bad_action", "a guess is a word", field="word")
    right = texts.guess_matches(word, s.word, None, s.options["lang"])
    s.guesses.append({"player": pl.id, "word": clean(word)[:60], "right": right})
    events.append({"type": "guess", "player": pl.id, "right": right})
    s.acting = None
    _after_vote(s, pl.id, right, t, events)


# ---------------------------------------------------------------- 002 "Chi vince"


def _after_vote(s: GameState, out: str | None, guessed: bool | None, t: float,
                events: Events) -> None:
    """Who wins after a vote, by the room's mode.

    At the first vote: innocents if an impostor was eliminated and missed the
    word (even if others remain); impostors in every other case, a tie
    without elimination included. By elimination: a right guess wins for the
    impostors; innocents once every impostor is out; impostors once they are
    as many as the others in play; else new clues and a new vote.
    """
    impostor_out = out is not None and s.player(out).role == IMPOSTORE
    if guessed:
        _finish(s, "impostors", _team(s, "impostors"), events)
        return
    if s.options["win_mode"] == "first_vote":
        outcome = "innocents" if impostor_out else "impostors"
        _finish(s, outcome, _team(s, outcome), events)
        return
    impostors = sum(1 for pl in s.living() if pl.role == IMPOSTORE)
    others = len(s.living()) - impostors
    if impostors == 0:
        _finish(s, "innocents", _team(s, "innocents"), events)
    elif impostors >= others:
        _finish(s, "impostors", _team(s, "impostors"), events)
    else:
        _start_clues(s, t, events)


def _team(s: GameState, outcome: str) -> list[str]:
    """The innocents (the Gemelli too) or the impostors with their Complice."""
    roles = (INNOCENTE, GEMELLO) if outcome == "innocents" else (IMPOSTORE, COMPLICE)
    return [pl.id for pl in s.players if pl.role in roles]


def _finish(s: GameState, outcome: str, winners: list[str], events: Events) -> None:
    s.acting = None
    s.candidates = []
    s.votes = {}
    phases.game_over(s, outcome, winners, events)


# ---------------------------------------------------------------- time


def _timeout(s: GameState, d: float, events: Events) -> None:
    phase = s.phase
    events.append({"type": "timeout", "phase": phase})
    if phase == "card":
        if s.word_request:  # one-phone play: a request still waits for its vote
            _open_word_vote(s, d, events)
        else:
            _start_clues(s, d, events)
    elif phase == "word_vote":
        _close_word_vote(s, d, events)  # who has not voted abstains
    elif phase == "clues":
        if s.options["turns"] == "guided":
            _end_turn(s, "timeout", d, events)
        else:
            _open_ballot(s, "vote", s.living_ids(), d, events)
    elif phase in ("vote", "runoff"):
        _close_ballot(s, d, events)  # who has not voted abstains
    elif phase == "guess":
        s.guesses.append({"player": s.acting, "word": None, "right": False})
        out, s.acting = s.acting, None
        _after_vote(s, out, False, d, events)
    else:  # pragma: no cover - every phase with a deadline is handled above
        s.deadline = None


def tick(state: GameState, now: float) -> tuple[GameState, Events]:
    """Let time pass until `now`; returns a new state and what happened."""
    return phases.tick(state, now, _timeout)


# ---------------------------------------------------------------- actions

# Every action with its fields (game/actions.py checks the shape before any rule).
SHAPES = {
    "seen": {},
    "ask_word": {},
    "word_vote": {"change": FLAG},
    "done": {},
    "ready": {},
    "vote": {"target": PLAYER},
    "guess": {"word": TEXT},
    # One-phone play (option `one_phone`): the table's spoken votes, from any seat.
    "table_word_vote": {"change": FLAG},
    "table_vote": {"tally": TALLY},
}
_PHASE_OF = {
    "seen": ("card",),
    "ask_word": ("card",),
    "word_vote": ("word_vote",),
    "done": ("clues",),
    "ready": ("clues",),
    "vote": ("vote", "runoff"),
    "guess": ("guess",),
    "table_word_vote": ("word_vote",),
    "table_vote": ("vote", "runoff"),
}
_BY_THE_TABLE = ("table_word_vote", "table_vote")  # any seat speaks for the table


def apply(
    state: GameState, pid: str, action: dict[str, Any], now: float
) -> tuple[GameState, Events]:
    """Advance time to `now`, then apply `pid`'s action. Illegal: GameError, input untouched."""
    s, events, now = phases.catch_up(state, now, _timeout)
    if not isinstance(pid, str) or not s.has(pid):
        raise GameError("unknown_player", "no such player", player=str(pid)[:40])
    kind = check_shape(action, SHAPES)
    check_phase(kind, s.phase, _PHASE_OF)
    pl = s.player(pid)
    if not pl.alive and kind != "guess" and kind not in _BY_THE_TABLE:
        raise GameError("dead_player", "eliminated players do not act")
    guided = s.options["turns"] == "guided"
    if kind == "seen":
        _seen(s, pl, now, events)
    elif kind == "ask_word":
        _ask_word(s, pl, now, events)
    elif kind == "word_vote":
        _word_vote(s, pl, action["change"], now, events)
    elif kind == "done":
        if not guided:
            raise GameError("not_allowed", "free turns: tap ready when the clues are done")
        _done(s, pl, now, events)
    elif kind == "ready":
        if guided:
            raise GameError("not_allowed", "guided turns: the app calls each speaker")
        _free_ready(s, pl, now, events)
    elif kind == "vote":
        _vote(s, pl, action["target"], now, events)
    elif kind == "guess":
        _guess(s, pl, action["word"], now, events)
    elif kind == "table_word_vote":
        _table_word_vote(s, action["change"], now, events)
    elif kind == "table_vote":
        _table_vote(s, action.get("tally"), now, events)
    return s, events


def allowed_actions(s: GameState, pid: str) -> list[str]:
    """The action types `pid` may send right now (the view's `me.can`).

    "Non conosco la parola" is offered to everyone in the card phase while
    requests are left, impostors too: a button only some players had would
    tell who they are.
    """
    pl = s.player(pid)
    if s.phase == "over":
        return []
    if s.options["one_phone"] and s.phase == "word_vote":
        return ["table_word_vote"]
    if s.options["one_phone"] and s.phase in ("vote", "runoff"):
        return ["table_vote"]
    if s.phase == "guess":
        return ["guess"] if s.acting == pid else []
    if not pl.alive:
        return []
    can: list[str] = []
    if s.phase == "card":
        if pid not in s.ready:
            can.append("seen")
        if s.requests_left > 0 and pid not in s.asked:
            can.append("ask_word")
    elif s.phase == "word_vote":
        can.append("word_vote")
    elif s.phase == "clues":
        if s.options["turns"] == "guided":
            if s.order[s.turn_index] == pid:
                can.append("done")
        elif pid not in s.ready:
            can.append("ready")
    elif s.phase in ("vote", "runoff"):
        can.append("vote")
    return can
