"""The room mixer: one frame in per speaker, one limited mix out per listener, each tick.

Tick, in order:

1. one frame per speaker from its jitter queue (silence when there is none),
   through the speaker's effect, and the cues playing: the sources' window,
   each source delayed by the limiter's 1 ms look-ahead (audio/sources.py,
   audio/effects.py);
2. mouth levels on the raw frames (before routing and effects);
3. one matrix product: distinct gain rows x window. Each row is the public
   bus (same for all) with the listener's own voice zeroed, plus what is
   routed to them alone (whisper, channel mates, cues), times the listener's
   own volumes and seat pans (audio/listeners.py). Zeroing the own column
   instead of subtracting the voice from a summed bus makes "not heard" an
   exact zero, and the product computes each distinct mix once;
4. the limiter on each distinct mix.

Grouping (audio/plan.py): listeners whose gain rows are equal (same
speakers, same cues, same volumes and pans) get the very same output array
object, and the server one encode; the groups are recompiled only when the
players, the routing, the whispers, the listeners' choices or the set of
cues playing change. A stereo mix comes out as a (FRAME, 2) interleaved
array, a mono one as (FRAME,). A change of one's own volumes cross-fades in
the next tick (audio/ramp.py).

Limiter state is kept per listener (one float, the linear gain; see
audio/limits.py). A group starts each tick from the lowest gain among its
members (they are all equal unless the group was just formed by a routing
change) and writes the result back to every member; so a listener moving to
another group keeps a smooth gain and shared arrays stay correct.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

import numpy as np

from audio.format import FRAME
from audio.limiter import limit
from audio.limits import ListenerLimits
from audio.listeners import ListenerGains
from audio.mouth import MouthMeter
from audio.plan import Plan, group, merged, silent
from audio.ramp import audible, cross_fade, old_rows
from audio.routing import EFFECTS, Routing, whisper_allowed
from audio.sources import Sources

__all__ = ["RoomMixer", "TickResult"]


@dataclass
class TickResult:
    """One tick's output. Listeners with identical mixes share ONE (read-only) array."""

    mixes: dict[str, np.ndarray]  # listener -> (960,) float32, or (960, 2) for stereo
    mouths: dict[str, float]  # speaker -> 0..1
    distinct: int  # number of distinct mix arrays
    groups: list[tuple[str, ...]] = field(default_factory=list)  # listeners sharing a mix


class RoomMixer:
    """Real-time mixer of one room; every player is a speaker and a listener."""

    def __init__(self, cues=None, seed: int = 0):
        """`cues`: a CueBank (anything with `get(name) -> ndarray`), or None."""
        self.cues = cues
        self.seed = seed
        self._sources = Sources(seed)  # the speakers, their queues and effects; the cues playing
        self._listeners = ListenerGains()  # the listeners' volumes, seats, stereo or mono
        self._routing = Routing()
        self._limits = ListenerLimits()  # each listener's limiter gain
        self._silence = {c: silent(c) for c in (1, 2)}  # channels -> the shared silent mix
        self._mouths = MouthMeter()
        self._plan: Plan | None = None
        self._last_plan: Plan | None = None  # the plan the last tick mixed with
        self._tick_us = 0.0
        self._ticks = 0
        self._distinct = 0

    # ------------------------------------------------------------ players

    @property
    def players(self) -> tuple[str, ...]:
        """Players in mixer order."""
        return tuple(self._sources.players)

    def add_player(self, pid: str) -> None:
        """Add a speaker/listener (no-op if present). Heard by nobody until routed."""
        if pid in self._sources.queues:
            return
        self._sources.add(pid)
        self._limits.add()
        self._mouths.add()
        self._sync_effects()
        self._plan = None

    def remove_player(self, pid: str) -> None:
        """Remove a player, their queue and their effect.

        Whispers from or to them stay in the routing: the routing's owner
        ends them (and a whisperer whose target is gone is heard by nobody
        meanwhile, never by everyone).
        """
        if pid not in self._sources.queues:
            return
        row = self._sources.remove(pid)
        self._limits.remove(row)
        self._mouths.remove(row)
        self._listeners.forget(pid)
        self._plan = None

    def push(self, pid: str, pcm: np.ndarray, since_tick: float | None = None,
             ts: float | None = None) -> None:
        """Queue a speaker's float32 mono 48 kHz samples (any length). Unknown ids raise KeyError.

        With `since_tick` (how long after the last tick it arrived, in periods)
        and `ts` (the media time of its first sample, in frames), a whole frame
        also times the speaker's playout: see audio.jitter.
        """
        self._sources.queues[pid].push(pcm, since_tick, ts)

    def note(self, pid: str, since_tick: float, ts: float) -> None:
        """A frame of `pid`'s, of media time `ts`, was to be had `since_tick` periods after
        the last tick though no audio comes with it (a late packet, or the FEC for a lost
        one): its speaker's playout timing counts the delay (audio.jitter)."""
        self._sources.queues[pid].note(since_tick, ts)

    def depth(self, pid: str) -> float:
        """Frames queued for `pid`'s voice (0 for an unknown id)."""
        q = self._sources.queues.get(pid)
        return q.depth if q is not None else 0.0

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
        if src not in self._sources.queues or dst not in self._sources.queues:
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
        chosen = frozenset(listeners) & frozenset(self._sources.players)
        if samples.size and chosen:
            self._sources.play(samples, chosen)
            self._plan = None

    def _sync_effects(self) -> None:
        self._sources.effects.sync(self._routing.effects, self._sources.queues)

    # ------------------------------------------------- volumes and seats
    # (audio/listeners.py: each says whether anything changed; then the plan is recompiled)

    def set_volumes(self, listener: str, gains: dict[str, float]) -> None:
        """`listener`'s own gain for each speaker named (0 mutes, 1 as is, at most 1.5),
        replacing any set before; speakers not named are heard at 1. Only that
        listener's mix changes, cross-faded. Raises ValueError for a gain out of bounds."""
        if self._listeners.set_volumes(listener, gains):
            self._plan = None

    def volumes(self, listener: str) -> dict[str, float]:
        """The gains `listener` set (speakers at 1 left out)."""
        return self._listeners.volumes(listener)

    def set_layout(self, order: Iterable[str] | None) -> None:
        """Seat the voices around a circle in this (seat) order; None: no seats, all mono.

        Only listeners who take stereo (`set_stereo`) hear the seats.
        """
        if self._listeners.set_layout(order):
            self._plan = None

    @property
    def layout(self) -> tuple[str, ...] | None:
        """The circle of seats in force, or None when voices are not placed."""
        return self._listeners.layout

    def set_stereo(self, listener: str, stereo: bool) -> None:
        """Whether `listener`'s client takes a stereo mix (used while seats are on)."""
        if self._listeners.set_stereo(listener, stereo):
            self._plan = None

    def set_mono(self, listener: str, mono: bool) -> None:
        """Whether `listener` chose mono for themself: their mix is never placed by seat
        (one earbud), whatever their client takes; everyone else's is unchanged."""
        if self._listeners.set_mono(listener, mono):
            self._plan = None

    def mono(self, listener: str) -> bool:
        """True if `listener` chose mono (`set_mono`)."""
        return self._listeners.mono(listener)

    def _compile(self) -> Plan:
        players = self._sources.players
        cues = [cue.listeners for cue in self._sources.cues]
        player_rows = self._listeners.rows(players, self._routing, cues)
        keys = [row.tobytes() for row in player_rows]
        olds = old_rows(self._listeners.take_changed(), players, player_rows, self._last_plan)
        for i, old in olds.items():
            keys[i] += b"ramp" + old.tobytes()  # a ramping listener shares only the same ramp
        plan = group(players, player_rows, keys)
        plan.players = tuple(players)
        for i, old in olds.items():
            plan.ramps[int(plan.group_of[i])] = old
        return plan

    # --------------------------------------------------------------- tick

    def tick(self) -> TickResult:
        """Advance 20 ms: one mix per listener, one mouth level per speaker."""
        t0 = time.perf_counter()
        self._ticks += 1
        players = self._sources.players
        n = len(players)
        if n == 0:
            self._sources.cues.clear()
            self._distinct = 0
            self._tick_us = (time.perf_counter() - t0) * 1e6
            return TickResult({}, {}, 0, [])
        if self._plan is None:
            self._plan = self._compile()
        plan = self._plan
        window, sounding, energies, finished = self._sources.read()
        mouths = self._mouths.update_energies(energies, FRAME)

        # While no listener's limiter is engaged, groups that differ only in silent
        # sources mix once (the same samples, one array); otherwise every group of
        # the plan mixes on its own, each from its members' limiter state.
        self._last_plan = plan
        ramps = audible(plan, sounding) if plan.ramps else {}
        if plan.ramps:
            self._plan = None  # the next tick regroups without the ramps
        limiting = self._limits.engaged
        if limiting or ramps:
            mplan, merged_of = plan, None
            start = self._limits.start(plan)
        else:
            mplan, merged_of = merged(plan, sounding)
            start = np.ones(len(mplan.row_group))
        if not sounding and not limiting:
            # Nothing sounds: every mix is silence, one array per channel count.
            rows = [self._silence[c] for c in mplan.channels]
            return self._result(t0, plan, players, mouths, _per_group(rows, merged_of), finished)
        mixed = mplan.gains @ window
        cross_fade(mixed, plan, ramps, window)
        out, row_state = limit(mixed, start, mplan.partner)
        self._limits.update(mplan, plan, merged_of, row_state)
        out = np.ascontiguousarray(out, dtype=np.float32)  # a new array: this tick's own
        out.flags.writeable = False  # one array serves several listeners (so do its rows)
        if mplan.partner is None:
            rows = list(out)
        else:
            rows = [out[r] if c == 1 else _read_only(np.ascontiguousarray(out[r : r + 2].T))
                    for r, c in zip(mplan.first_row, mplan.channels, strict=True)]
        return self._result(t0, plan, players, mouths, _per_group(rows, merged_of), finished)

    def _result(self, t0: float, plan: Plan, players: list[str], mouths: list[float],
                group_rows: list[np.ndarray], finished: bool) -> TickResult:
        """The tick's result from each routing group's mix (`group_rows`)."""
        mixes = dict(zip(players, [group_rows[g] for g in plan.group_of.tolist()], strict=True))
        if finished:
            self._sources.drop_finished()
            self._plan = None
        self._distinct = len(plan.members)
        self._tick_us = (time.perf_counter() - t0) * 1e6
        return TickResult(
            mixes=mixes,
            mouths=dict(zip(players, mouths, strict=True)),
            distinct=len(plan.members),
            groups=list(plan.members),
        )

    # -------------------------------------------------------------- stats

    def playout_slack(self) -> float | None:
        """The smallest `JitterQueue.slack` of the speakers playing with timing (ticks),
        or None if none is: how much earlier the ticks could come with every frame
        still in time for its own."""
        return self._sources.playout_slack()

    def regrid(self, ticks: float) -> None:
        """The ticks come `ticks` periods earlier from now on: every queue's timing moves."""
        self._sources.regrid(ticks)

    def stats(self) -> dict:
        """Counters for /metrics and tests (per speaker unless said otherwise)."""
        return {
            **self._sources.queue_stats(),
            "whispers": dict(self._routing.whispering),
            "cues_playing": len(self._sources.cues),
            "distinct": self._distinct,
            "ticks": self._ticks,
            "tick_us": self._tick_us,
            "queue_faults": self._sources.queue_faults,
        }


def _per_group(rows: list[np.ndarray], merged_of: list[int] | None) -> list[np.ndarray]:
    """Each plan group's mix from the mixed groups' `rows` (None: one row per group)."""
    return rows if merged_of is None else [rows[m] for m in merged_of]


def _read_only(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a
