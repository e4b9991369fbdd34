"""Whether this node may still serve its rooms as their owner, answered without Redis.

A node's claims live `ttl` from the moment their last successful renewal was
sent (server/storage/redis_fencing.py). When that renewal is older than a
claim's life, one of two very different things happened:

- **the node slept** (SIGSTOP, a stall of the whole process, a VM paused):
  other nodes may have taken its rooms meanwhile and its clients, whose pings
  went unanswered, may have followed them. It must send no voice and act on
  nothing before it has renewed (issue 33).
- **the node stayed awake but could not reach the store** (Redis down or
  restarting, or out of this node's reach): its clients were served all along.
  During a store outage nobody can claim a room, so the voice goes on
  (issue 37); in a partition where other nodes still reach Redis one of them
  may take a room after the claim's life, and this node learns it at its
  first renewal once the store answers again (the room is then unloaded and
  its clients sent on, within a beat). Writes stay safe either way: the fence
  refuses a write that is not the owner's.

`Tenure` tells the two apart with two local facts: a watch task that wakes
every `WATCH` seconds (a wake much later than that means the process did not
run: it slept, and only a renewal sent after the wake makes it trusted again),
and what the beat saw of the store (its own client's errors: refused, reset,
timed out; or a beat still waiting for its answer). docs/cluster.md, "Failure
model", states the trade-off.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable

from server.storage.redis_fencing import unreachable

log = logging.getLogger(__name__)

# How often the watch task looks at the clock.
WATCH = 0.1


class Tenure:
    """This node's hold on its claims as far as it can tell locally (module docstring)."""

    def __init__(self, ttl: float, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.ttl = ttl
        self.clock = clock
        # A watch this much later than due: the process did not run (it slept).
        self.gap = max(ttl / 2, 5 * WATCH)
        now = clock()
        self.renewed_at = now          # when the last successful renewal was sent
        self.watched_at = now          # the watch task's last look
        self.slept_at = float("-inf")  # when a sleep was last noticed (its end)
        self.slept = 0                 # sleeps noticed (for /metrics and the log)
        # Since when the store has been out of this node's reach (a beat failed on a
        # connection error or a time-out, and no renewal succeeded since): None if not.
        self.unreachable_since: float | None = None
        self.failed_at = float("-inf")  # the last beat that could not reach the store
        self.asking_since: float | None = None  # a beat under way since

    # What the cluster asks ------------------------------------------------------------

    def fresh(self) -> bool:
        """Our last successful renewal is younger than a claim's life."""
        return self.clock() - self.renewed_at < self.ttl

    def awake(self) -> bool:
        """The process has run without a sleep since its last successful renewal (the
        watch is on time now, and no sleep was noticed after that renewal was sent)."""
        now = self.clock()
        return self.slept_at <= self.renewed_at and now - self.watched_at < self.gap

    def out_of_reach(self) -> bool:
        """The store has not answered this node: its beat failed on a connection error or a
        time-out since the last renewal, or a beat is still waiting for its answer."""
        return self.unreachable_since is not None or self.asking_since is not None

    def held(self) -> bool:
        """Our rooms are still ours as far as we can know: the claims are fresh, or the
        store is out of our reach while we stayed awake (nobody can have told us
        otherwise; the first renewal that goes through will)."""
        return self.fresh() or (self.out_of_reach() and self.awake())

    def since_renewal(self) -> float:
        """Seconds since our last successful renewal was sent (for /healthz and /metrics)."""
        return round(self.clock() - self.renewed_at, 3)

    def quiet_for(self, seconds: float) -> bool:
        """The store has answered every beat, and promptly, for the last `seconds` (a beat
        that waits `gap` or more for its answer counts as one that could not reach it)."""
        now = self.clock()
        if self.asking_since is not None and now - self.asking_since >= self.gap:
            return False
        return now - self.failed_at >= seconds

    # The beat ---------------------------------------------------------------------------

    async def beat(self, heartbeat: Callable[[], Awaitable[None]]) -> bool:
        """Run one beat, noting what it saw of the store; whether it succeeded. An outage is
        logged when it starts and when it ends, not at every beat."""
        was_out = self.unreachable_since
        self.beat_started()
        try:
            await heartbeat()
        except asyncio.CancelledError:
            self.beat_ended(None)
            raise
        except Exception as exc:
            out = unreachable(exc)
            if not (out and self.unreachable_since is not None):
                log.warning("cluster: heartbeat failed: %s%s", exc,
                            "; the rooms go on until the store answers" if out else "")
            self.beat_ended(out)
            return False
        if was_out is not None:
            log.warning("cluster: the store answers again (out of reach for %.1fs)",
                        self.clock() - was_out)
        self.beat_ended(None)
        return True

    # What the cluster tells it -------------------------------------------------------

    def renewed(self, sent: float) -> None:
        """A renewal sent at `sent` (monotonic) succeeded: the store answers again."""
        self.renewed_at = max(self.renewed_at, sent)
        self.unreachable_since = None

    def beat_started(self) -> None:
        self.asking_since = self.clock()

    def beat_ended(self, unreachable: bool | None) -> None:
        """The beat is over: `None` if it succeeded, else whether it failed because the store
        could not be reached (True) or answered with an error (False: not an outage)."""
        now = self.clock()
        slow = self.asking_since is not None and now - self.asking_since >= self.gap
        self.asking_since = None
        if slow:  # it answered at last (a stopped Redis resumed): an outage that ends now
            self.failed_at = now
        if unreachable:
            self.failed_at = now
            if self.unreachable_since is None:
                self.unreachable_since = now
        elif unreachable is False:
            self.unreachable_since = None

    # The watch -----------------------------------------------------------------------

    def look(self) -> bool:
        """One look at the clock: True (and the sleep noted) if the last look was too long ago."""
        now = self.clock()
        late = now - self.watched_at
        self.watched_at = now
        if late >= self.gap:
            self.slept_at = now
            self.slept += 1
            log.warning("cluster: this process did not run for %.1fs; its rooms stay silent "
                        "until its claims are renewed", late)
            return True
        return False

    async def watch(self, stopping: asyncio.Event) -> None:
        """Look every WATCH seconds until `stopping` is set."""
        self.watched_at = self.clock()
        while not stopping.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stopping.wait(), WATCH)
            self.look()
