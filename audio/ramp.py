"""Click-free changes of one's own volumes: the first tick after the change cross-fades.

A listener who mutes or lowers a voice (`RoomMixer.set_volumes`) hears it at
once but without a click: in the first tick after the change their mix
cross-fades from the old gains to the new ones over `RAMP` samples (5 ms,
raised cosine) and is exact from then on. For that one tick a ramping
listener has a group of their own (keyed by old and new rows) and groups are
not merged; the next tick regroups as usual. A change for a voice that is
silent this tick is not heard: nothing to fade.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from audio.plan import Plan

__all__ = ["RAMP", "old_rows", "audible", "cross_fade"]

# A personal gain change cross-fades over 5 ms: short enough to be heard as "at once",
# long enough that a muted voice stops without a click at the frame edge.
RAMP = 240
RAMP_IN = (0.5 - 0.5 * np.cos(np.pi * np.arange(1, RAMP + 1) / (RAMP + 1))).astype(np.float32)


def old_rows(changed: set[str], players: Sequence[str], player_rows: list[np.ndarray],
             last: Plan | None) -> dict[int, np.ndarray]:
    """Old rows of the listeners whose own gains `changed` since the last tick (player
    index -> rows), taken from `last` (the plan the last tick mixed with), where they
    differ from the new ones; the cues' columns are the new plan's (a cue that starts
    or ends is not ramped)."""
    if not changed or last is None or last.players != tuple(players):
        return {}
    n = len(players)
    out = {}
    for pid in changed:
        if pid not in players:
            continue
        i = players.index(pid)
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


def audible(plan: Plan, sounding: tuple[int, ...]) -> dict[int, np.ndarray]:
    """The plan's ramps whose old and new rows differ on a source sounding this tick
    (a change for a silent voice is not heard: nothing to fade)."""
    cols = list(sounding)
    out = {}
    for g, old in plan.ramps.items():
        r, c = plan.first_row[g], plan.channels[g]
        if not np.array_equal(old[:, cols], plan.gains[r : r + c, cols]):
            out[g] = old
    return out


def cross_fade(mixed: np.ndarray, plan: Plan, ramps: dict[int, np.ndarray],
               window: np.ndarray) -> None:
    """In `mixed` (the plan's rows x samples), each ramping group's rows go from the
    old gains to the new ones over the frame's first RAMP samples."""
    for g, old in ramps.items():
        r, c = plan.first_row[g], plan.channels[g]
        was = old @ window[:, :RAMP]
        mixed[r : r + c, :RAMP] = was + (mixed[r : r + c, :RAMP] - was) * RAMP_IN
