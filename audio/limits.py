"""Each listener's limiter state across ticks and regroupings (the limiter itself: audio/limiter.py).

The state is one float per listener: the limiter's gain (linear, at most 1)
where their next frame starts. A group starts each tick from the lowest
state among its members (they are all equal unless the group was just formed
by a routing change), and the result goes back to every member; so a listener
moving to another group keeps a smooth gain and shared arrays stay correct.

While the plan the mixer mixes with stays the same from tick to tick (the
usual case: a limiter engaged over many ticks), the last tick's row states
are the next tick's start as they are, and the listeners' states are worked
out from them only when something needs them (a new plan, a player coming or
going): two numpy calls fewer on each side of the limiter, every tick.
"""

from __future__ import annotations

import numpy as np

from audio.plan import Plan

__all__ = ["ListenerLimits"]


class ListenerLimits:
    """The listeners' limiter gains (in mixer order), and whether any is below 1."""

    def __init__(self) -> None:
        self._gain = np.ones(0)  # per listener, when `_held` is None
        # (mixing plan, its groups' plan, the merged group of each plan group or None,
        # row states): the last tick's limiter states, not yet spread to the listeners
        self._held: tuple[Plan, Plan, list[int] | None, np.ndarray] | None = None
        self.engaged = False  # some listener's gain is below 1

    def _listeners(self) -> np.ndarray:
        """The per-listener gains, spread from the held row states if need be."""
        if self._held is not None:
            mplan, plan, merged_of, rows = self._held
            # each group's smallest row state (a stereo pair's two rows; states are <= 1)
            state = np.minimum.reduceat(rows, mplan.first_row)
            self._gain = state[plan.group_of if merged_of is None
                               else np.asarray(merged_of)[plan.group_of]]
            self._held = None
        return self._gain

    def add(self) -> None:
        """A new listener, last in order, unlimited."""
        self._gain = np.append(self._listeners(), 1.0)

    def remove(self, row: int) -> None:
        """Forget listener `row`; later ones move up by one."""
        self._gain = np.delete(self._listeners(), row)

    def start(self, plan: Plan) -> np.ndarray:
        """Each row's state at the start of this tick, for `plan` mixed as it is
        (unmerged): its group's smallest member state."""
        held = self._held
        if held is not None and held[0] is plan:
            return held[3]
        gain = self._listeners()
        return np.minimum.reduceat(gain[plan.by_group], plan.group_starts)[plan.row_group]

    def update(self, mplan: Plan, plan: Plan, merged_of: list[int] | None,
               rows: np.ndarray) -> None:
        """The limiter's new row states `rows` after mixing with `mplan` (`plan`'s groups,
        merged as `merged_of` says, or None)."""
        if rows.min(initial=1.0) < 1.0:
            self._held = (mplan, plan, merged_of, rows)
            self.engaged = True
        elif self.engaged:
            self._gain = np.ones(len(plan.group_of))
            self._held = None
            self.engaged = False
