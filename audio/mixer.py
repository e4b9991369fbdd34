"""The room mixer: one frame in per speaker, one limited mix out per listener, each tick.

Tick, in order:

1. one frame per speaker from its jitter queue (silence when there is none);
2. mouth levels on those raw frames (before routing and effects);
3. per-speaker effects ("drunk": one `DrunkVoice` per speaker, kept while
   the effect lasts so its state streams across frames). After
   `EFFECT_REST_FRAMES` (1 s) of digital silence in a row the effect is
   bypassed (its echo tail is then ~115 dB down) until sound comes back: a
   drunk player who is not talking costs nothing;
4. every source (speakers, then cues playing) is delayed by the limiter's
   1 ms look-ahead, giving a (sources x FRAME+LOOKAHEAD) window;
5. one matrix product: distinct gain rows x window. Each row is the public
   bus (same for all) with the listener's own voice zeroed, plus what is
   routed to them alone (whisper, channel mates, cues). Zeroing the own
   column instead of subtracting the voice from a summed bus makes "not
   heard" an exact zero, and the product computes each distinct mix once;
6. the limiter on each distinct mix.

Grouping: listeners whose gain rows are equal (same speakers, same cues) get
the very same output array object; the groups are recompiled only when the
players, the routing, the whispers or the set of cues playing change.

Groups do not follow who is talking at the moment (a silent speaker's column
could be ignored): the server keeps one Opus encoder per group, and regrouping
at every pause between words would keep resetting encoders.

Personal volumes and seats: each listener's row is the routing's 0/1 row
times that listener's own gains (`set_volumes`: 0 mutes, up to 1.5); with
seats on (`set_layout`), a listener who takes stereo (`set_stereo`) gets two
rows, left and right, each speaker's gain times its constant-power pan from
that listener's seat (audio/spatial.py; cues centred). The grouping key is
the listener's rows themselves, so two listeners share a mix (and an encode)
exactly when their effective gains are equal, volumes and pans included. A
listener may choose mono for themself (`set_mono`: one earbud): seats or not, they
get the room's mono rows, as a client without stereo does. A
stereo mix comes out as a (FRAME, 2) interleaved array, a mono one as (FRAME,).

A change of one's own volumes is heard at once but without a click: in the first
tick after `set_volumes` that listener's mix cross-fades from the old gains to the
new ones over `RAMP` samples (5 ms, raised cosine) and is exact from then on. For
that one tick a ramping listener has a group of their own (keyed by old and new
rows) and groups are not merged; the next tick regroups as usual.

Limiter state is kept per listener (one float, the gain in dB). A group
starts each tick from the lowest gain among its members (they are all equal
unless the group was just formed by a routing change) and writes the result
back to every member; so a listener moving to another group keeps a smooth
gain and shared arrays stay correct.
"""

from __future__ import annotations

import logging
import time
import zlib
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

import numpy as np

from audio.format import FRAME
from audio.jitter import SILENT_FRAME as _SILENT_FRAME
from audio.jitter import JitterQueue
from audio.limiter import LOOKAHEAD, limit
from audio.mouth import MouthMeter
from audio.routing import EFFECTS, Routing, gain_matrix, whisper_allowed
from audio.spatial import CENTRE, MAX_GAIN, pan_matrix, volume_matrix

__all__ = ["RoomMixer", "TickResult"]

WINDOW = FRAME + LOOKAHEAD
# A personal gain change cross-fades over 5 ms: short enough to be heard as "at once",
# long enough that a muted voice stops without a click at the frame edge.
RAMP = 240
_RAMP_IN = (0.5 - 0.5 * np.cos(np.pi * np.arange(1, RAMP + 1) / (RAMP + 1))).astype(np.float32)
EFFECT_REST_FRAMES = 50
log = logging.getLogger(__name__)

# Merged plans kept per plan (one per set of sounding speakers). A phase usually sees a
# handful of sets; a long one with many talkers coming and going could see thousands.
# Past this many, the oldest set is forgotten (it is rebuilt if it comes back).
MERGED_CACHE = 64


@dataclass
class TickResult:
    """One tick's output. Listeners with identical mixes share ONE (read-only) array."""

    mixes: dict[str, np.ndarray]  # listener -> (960,) float32, or (960, 2) for stereo
    mouths: dict[str, float]  # speaker -> 0..1
    distinct: int  # number of distinct mix arrays
    groups: list[tuple[str, ...]] = field(default_factory=list)  # listeners sharing a mix


@dataclass
class _Cue:
    samples: np.ndarray
    listeners: frozenset[str]
    pos: int = 0


@dataclass
class _Plan:
    gains: np.ndarray  # (rows x sources): one row per mono group, two per stereo group
    group_of: np.ndarray  # (listeners,) group index
    members: list[tuple[str, ...]]
    first_row: list[int]  # each group's first row in `gains`
    channels: list[int]  # each group's channel count (1 or 2)
    row_group: np.ndarray  # (rows,) the group of each row
    partner: np.ndarray | None  # (rows,) the linked row of a stereo pair; None if all mono
    players: tuple[str, ...] = ()  # the speakers' columns, in order
    # group -> its rows before a personal gain change (cross-faded from this tick)
    ramps: dict[int, np.ndarray] = field(default_factory=dict)
    # Merged plans by the speakers sounding this tick (see `_merged`): groups whose
    # rows differ only in the columns of silent speakers make the same samples.
    merged: dict[tuple[int, ...], tuple[_Plan, list[int]]] = field(default_factory=dict)


def _silent(channels: int) -> np.ndarray:
    """A read-only silent mix: FRAME samples (mono) or FRAME x 2 (stereo)."""
    a = np.zeros(FRAME if channels == 1 else (FRAME, 2), dtype=np.float32)
    a.flags.writeable = False
    return a


def _build(members_of: list, rows_of: list[np.ndarray], keys: list[bytes]) -> _Plan:
    """Group the members (players, or groups being merged) whose `keys` are equal;
    each group mixes with its first member's rows (1 row mono, 2 stereo)."""
    index: dict[bytes, int] = {}
    group_of = np.empty(len(members_of), dtype=np.intp)
    group_rows: list[np.ndarray] = []
    for i, rows in enumerate(rows_of):
        g = index.setdefault(bytes([rows.shape[0]]) + keys[i], len(index))
        if g == len(group_rows):
            group_rows.append(rows)
        group_of[i] = g
    members = [tuple(p for p, g in zip(members_of, group_of, strict=True) if g == k)
               for k in range(len(index))]
    channels = [r.shape[0] for r in group_rows]
    first_row = np.cumsum([0] + channels[:-1]).tolist()
    row_group = np.repeat(np.arange(len(group_rows)), channels)
    partner = None
    if any(c == 2 for c in channels):
        partner = np.arange(len(row_group))
        for g, c in enumerate(channels):
            if c == 2:
                r = first_row[g]
                partner[r], partner[r + 1] = r + 1, r
    gains = np.ascontiguousarray(np.vstack(group_rows), dtype=np.float32) if group_rows else \
        np.zeros((0, 0), dtype=np.float32)
    return _Plan(gains, group_of, members, first_row, channels, row_group, partner)


class RoomMixer:
    """Real-time mixer of one room; every player is a speaker and a listener."""

    def __init__(self, cues=None, seed: int = 0):
        """`cues`: a CueBank (anything with `get(name) -> ndarray`), or None."""
        self.cues = cues
        self.seed = seed
        self._players: list[str] = []
        self._queues: dict[str, JitterQueue] = {}
        self._routing = Routing()
        self._effects: dict[str, object] = {}  # speaker -> effect instance
        self._quiet: dict[str, int] = {}  # speaker with an effect -> silent frames in a row
        self._playing: list[_Cue] = []
        # The sources' window, kept from tick to tick: one row per speaker (look-ahead,
        # then this tick's frame; a silent speaker's frame part stays zero), then the
        # rows of the cues playing (as many as ever played at once).
        self._window = np.zeros((0, WINDOW), dtype=np.float32)
        self._ahead_dirty = False  # some speaker's look-ahead part may be non-zero
        self._gain_db = np.zeros(0)
        self._limiting = False  # some listener's limiter gain is below 0 dB
        self._tail_live: list[bool] = []  # speaker -> last tick's frame was written
        self._silence = {c: _silent(c) for c in (1, 2)}  # channels -> the shared silent mix
        self._mouths = MouthMeter()
        self._plan: _Plan | None = None
        self._volumes: dict[str, dict[str, float]] = {}  # listener -> speaker -> gain
        self._layout: tuple[str, ...] | None = None  # the circle of seats, when spatial
        self._stereo: set[str] = set()  # listeners who take a stereo mix
        self._mono: set[str] = set()  # listeners who chose mono for themselves
        self._pans: tuple[tuple, np.ndarray] | None = None  # (players, layout) -> pan matrix
        self._ramping: set[str] = set()  # listeners whose own gains changed since the last tick
        self._last_plan: _Plan | None = None  # the plan the last tick mixed with
        self._tick_us = 0.0
        self._ticks = 0
        self._distinct = 0
        self._queue_faults = 0  # speakers' queues that raised and were started afresh

    # ------------------------------------------------------------ players

    @property
    def players(self) -> tuple[str, ...]:
        """Players in mixer order."""
        return tuple(self._players)

    def add_player(self, pid: str) -> None:
        """Add a speaker/listener (no-op if present). Heard by nobody until routed."""
        if pid in self._queues:
            return
        self._window = np.insert(self._window, len(self._players), 0.0, axis=0)
        self._players.append(pid)
        self._queues[pid] = JitterQueue()
        self._gain_db = np.append(self._gain_db, 0.0)
        self._tail_live.append(False)
        self._mouths.add()
        self._sync_effects()
        self._plan = None

    def remove_player(self, pid: str) -> None:
        """Remove a player, their queue and their effect.

        Whispers from or to them stay in the routing: the routing's owner
        ends them (and a whisperer whose target is gone is heard by nobody
        meanwhile, never by everyone).
        """
        if pid not in self._queues:
            return
        row = self._players.index(pid)
        self._players.pop(row)
        del self._queues[pid]
        self._window = np.delete(self._window, row, axis=0)
        self._gain_db = np.delete(self._gain_db, row)
        del self._tail_live[row]
        self._mouths.remove(row)
        self._effects.pop(pid, None)
        self._quiet.pop(pid, None)
        self._volumes.pop(pid, None)
        self._stereo.discard(pid)
        self._mono.discard(pid)
        self._plan = None

    def push(self, pid: str, pcm: np.ndarray, since_tick: float | None = None,
             ts: float | None = None) -> None:
        """Queue a speaker's float32 mono 48 kHz samples (any length). Unknown ids raise KeyError.

        With `since_tick` (how long after the last tick it arrived, in periods)
        and `ts` (the media time of its first sample, in frames), a whole frame
        also times the speaker's playout: see audio.jitter.
        """
        self._queues[pid].push(pcm, since_tick, ts)

    # ------------------------------------------------------------ routing

    @property
    def routing(self) -> Routing:
        """The routing in force."""
        return self._routing

    @property
    def whispers(self) -> dict[str, str]:
        """Whispers in progress: speaker -> target (the routing's `whispering`)."""
        return dict(self._routing.whispering)

    def set_routing(self, routing: Routing) -> None:
        """Apply a new routing, its whispers in progress included, from the next tick.

        The routing is the whole truth: the mixer keeps no whisper of its own,
        so a routing without `whispering` ends every whisper.
        """
        unknown = set(routing.effects.values()) - EFFECTS
        if unknown:
            raise ValueError(f"unknown effect(s): {sorted(unknown)}")
        self._routing = routing
        self._sync_effects()
        self._plan = None

    def start_whisper(self, src: str, dst: str) -> None:
        """Shorthand for a routing with `src` whispering to `dst` (heard by `dst` only).

        Raises ValueError if either is not a player or the routing does not
        allow src -> dst. A new whisper from `src` replaces the previous one.
        """
        if src not in self._queues or dst not in self._queues:
            raise ValueError(f"unknown player in whisper {src!r} -> {dst!r}")
        if not whisper_allowed(self._routing, src, dst):
            raise ValueError(f"{src!r} may not whisper to {dst!r} now")
        if self._routing.whispering.get(src) != dst:
            whispering = {**self._routing.whispering, src: dst}
            self.set_routing(replace(self._routing, whispering=whispering))

    def stop_whisper(self, src: str) -> None:
        """Shorthand for the routing without `src`'s whisper (no-op if none)."""
        if src in self._routing.whispering:
            whispering = {s: d for s, d in self._routing.whispering.items() if s != src}
            self.set_routing(replace(self._routing, whispering=whispering))

    def play_cue(self, name: str, listeners: Iterable[str]) -> None:
        """Mix cue `name` into these listeners' mixes from the next tick, to its end.

        Raises ValueError when the mixer has no cue bank; the bank's own error
        (KeyError) for an unknown name. Unknown listeners are ignored.
        """
        if self.cues is None:
            raise ValueError("this mixer has no cue bank")
        samples = np.asarray(self.cues.get(name), dtype=np.float32).reshape(-1)
        chosen = frozenset(listeners) & frozenset(self._players)
        if samples.size and chosen:
            self._playing.append(_Cue(samples, chosen))
            self._plan = None

    # ------------------------------------------------- volumes and seats

    def set_volumes(self, listener: str, gains: dict[str, float]) -> None:
        """`listener`'s own gain for each speaker named (0 mutes, 1 as is, at most 1.5),
        replacing any set before; speakers not named are heard at 1. Only that
        listener's mix changes. Raises ValueError for a gain out of bounds."""
        clean: dict[str, float] = {}
        for speaker, gain in gains.items():
            g = float(gain)
            if not 0.0 <= g <= MAX_GAIN:  # NaN fails too
                raise ValueError(f"gain {gain!r} for {speaker!r} is not within 0..{MAX_GAIN}")
            if g != 1.0 and speaker != listener:
                clean[speaker] = g
        if clean != self._volumes.get(listener, {}):
            if clean:
                self._volumes[listener] = clean
            else:
                self._volumes.pop(listener, None)
            self._ramping.add(listener)
            self._plan = None

    def volumes(self, listener: str) -> dict[str, float]:
        """The gains `listener` set (speakers at 1 left out)."""
        return dict(self._volumes.get(listener, {}))

    def set_layout(self, order: Iterable[str] | None) -> None:
        """Seat the voices around a circle in this (seat) order; None: no seats, all mono.

        Only listeners who take stereo (`set_stereo`) hear the seats.
        """
        layout = None if order is None else tuple(order)
        if layout != self._layout:
            self._layout = layout
            self._plan = None

    @property
    def layout(self) -> tuple[str, ...] | None:
        """The circle of seats in force, or None when voices are not placed."""
        return self._layout

    def set_stereo(self, listener: str, stereo: bool) -> None:
        """Whether `listener`'s client takes a stereo mix (used while seats are on)."""
        if stereo != (listener in self._stereo):
            if stereo:
                self._stereo.add(listener)
            else:
                self._stereo.discard(listener)
            self._plan = None

    def set_mono(self, listener: str, mono: bool) -> None:
        """Whether `listener` chose mono for themself: their mix is never placed by seat
        (one earbud), whatever their client takes; everyone else's is unchanged."""
        if mono != (listener in self._mono):
            if mono:
                self._mono.add(listener)
            else:
                self._mono.discard(listener)
            self._plan = None

    def mono(self, listener: str) -> bool:
        """True if `listener` chose mono (`set_mono`)."""
        return listener in self._mono

    def _sync_effects(self) -> None:
        wanted = {p for p, e in self._routing.effects.items() if e == "drunk" and p in self._queues}
        for pid in list(self._effects):
            if pid not in wanted:
                del self._effects[pid]  # a later drunk spell starts fresh
                self._quiet.pop(pid, None)
        for pid in wanted - set(self._effects):
            from audio.drunk import DrunkVoice  # imported late: optional at import time

            self._effects[pid] = DrunkVoice(seed=(self.seed * 1_000_003 + zlib.crc32(pid.encode())) % 2**31)
            self._quiet[pid] = 0

    def _compile(self) -> _Plan:
        players = self._players
        speakers = gain_matrix(players, self._routing)
        if self._volumes:
            speakers = speakers * volume_matrix(players, self._volumes)
        cue_cols = np.zeros((len(players), len(self._playing)), dtype=np.float32)
        for j, cue in enumerate(self._playing):
            for i, pid in enumerate(players):
                if pid in cue.listeners:
                    cue_cols[i, j] = 1.0
        pans = None
        placed = self._stereo - self._mono  # listeners who hear the seats
        if self._layout is not None and placed & set(players):
            # Cached: a cue starting or ending recompiles the plan, the seats stay put.
            key = (tuple(players), self._layout)
            if self._pans is None or self._pans[0] != key:
                self._pans = (key, pan_matrix(players, self._layout))
            pans = self._pans[1]
        player_rows = []
        for i, pid in enumerate(players):
            if pans is not None and pid in placed:
                rows = np.stack([np.concatenate([speakers[i] * pans[i, :, 0], cue_cols[i] * CENTRE]),
                                 np.concatenate([speakers[i] * pans[i, :, 1], cue_cols[i] * CENTRE])])
            else:
                rows = np.concatenate([speakers[i], cue_cols[i]])[None, :]
            player_rows.append(np.asarray(rows, dtype=np.float32))
        keys = [row.tobytes() for row in player_rows]
        olds = self._ramp_rows(player_rows)
        for i, old in olds.items():
            keys[i] += b"ramp" + old.tobytes()  # a ramping listener shares only the same ramp
        plan = _build(players, player_rows, keys)
        plan.players = tuple(players)
        for i, old in olds.items():
            plan.ramps[int(plan.group_of[i])] = old
        return plan

    def _ramp_rows(self, player_rows: list[np.ndarray]) -> dict[int, np.ndarray]:
        """Old rows of the listeners whose own gains changed since the last tick (player
        index -> rows), where they differ from the new ones; the cues' columns are the new
        plan's (a cue that starts or ends is not ramped)."""
        ramping, self._ramping = self._ramping, set()
        last = self._last_plan
        if not ramping or last is None or last.players != tuple(self._players):
            return {}
        n = len(self._players)
        out = {}
        for pid in ramping:
            if pid not in self._players:
                continue
            i = self._players.index(pid)
            g = int(last.group_of[i])
            c = last.channels[g]
            new = player_rows[i]
            if c != new.shape[0]:
                continue  # mono <-> stereo: a new stream anyway
            old = new.copy()
            old[:, :n] = last.gains[last.first_row[g] : last.first_row[g] + c, :n]
            if not np.array_equal(old, new):
                out[i] = old
        return out

    @staticmethod
    def _audible_ramps(plan: _Plan, sounding: tuple[int, ...]) -> dict[int, np.ndarray]:
        """The plan's ramps whose old and new rows differ on a source sounding this tick
        (a change for a silent voice is not heard: nothing to fade)."""
        cols = list(sounding)
        out = {}
        for g, old in plan.ramps.items():
            r, c = plan.first_row[g], plan.channels[g]
            if not np.array_equal(old[:, cols], plan.gains[r : r + c, cols]):
                out[g] = old
        return out

    def _merged(self, plan: _Plan, sounding: tuple[int, ...]) -> tuple[_Plan, list[int]]:
        """`plan` with its groups merged where their rows agree on the `sounding`
        sources (the others are silent this tick, so their columns add nothing),
        and the merged group of each of the plan's groups. Cached per set, at most
        MERGED_CACHE sets, the oldest forgotten first."""
        got = plan.merged.get(sounding)
        if got is None:
            if len(plan.merged) >= MERGED_CACHE:
                del plan.merged[next(iter(plan.merged))]
            cols = list(sounding)
            firsts = [plan.gains[r : r + c] for r, c in zip(plan.first_row, plan.channels, strict=True)]
            keys = [rows[:, cols].tobytes() for rows in firsts]
            merged = _build(list(range(len(firsts))), firsts, keys)
            got = plan.merged[sounding] = (merged, merged.group_of.tolist())
        return got

    # --------------------------------------------------------------- tick

    def tick(self) -> TickResult:
        """Advance 20 ms: one mix per listener, one mouth level per speaker."""
        t0 = time.perf_counter()
        self._ticks += 1
        players = self._players
        n = len(players)
        if n == 0:
            self._playing.clear()
            self._distinct = 0
            self._tick_us = (time.perf_counter() - t0) * 1e6
            return TickResult({}, {}, 0, [])
        if self._plan is None:
            self._plan = self._compile()
        plan = self._plan

        # Silent speakers (the shared silent frame of their queue, no effect tail,
        # no tail of last frame in the look-ahead) leave their rows at zero and
        # their columns out of this tick's grouping: the usual room has a few
        # talkers and many listeners, and every numpy call counts (bench/ROOM.md).
        # The window is kept between ticks and only the rows that change are written.
        rows_needed = n + len(self._playing)
        if self._window.shape[0] < rows_needed:
            grow = np.zeros((rows_needed - self._window.shape[0], WINDOW), dtype=np.float32)
            self._window = np.vstack([self._window, grow])
        window = self._window
        was_live = self._tail_live
        if self._ahead_dirty or any(was_live):
            # last tick's last LOOKAHEAD samples (zero for whoever was silent)
            window[:n, :LOOKAHEAD] = window[:n, FRAME:]
            self._ahead_dirty = any(was_live)
        energies = [0.0] * n
        live = [False] * n
        queues, effects = self._queues, self._effects
        for i, pid in enumerate(players):
            try:
                frame = queues[pid].pop()
            except Exception:
                # One speaker's queue must not cost every listener this tick's frame.
                frame = self._queue_failed(pid)
            if frame is not _SILENT_FRAME:
                energy = float(np.dot(frame, frame))
                if energy == 0.0 and not frame.any():
                    frame = _SILENT_FRAME  # pushed digital silence (a mic without DTX)
                energies[i] = energy
            effect = effects.get(pid)
            if effect is not None:
                frame = self._apply_effect(pid, effect, frame)
            if frame is not _SILENT_FRAME:
                window[i, LOOKAHEAD:] = frame
                live[i] = True
            elif was_live[i]:
                window[i, LOOKAHEAD:] = 0.0
        sounding = tuple(i for i in range(n) if live[i] or was_live[i])
        self._tail_live = live
        finished = False
        for j, cue in enumerate(self._playing):
            seg = cue.samples[cue.pos : cue.pos + WINDOW]
            window[n + j, : seg.size] = seg
            window[n + j, seg.size :] = 0.0
            cue.pos += FRAME
            finished |= cue.pos >= cue.samples.size
        sounding += tuple(range(n, rows_needed))
        window = window[:rows_needed]

        mouths = self._mouths.update_energies(energies, FRAME)

        # While no listener's limiter is engaged, groups that differ only in silent
        # sources mix once (the same samples, one array); otherwise every group of
        # the plan mixes on its own, each from its members' limiter state.
        self._last_plan = plan
        ramps = self._audible_ramps(plan, sounding) if plan.ramps else {}
        if plan.ramps:
            self._plan = None  # the next tick regroups without the ramps
        if self._limiting or ramps:
            mplan, merged_of = plan, list(range(len(plan.members)))
            state = np.zeros(len(plan.members))
            np.minimum.at(state, plan.group_of, self._gain_db)
            start = state[plan.row_group]
        else:
            mplan, merged_of = self._merged(plan, sounding)
            start = np.zeros(len(mplan.row_group))
        if not sounding and not self._limiting:
            # Nothing sounds: every mix is silence, one array per channel count.
            rows = [self._silence[c] for c in mplan.channels]
            return self._result(t0, plan, players, mouths, [rows[m] for m in merged_of], finished)
        mixed = mplan.gains @ window
        for g, old in ramps.items():
            # from the old gains to the new ones over the frame's first RAMP samples
            r, c = plan.first_row[g], plan.channels[g]
            was = old @ window[:, :RAMP]
            mixed[r : r + c, :RAMP] = was + (mixed[r : r + c, :RAMP] - was) * _RAMP_IN
        out, row_state = limit(mixed, start, mplan.partner)
        if row_state.any():
            state = np.zeros(len(mplan.members))
            np.minimum.at(state, mplan.row_group, row_state)
            self._gain_db = state[np.asarray(merged_of)[plan.group_of]]
            self._limiting = True
        elif self._limiting:
            self._gain_db = np.zeros(n)
            self._limiting = False
        out = np.ascontiguousarray(out, dtype=np.float32)
        if mplan.partner is None:
            rows = list(out)
        else:
            rows = [out[r] if c == 1 else np.ascontiguousarray(out[r : r + 2].T)
                    for r, c in zip(mplan.first_row, mplan.channels, strict=True)]
        for row in rows:
            row.flags.writeable = False  # one array serves several listeners
        return self._result(t0, plan, players, mouths, [rows[m] for m in merged_of], finished)

    def _result(self, t0: float, plan: _Plan, players: list[str], mouths: list[float],
                group_rows: list[np.ndarray], finished: bool) -> TickResult:
        """The tick's result from each routing group's mix (`group_rows`)."""
        mixes = dict(zip(players, [group_rows[g] for g in plan.group_of.tolist()], strict=True))
        if finished:
            self._playing = [c for c in self._playing if c.pos < c.samples.size]
            self._plan = None
        self._distinct = len(plan.members)
        self._tick_us = (time.perf_counter() - t0) * 1e6
        return TickResult(
            mixes=mixes,
            mouths=dict(zip(players, mouths, strict=True)),
            distinct=len(plan.members),
            groups=list(plan.members),
        )

    def _queue_failed(self, pid: str) -> np.ndarray:
        """`pid`'s queue raised in `pop`: log it, start the speaker afresh (the audio it
        held is dropped, its counters kept), and play silence for them this tick."""
        log.exception("jitter queue of speaker %s failed; started afresh", pid)
        self._queue_faults += 1
        old, new = self._queues[pid], JitterQueue()
        new.underruns, new.overflows, new.trimmed = old.underruns, old.overflows, old.trimmed
        self._queues[pid] = new
        return _SILENT_FRAME

    def _apply_effect(self, pid: str, effect, frame: np.ndarray) -> np.ndarray:
        if frame.any():
            self._quiet[pid] = 0
        elif self._quiet[pid] >= EFFECT_REST_FRAMES:
            return frame  # resting: its tail has died away
        else:
            self._quiet[pid] += 1
        return effect.process(frame)

    # -------------------------------------------------------------- stats

    def playout_slack(self) -> float | None:
        """The smallest `JitterQueue.slack` of the speakers playing with timing (ticks),
        or None if none is: how much earlier the ticks could come with every frame
        still in time for its own."""
        best = None
        for q in self._queues.values():
            s = q.slack
            if s is not None and (best is None or s < best):
                best = s
        return best

    def regrid(self, ticks: float) -> None:
        """The ticks come `ticks` periods earlier from now on: every queue's timing moves."""
        for q in self._queues.values():
            q.regrid(ticks)

    def stats(self) -> dict:
        """Counters for /metrics and tests (per speaker unless said otherwise)."""
        q = self._queues
        return {
            "underruns": {p: q[p].underruns for p in self._players},
            "overflows": {p: q[p].overflows for p in self._players},
            "trimmed": {p: q[p].trimmed for p in self._players},
            "depth": {p: q[p].depth for p in self._players},
            "active": {p: q[p].active for p in self._players},
            "whispers": dict(self._routing.whispering),
            "cues_playing": len(self._playing),
            "distinct": self._distinct,
            "ticks": self._ticks,
            "tick_us": self._tick_us,
            "queue_faults": self._queue_faults,
        }
