"""The undercover engine's rules: Intruso (000), Infiltré (001) and Sosia, top to bottom.

A game goes: deal -> `powers` (start choices) -> rounds of `clues` (the first
opening with a moment to read one's card) ->
`debate` -> `vote` (-> `revote` -> `judge`) -> chained effects of an
elimination (`guess`, Cupido's partner, `avenge`) with a win check after each
elimination -> next round ... -> `over`.

Every public function takes a state and returns a new one; the input is never
mutated (we work on a deep copy, so a GameError leaves the caller's state as
it was). Time passes only through `now` arguments; when a deadline `d`
passes, what follows starts at `d`, so late or repeated ticks give the same
game. A phase without a timer (Sosia's default, 002) waits for the players.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from .. import ballot, phases
from .. import text as texts
from .. import words as wordlist
from ..actions import PLAYER, PLAYERS2, TALLY, TEXT, check_phase, check_shape
from ..errors import GameError
from ..table import check_players
from ..table_vote import table_tally
from ..unicode_text import clean
from .presets import (
    POWERS,
    Preset,
    get_preset,
    power_cards,
    team_counts,
    validate_options,
)
from .state import CIVILE, FANTASMA, INTRUSO, Clue, Elimination, GameState, Player

Events = list[dict[str, Any]]

# Powers that ask their holder for a choice at the start of the game.
START_CHOICES = ("cupido", "ubriacone")
CUSTOM = "custom"  # the category of a room's own word list


# ---------------------------------------------------------------- 000 §2: the deal


def new_game(
    preset: str,
    options: dict[str, Any] | None,
    seed: int,
    players: list[dict[str, Any]],
    now: float,
    *,
    deal: dict[str, Any] | None = None,
    words: Sequence[str] | None = None,
) -> GameState:
    """Deal a new game: the word pair, the teams, the power cards; then the first phase.

    `words` (`[a, b, category]`, from `draw_words`) fixes the word pair instead of
    drawing it from the word data: a server stores it with the game so that a
    replay deals the same words even if the word files changed meanwhile. Its
    orientation is still drawn here.

    `deal` fixes the draw for scripted scenarios (tests, tutorials):
    `{"roles": {pid: role}, "powers": {pid: power}}`; unnamed players are
    Civili without power. The counts are then the deal's, not the options'.
    """
    p = get_preset(preset)
    seats = check_players(players)
    opts = validate_options(preset, options, len(seats))
    rng = random.Random(seed)
    pair = (
        _pick_pair(rng, opts) if words is None
        else _fixed_pair(words)
    )
    intrusi, fantasmi = team_counts(p, opts, len(seats), rng)

    # RULES.md: the two words of a pair are dealt in random orientation.
    civ_word, intr_word = (pair.a, pair.b) if rng.random() < 0.5 else (pair.b, pair.a)

    s = GameState(
        preset=p.name,
        options=opts,
        seed=seed,
        players=[Player(id=x["id"], name=x["name"]) for x in seats],
        rng=rng,
        game=p.engine,
        word_civili=civ_word,
        word_intrusi=intr_word,
        category=pair.category,
        phase_started=now,
    )
    if deal is not None:
        roles = _fixed_roles(s, deal.get("roles") or {})
    else:
        drawn = list(range(len(seats)))
        rng.shuffle(drawn)
        roles = {}
        for k, i in enumerate(drawn):
            roles[s.players[i].id] = (
                FANTASMA if k < fantasmi else INTRUSO if k < fantasmi + intrusi else CIVILE
            )
    for pl in s.players:
        pl.role = roles[pl.id]
        # 000 §1: Civili share a word, the Intruso has the close one, the Fantasma none.
        pl.word = {CIVILE: civ_word, INTRUSO: intr_word, FANTASMA: None}[pl.role]

    events: Events = [{"type": "dealt", "intrusi": intrusi, "fantasmi": fantasmi}]
    if deal is not None:
        _fixed_powers(s, deal.get("powers") or {})
    else:
        _deal_powers(s, power_cards(opts, len(seats), rng), opts["powers"] == "auto", events)
    s.powers_waiting = [pl.id for pl in s.players if pl.power in START_CHOICES]
    if s.powers_waiting:
        _enter(s, "powers", now, "powers", events)
    else:
        _start_round(s, now, events)
    return s


def draw_words(preset: str, options: dict[str, Any], seed: int) -> list[str]:
    """The word pair `[a, b, category]` for a game of `options` and `seed`.

    Drawn from its own generator (not the game's), so a server can store it
    before the deal and pass it to `new_game` and `replay` as `words`.
    """
    rng = random.Random(f"pair:{seed}")
    chosen = _pick_pair(rng, options)
    return [chosen.a, chosen.b, chosen.category]


def _pick_pair(rng: random.Random, options: dict[str, Any]) -> wordlist.WordPair:
    """A pair of the room's own list (category `custom`), else of the word data."""
    custom = options.get("custom_words")
    if custom:
        a, b = custom[rng.randrange(len(custom))]
        return wordlist.WordPair(a, b, CUSTOM)
    return wordlist.pick_pair(rng, options["lang"], options["categories"])


def _fixed_pair(pair: Sequence[str]) -> wordlist.WordPair:
    if (
        not isinstance(pair, (list, tuple)) or len(pair) != 3
        or not all(isinstance(x, str) and x.strip() for x in pair)
    ):
        raise GameError("bad_action", "pair must be [word, word, category]")
    return wordlist.WordPair(pair[0], pair[1], pair[2])


# ---------------------------------------------------------------- 000 §7: power cards


def _deal_powers(s: GameState, cards: list[str], auto: bool, events: Events) -> None:
    """At most one power per player, never one that makes no sense for its holder.

    Gemelli go to two Civili, the Sabotatore to someone with a word. Cards that
    cannot be placed are left out (event `power_skipped`). Drawn at random
    ("auto"), the Gemelli need three Civili so they do not give the game away.
    """
    # The constrained cards first, so the free ones cannot take their only holders.
    ordered = sorted(cards, key=lambda c: (c not in ("gemelli", "sabotatore"), POWERS.index(c)))
    for card in ordered:
        free = [pl for pl in s.players if pl.power is None]
        if card == "gemelli":
            pool = [pl for pl in free if pl.role == CIVILE]
            civili = sum(pl.role == CIVILE for pl in s.players)
            if len(pool) < 2 or (auto and civili < 3):
                events.append({"type": "power_skipped", "power": card})
                continue
            a, b = s.rng.sample(pool, 2)
            a.power = b.power = "gemelli"
            a.known.append({"player": b.id, "fact": "twin"})
            b.known.append({"player": a.id, "fact": "twin"})
            continue
        pool = [pl for pl in free if pl.word is not None] if card == "sabotatore" else free
        if not pool:
            events.append({"type": "power_skipped", "power": card})
            continue
        holder = s.rng.choice(pool)
        holder.power = card
        if card == "spia":
            # The Spia learns the name of one other player holding the Civili word.
            seen = [pl for pl in s.players if pl.id != holder.id and pl.role == CIVILE]
            if seen:
                holder.known.append({"player": s.rng.choice(seen).id, "fact": "civili_word"})


def _fixed_roles(s: GameState, roles: dict[str, str]) -> dict[str, str]:
    out = {pl.id: CIVILE for pl in s.players}
    for pid, role in roles.items():
        if pid not in out or role not in (CIVILE, INTRUSO, FANTASMA):
            raise GameError("bad_action", "bad deal", player=pid, role=role)
        out[pid] = role
    civili = sum(r == CIVILE for r in out.values())
    if civili <= len(out) - civili:
        raise GameError("too_many_infiltrators", "Civili must outnumber the infiltrators")
    return out


def _fixed_powers(s: GameState, powers: dict[str, str]) -> None:
    twins = [pid for pid, power in powers.items() if power == "gemelli"]
    for pid, power in powers.items():
        if power not in POWERS or not s.has(pid):
            raise GameError("bad_action", "bad deal", player=pid, power=power)
        s.player(pid).power = power
        if power == "spia":
            seen = [pl for pl in s.players if pl.id != pid and pl.role == CIVILE]
            s.player(pid).known.append({"player": s.rng.choice(seen).id, "fact": "civili_word"})
    if twins:
        a, b = twins
        s.player(a).known.append({"player": b, "fact": "twin"})
        s.player(b).known.append({"player": a, "fact": "twin"})


def _bind(s: GameState, cupido: Player, target: str) -> None:
    """Cupido binds one other player to his heart; the bound player is not told."""
    s.cupid = [cupido.id, target]
    cupido.known.append({"player": target, "fact": "bound_by_me"})


def _intoxicate(s: GameState, drunkard: Player, targets: list[str]) -> None:
    """The Ubriacone's two victims speak through the drunk voice for the whole game."""
    s.drunk = sorted(targets, key=_seat_key(s))
    for t in s.drunk:
        drunkard.known.append({"player": t, "fact": "drunk_by_me"})


def _end_powers_if_done(s: GameState, t: float, events: Events) -> None:
    if not s.powers_waiting:
        _start_round(s, t, events)


# ---------------------------------------------------------------- 000 §3: the clues


def _start_round(s: GameState, t: float, events: Events) -> None:
    """A new round: the order is drawn anew; a Fantasma never speaks first."""
    s.round += 1
    order = s.living_ids()
    s.rng.shuffle(order)
    if s.player(order[0]).role == FANTASMA:
        first = next((i for i, pid in enumerate(order) if s.player(pid).role != FANTASMA), 0)
        order.insert(0, order.pop(first))
    s.order = order
    s.turn_index = 0
    s.ready = []
    s.votes = {}
    s.candidates = []
    s.acting = None
    _enter(s, "clues", t, "clue", events)
    _start_reading(s, t, events)
    events.append({"type": "turn", "player": order[0]})


def _start_reading(s: GameState, t: float, events: Events) -> None:
    """000 §2 "each discovers their word in secret": before the first clue, a moment to read
    one's card (`reading_time` seconds), over when every living player has read it or the first
    speaker gives the clue. The first turn's timer starts after it; a game without a clue
    timer (Sosia's own pace) waits for the players here too. On one phone the card is read
    when the phone is passed, so no wait."""
    seconds = s.options.get("reading_time") or 0
    if s.round != 1 or not seconds or s.options["one_phone"]:
        return
    s.reading = True
    s.deadline = None if s.options["timers"]["clue"] is None else t + seconds
    events.append({"type": "reading", "until": s.deadline})


def _end_reading(s: GameState, t: float, events: Events) -> None:
    """Everyone has read their card (or the time is up): the first turn's timer starts now."""
    s.reading = False
    s.ready = []
    phases.enter(s, "clues", t, s.options["timers"]["clue"], events, announce=False)
    events.append({"type": "reading_over"})


def _read(s: GameState, pl: Player, t: float, events: Events) -> None:
    if not s.reading:
        raise GameError("wrong_phase", "ready is not possible now", phase=s.phase)
    if s.mark_ready(pl.id):
        _end_reading(s, t, events)


def _previous_clue(s: GameState) -> str | None:
    """The clue given just before (the previous round's last one when first; None if none)."""
    for clue in reversed(s.clues):
        if not clue.skipped:
            return clue.text
    return None


def _give_clue(s: GameState, pl: Player, text: Any, t: float, events: Events) -> None:
    if s.order[s.turn_index] != pl.id:
        raise GameError("not_your_turn", "it is not your turn", turn=s.order[s.turn_index])
    if not isinstance(text, str):
        raise GameError("bad_action", "a clue is a text", field="text")
    cleaned = texts.check_clue(
        text,
        pl.word,  # the Fantasma has no word: nothing to hide
        s.options["lang"],
        emoji_only=pl.power == "muto",
        must_repeat_from=_previous_clue(s) if pl.power == "pappagallo" else None,
    )
    if s.reading:  # the first speaker has read their card: the moment is over for all
        s.reading = False
        s.ready = []
    s.clues.append(Clue(round=s.round, player=pl.id, text=cleaned))
    events.append({"type": "clue", "player": pl.id})
    _next_turn(s, t, events)


def _spoken_clue(s: GameState, pl: Player, t: float, events: Events) -> None:
    """One-phone play: the clue is said aloud at the table; the phone only moves the turn on.

    The table hears it and holds the speaker to the clue rules (a Muto mimes).
    """
    if not s.options["one_phone"]:
        raise GameError("not_allowed", "clues are typed unless the game is on one phone")
    if s.order[s.turn_index] != pl.id:
        raise GameError("not_your_turn", "it is not your turn", turn=s.order[s.turn_index])
    s.clues.append(Clue(round=s.round, player=pl.id, text="", spoken=True))
    events.append({"type": "clue", "player": pl.id})
    _next_turn(s, t, events)


def _next_turn(s: GameState, t: float, events: Events) -> None:
    s.turn_index += 1
    if s.turn_index >= len(s.order):
        _enter(s, "debate", t, "debate", events)
        return
    phases.enter(s, "clues", t, s.options["timers"]["clue"], events, announce=False)
    events.append({"type": "turn", "player": s.order[s.turn_index]})


# ---------------------------------------------------------------- 000 §4: the debate


def _swap(s: GameState, pl: Player, target: Any, events: Events) -> None:
    """Sabotatore, once per game: words swap, teams follow the words, both see their new word.

    Any other living player may be chosen and the card is used whatever happens: a
    target without a word (the Fantasma) keeps none and the Sabotatore keeps his, so
    his screen looks just as after swapping two equal words. A refusal would tell him
    who the Fantasma is (docs/rules.md).
    """
    if pl.power != "sabotatore":
        raise GameError("not_allowed", "only the Sabotatore swaps words")
    if s.swap_used:
        raise GameError("already_used", "the swap is used once per game")
    other = _living_target(s, target)
    if other.id == pl.id:
        raise GameError("not_allowed", "swap with another player")
    if other.word is not None:
        pl.word, other.word = other.word, pl.word
        pl.role, other.role = other.role, pl.role
    s.swap_used = True
    pl.known.append({"player": other.id, "fact": "swapped_with"})
    other.known.append({"player": None, "fact": "word_swapped"})
    events.append({"type": "swap"})


def _ready(s: GameState, pl: Player, t: float, events: Events) -> None:
    if s.mark_ready(pl.id):
        _open_ballot(s, "vote", s.living_ids(), t, events)


# ---------------------------------------------------------------- 000 §5: vote and elimination


def _open_ballot(s: GameState, phase: str, candidates: list[str], t: float, events: Events) -> None:
    if phase == "vote":
        s.vote_session += 1
    s.votes = {}
    s.candidates = list(candidates)
    _enter(s, phase, t, "vote", events)
    events.append({"type": "vote_open", "candidates": list(candidates)})


def _vote(s: GameState, pl: Player, target: Any, t: float, events: Events) -> None:
    """Secret, changeable until every living player has voted; never for oneself."""
    living = [c for c in s.candidates if s.player(c).alive]
    ballot.cast(s.votes, pl.id, target, living, s.has)
    if ballot.all_voted(s.votes, s.living_ids()):
        _close_ballot(s, t, events)


def _table_vote(s: GameState, raw: Any, t: float, events: Events) -> None:
    """One-phone play: the table's spoken vote closes the ballot with its tally."""
    living = s.living_ids()
    counts = table_tally(s.options, raw, [c for c in s.candidates if c in living], len(living))
    _close_ballot(s, t, events, counts)


def _close_ballot(s: GameState, t: float, events: Events,
                  counts: dict[str, int] | None = None) -> None:
    """The most voted goes; a tie goes to a revote among the tied; tied again: see the preset.

    `counts`: the table's tally in one-phone play instead of the cast votes.
    """
    s.last_tally = ballot.tally(s.votes, s.candidates) if counts is None else counts
    s.ballots.append(dict(s.votes))  # the votes that counted (points and awards)
    events.append({"type": "vote_closed", "tally": dict(s.last_tally)})
    nobody = not s.votes if counts is None else not any(counts.values())
    if nobody and s.phase == "vote":
        # Nobody voted (everyone abstained): nobody was designated.
        events.append({"type": "no_elimination", "why": "no_votes"})
        _resolve(s, t, events)
        return
    # In a revote nobody voting leaves the tie standing: every candidate is still tied
    # and what follows a tie after the revote applies (RULES.md).
    tied = ballot.most_voted(s.last_tally)
    if len(tied) == 1:
        _eliminate(s, tied[0], "vote", t, events)
    elif s.phase == "vote":
        _open_ballot(s, "revote", tied, t, events)
    else:
        _second_tie(s, tied, t, events)


def _second_tie(s: GameState, tied: list[str], t: float, events: Events) -> None:
    """Tied again after the revote: the living Giudice decides, secretly; else the preset's rule."""
    judge = next((pl for pl in s.living() if pl.power == "giudice"), None)
    if judge is not None:
        s.candidates = list(tied)
        s.acting = judge.id
        _enter(s, "judge", t, "pick", events)
        return
    _no_judge(s, tied, t, events)


def _no_judge(s: GameState, tied: list[str], t: float, events: Events) -> None:
    if _preset(s).second_tie == "random":  # 001: "le sort tranche"
        _eliminate(s, s.rng.choice(tied), "vote", t, events)
        return
    events.append({"type": "no_elimination", "why": "tie"})  # 000 §5: nobody is eliminated
    _resolve(s, t, events)


def _eliminate(s: GameState, pid: str, cause: str, t: float, events: Events) -> None:
    s.pending.append({"do": "eliminate", "player": pid, "cause": cause})
    _resolve(s, t, events)


def _resolve(s: GameState, t: float, events: Events) -> None:
    """Run the chained effects of eliminations in order, then start a new round.

    For each elimination: the role is revealed (never the word); an eliminated
    Fantasma guesses first; then the win checks; then Cupido's partner goes
    too; then the Vendicatore picks one to take along. A step that needs a
    player's decision opens its phase and waits.
    """
    while s.pending:
        step = s.pending.pop(0)
        kind = step["do"]
        if kind == "eliminate":
            _do_eliminate(s, step["player"], step["cause"], events)
        elif kind == "guess":
            s.acting = step["player"]
            s.candidates = []
            _enter(s, "guess", t, "guess", events)
            return
        elif kind == "avenge":
            targets = [pid for pid in s.living_ids() if pid != step["player"]]
            if targets:
                s.acting = step["player"]
                s.candidates = targets
                _enter(s, "avenge", t, "pick", events)
                return
        elif kind == "check":
            if _check_wins(s, step["player"], t, events):
                return
    _start_round(s, t, events)


def _do_eliminate(s: GameState, pid: str, cause: str, events: Events) -> None:
    pl = s.player(pid)
    if not pl.alive:
        return
    pl.alive = False
    pl.revealed_role = pl.role
    s.eliminations.append(
        Elimination(player=pid, role=pl.role, round=s.round, cause=cause, session=s.vote_session)
    )
    events.append({"type": "eliminated", "player": pid, "role": pl.role, "cause": cause})
    follow: list[dict[str, Any]] = []
    if pl.role == FANTASMA or (pl.role == INTRUSO and _preset(s).intruso_guesses):
        follow.append({"do": "guess", "player": pid})
    follow.append({"do": "check", "player": pid})
    partner = _cupid_partner(s, pid)
    if partner is not None and s.player(partner).alive:
        follow.append({"do": "eliminate", "player": partner, "cause": "cupid"})
    if pl.power == "vendicatore":
        follow.append({"do": "avenge", "player": pid})
    s.pending[:0] = follow


def _cupid_partner(s: GameState, pid: str) -> str | None:
    if len(s.cupid) == 2 and pid in s.cupid:
        return s.cupid[1] if s.cupid[0] == pid else s.cupid[0]
    return None


def _judge(s: GameState, pl: Player, target: Any, t: float, events: Events) -> None:
    if pl.id != s.acting:
        raise GameError("not_allowed", "only the Giudice decides")
    if target not in s.candidates:
        raise GameError("not_a_candidate", "choose one of the tied players", target=target)
    s.acting = None
    _eliminate(s, target, "vote", t, events)


def _avenge(s: GameState, pl: Player, target: Any, t: float, events: Events) -> None:
    if pl.id != s.acting:
        raise GameError("not_allowed", "only the eliminated Vendicatore avenges")
    if not isinstance(target, str) or not s.has(target):
        raise GameError("unknown_player", "no such player", target=target)
    if target not in s.candidates or not s.player(target).alive:
        raise GameError("not_a_candidate", "choose a living player", target=target)
    s.acting = None
    s.pending.insert(0, {"do": "eliminate", "player": target, "cause": "avenger"})
    _resolve(s, t, events)


def _guess(s: GameState, pl: Player, word: Any, t: float, events: Events) -> None:
    """The eliminated Fantasma's last chance: the Civili word wins (alone in 000, camp in 001).

    Sosia (002 §5): the eliminated Intruso's one guess; right, the impostors win.
    """
    if pl.id != s.acting:
        raise GameError("not_allowed", "only the eliminated Fantasma guesses")
    if not isinstance(word, str) or not word.strip():
        raise GameError("bad_action", "a guess is a word", field="word")
    right = texts.guess_matches(word, s.word_civili, s.word_intrusi, s.options["lang"])
    s.guesses.append({"player": pl.id, "word": clean(word)[:60], "right": right})
    events.append({"type": "guess", "player": pl.id, "right": right})
    s.acting = None
    if right and pl.role == INTRUSO:
        _finish(s, "infiltrati", [x.id for x in s.players if x.role != CIVILE], events)
        return
    if right:
        if _preset(s).guess_wins_camp:
            winners = [x.id for x in s.players if x.role in (INTRUSO, FANTASMA)]
        else:
            winners = [pl.id]
        _finish(s, "fantasma", winners, events)
        return
    _resolve(s, t, events)


# ---------------------------------------------------------------- 000 §6: who wins


def _check_wins(s: GameState, just_out: str, t: float, events: Events) -> bool:
    """Win checks after an elimination, in RULES.md's order (the guess came just before)."""
    pl = s.player(just_out)
    last = next(e for e in reversed(s.eliminations) if e.player == just_out)
    if pl.power == "buffone" and last.session == 1:
        _finish(s, "buffone", [pl.id], events)
        return True
    civili = sum(1 for x in s.living() if x.role == CIVILE)
    infiltrators = sum(1 for x in s.living() if x.role != CIVILE)
    camp = [x.id for x in s.players if x.role != CIVILE]
    if infiltrators == 0:
        _finish(s, "civili", [x.id for x in s.players if x.role == CIVILE], events)
        return True
    if _preset(s).infiltrators_win == "parity":
        won = infiltrators >= civili
    else:
        won = civili <= 1
    if won:
        _finish(s, "infiltrati", camp, events)
        return True
    return False


def _finish(s: GameState, outcome: str, winners: list[str], events: Events) -> None:
    """The game ends; a Cupido pair still alive wins as well, whatever the winner."""
    won = set(winners)
    if len(s.cupid) == 2 and all(s.player(pid).alive for pid in s.cupid):
        won.update(s.cupid)
    s.pending = []
    s.acting = None
    s.candidates = []
    phases.game_over(s, outcome, won, events)


# ---------------------------------------------------------------- time


def _enter(s: GameState, phase: str, t: float, timer: str, events: Events) -> None:
    phases.enter(s, phase, t, s.options["timers"][timer], events)  # None: no timer (Sosia)


def _timeout(s: GameState, d: float, events: Events) -> None:
    phase = s.phase
    events.append({"type": "timeout", "phase": phase})
    if phase == "powers":
        # Whoever has not chosen gets a random choice.
        for pid in list(s.powers_waiting):
            pl = s.player(pid)
            others = [x.id for x in s.players if x.id != pid]
            if pl.power == "cupido":
                _bind(s, pl, s.rng.choice(others))
            else:
                _intoxicate(s, pl, s.rng.sample(others, 2))
        s.powers_waiting = []
        _start_round(s, d, events)
    elif phase == "clues" and s.reading:
        _end_reading(s, d, events)
    elif phase == "clues":
        # 000 §3: who does not answer in time skips the turn; the board keeps it.
        s.clues.append(Clue(round=s.round, player=s.order[s.turn_index], text="", skipped=True))
        _next_turn(s, d, events)
    elif phase == "debate":
        _open_ballot(s, "vote", s.living_ids(), d, events)
    elif phase in ("vote", "revote"):
        _close_ballot(s, d, events)  # who has not voted abstains
    elif phase == "judge":
        # A silent Giudice is as no Giudice: the preset's rule (nobody, or a draw in 001).
        s.acting = None
        _no_judge(s, list(s.candidates), d, events)
    elif phase == "avenge":
        s.acting = None
        _resolve(s, d, events)
    elif phase == "guess":
        s.guesses.append({"player": s.acting, "word": None, "right": False})
        s.acting = None
        _resolve(s, d, events)
    else:  # pragma: no cover - every phase with a deadline is handled above
        s.deadline = None


def tick(state: GameState, now: float) -> tuple[GameState, Events]:
    """Let time pass until `now`; returns a new state and what happened."""
    return phases.tick(state, now, _timeout)


# ---------------------------------------------------------------- actions


# Every action with its fields (game/actions.py checks the shape before any rule).
SHAPES = {
    "bind": {"target": PLAYER},
    "intoxicate": {"targets": PLAYERS2},
    "clue": {"text": TEXT},
    "ready": {},
    "swap": {"target": PLAYER},
    "vote": {"target": PLAYER},
    "judge": {"target": PLAYER},
    "avenge": {"target": PLAYER},
    "guess": {"word": TEXT},
    "done": {},  # one-phone play: the speaker said the clue aloud
    "table_vote": {"tally": TALLY},  # one-phone play: the table's spoken vote, from any seat
}
ACTIONS = tuple(SHAPES)
_PHASE_OF = {
    "bind": ("powers",),
    "intoxicate": ("powers",),
    "clue": ("clues",),
    "ready": ("debate", "clues"),  # in the clues: while reading one's card
    "swap": ("debate",),
    "vote": ("vote", "revote"),
    "judge": ("judge",),
    "avenge": ("avenge",),
    "guess": ("guess",),
    "done": ("clues",),
    "table_vote": ("vote", "revote"),
}
_BY_THE_DEAD = ("avenge", "guess", "table_vote")


def apply(
    state: GameState, pid: str, action: dict[str, Any], now: float
) -> tuple[GameState, Events]:
    """Advance time to `now`, then apply `pid`'s action. Illegal: GameError, input untouched."""
    s, events, now = phases.catch_up(state, now, _timeout)
    if not isinstance(pid, str) or not s.has(pid):
        raise GameError("unknown_player", "no such player", player=_safe(pid))
    kind = check_shape(action, SHAPES)
    check_phase(kind, s.phase, _PHASE_OF)
    pl = s.player(pid)
    if not pl.alive and kind not in _BY_THE_DEAD:
        raise GameError("dead_player", "eliminated players do not act")
    if kind == "bind":
        if pl.power != "cupido" or pid not in s.powers_waiting:
            raise GameError("not_allowed", "only Cupido binds, once")
        target = _target(s, action.get("target"))
        if target.id == pid:
            raise GameError("not_allowed", "bind another player")
        _bind(s, pl, target.id)
        s.powers_waiting.remove(pid)
        _end_powers_if_done(s, now, events)
    elif kind == "intoxicate":
        if pl.power != "ubriacone" or pid not in s.powers_waiting:
            raise GameError("not_allowed", "only the Ubriacone intoxicates, once")
        raw = action.get("targets")
        if not isinstance(raw, list) or len(raw) != 2 or len(set(map(str, raw))) != 2:
            raise GameError("bad_action", "choose two different players", field="targets")
        targets = [_target(s, x) for x in raw]
        if any(x.id == pid for x in targets):
            raise GameError("not_allowed", "choose two other players")
        _intoxicate(s, pl, [x.id for x in targets])
        s.powers_waiting.remove(pid)
        _end_powers_if_done(s, now, events)
    elif kind == "clue":
        _give_clue(s, pl, action.get("text"), now, events)
    elif kind == "ready" and s.phase == "clues":
        _read(s, pl, now, events)
    elif kind == "ready":
        _ready(s, pl, now, events)
    elif kind == "swap":
        _swap(s, pl, action.get("target"), events)
    elif kind == "vote":
        _vote(s, pl, action.get("target"), now, events)
    elif kind == "judge":
        _judge(s, pl, action.get("target"), now, events)
    elif kind == "avenge":
        _avenge(s, pl, action.get("target"), now, events)
    elif kind == "guess":
        _guess(s, pl, action.get("word"), now, events)
    elif kind == "done":
        _spoken_clue(s, pl, now, events)
    elif kind == "table_vote":
        _table_vote(s, action.get("tally"), now, events)
    return s, events


def allowed_actions(s: GameState, pid: str) -> list[str]:
    """The action types `pid` may send right now (the view's `me.can`)."""
    pl = s.player(pid)
    can: list[str] = []
    if s.phase == "over":
        return can
    if s.options["one_phone"] and s.phase in ("vote", "revote"):
        can.append("table_vote")  # any seat speaks for the table
    if s.phase == "guess" and s.acting == pid:
        return ["guess"]
    if s.phase == "avenge" and s.acting == pid:
        return ["avenge"]
    if not pl.alive:
        return can
    if s.phase == "powers" and pid in s.powers_waiting:
        can.append("bind" if pl.power == "cupido" else "intoxicate")
    elif s.phase == "clues":
        if s.reading and pid not in s.ready:
            can.append("ready")
        if s.order[s.turn_index] == pid:
            can.append("clue")
            if s.options["one_phone"]:
                can.append("done")
    elif s.phase == "debate":
        if pid not in s.ready:
            can.append("ready")
        if pl.power == "sabotatore" and not s.swap_used:
            can.append("swap")
    elif s.phase in ("vote", "revote"):
        can.append("vote")
    elif s.phase == "judge" and s.acting == pid:
        can.append("judge")
    return can


# ---------------------------------------------------------------- helpers


def _preset(s: GameState) -> Preset:
    return get_preset(s.preset)


def _target(s: GameState, target: Any) -> Player:
    if not isinstance(target, str) or not s.has(target):
        raise GameError("unknown_player", "no such player", target=_safe(target))
    return s.player(target)


def _living_target(s: GameState, target: Any) -> Player:
    pl = _target(s, target)
    if not pl.alive:
        raise GameError("dead_player", "that player is out of the game", target=pl.id)
    return pl


def _seat_key(s: GameState):
    seats = {pl.id: i for i, pl in enumerate(s.players)}
    return lambda pid: seats.get(pid, 0)


def _safe(value: Any) -> Any:
    """A short JSON-able echo of bad input for error details."""
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value if not isinstance(value, str) else value[:40]
    if isinstance(value, dict):
        return _safe(value.get("type"))
    return type(value).__name__
