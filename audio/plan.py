"""The mixer's plan: listeners grouped by equal gain rows, so that each distinct mix is made once.

A plan is compiled from every listener's rows (audio/listeners.py) when the
players, the routing, the whispers, the volumes, the seats or the set of
cues playing change; listeners whose rows are equal form one group and get
the very same output array. Groups do not follow who is talking at the
moment: the server keeps one Opus encoder per group, and regrouping at every
pause between words would keep resetting encoders. Within a tick, though,
groups whose rows differ only in the columns of silent sources make the
same samples, so they may mix once (`merged`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from audio.format import FRAME

__all__ = ["MERGED_CACHE", "Plan", "group", "merged", "silent"]

# Merged plans kept per plan (one per set of sounding speakers). A phase usually sees a
# handful of sets; a long one with many talkers coming and going could see thousands.
# Past this many, the oldest set is forgotten (it is rebuilt if it comes back).
MERGED_CACHE = 64


@dataclass
class Plan:
    """The listeners' groups and the gain rows each group mixes with."""

    gains: np.ndarray  # (rows x sources): one row per mono group, two per stereo group
    group_of: np.ndarray  # (listeners,) group index
    members: list[tuple[str, ...]]
    first_row: list[int]  # each group's first row in `gains`
    channels: list[int]  # each group's channel count (1 or 2)
    row_group: np.ndarray  # (rows,) the group of each row
    partner: np.ndarray | None  # (rows,) the linked row of a stereo pair; None if all mono
    players: tuple[str, ...] = ()  # the speakers' columns, in order
    # The members ordered by group (`by_group`) and where each group starts in that
    # order (`group_starts`): a group's smallest limiter state is one `reduceat`.
    by_group: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.intp))
    group_starts: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.intp))
    # group -> its rows before a personal gain change (cross-faded from this tick)
    ramps: dict[int, np.ndarray] = field(default_factory=dict)
    # Merged plans by the speakers sounding this tick (see `merged`): groups whose
    # rows differ only in the columns of silent speakers make the same samples.
    merged: dict[tuple[int, ...], tuple[Plan, list[int]]] = field(default_factory=dict)


def silent(channels: int) -> np.ndarray:
    """A read-only silent mix: FRAME samples (mono) or FRAME x 2 (stereo)."""
    a = np.zeros(FRAME if channels == 1 else (FRAME, 2), dtype=np.float32)
    a.flags.writeable = False
    return a


def group(members_of: list, rows_of: list[np.ndarray], keys: list[bytes]) -> Plan:
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
    by_group = np.argsort(group_of, kind="stable")
    group_starts = np.searchsorted(group_of[by_group], np.arange(len(group_rows)))
    return Plan(gains, group_of, members, first_row, channels, row_group, partner,
                by_group=by_group, group_starts=group_starts)


def merged(plan: Plan, sounding: tuple[int, ...]) -> tuple[Plan, list[int]]:
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
        together = group(list(range(len(firsts))), firsts, keys)
        got = plan.merged[sounding] = (together, together.group_of.tolist())
    return got
