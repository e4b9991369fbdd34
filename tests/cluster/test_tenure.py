"""Issue 37 item 1, the rule by itself (server/cluster/tenure.py), on a clock the test moves.

A node's claims hold while they are fresh, or while the store is out of the
node's reach and the node stayed awake; a sleep (a watch much later than due)
ends that until a renewal sent after it succeeds.
"""

from __future__ import annotations

from server.cluster.tenure import WATCH, Tenure
from server.storage.redis_fencing import unreachable
from server.storage.seam import StoreUnavailable


class _Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def _awake_for(tenure: Tenure, clock: _Clock, seconds: float) -> None:
    """Time passes with the watch on time."""
    end = clock.t + seconds
    while clock.t < end:
        clock.t += WATCH
        assert not tenure.look()


def test_a_store_outage_seen_awake_keeps_the_claims_past_their_life():
    clock = _Clock()
    t = Tenure(2.0, clock=clock)
    t.renewed(clock.t)
    _awake_for(t, clock, 2.5)
    assert not t.fresh() and not t.held()        # no beat told us anything: a lapse
    t.beat_started()
    assert t.held()                              # a beat waits for the store's answer
    _awake_for(t, clock, 3.0)
    t.beat_ended(True)                           # ... and it timed out
    assert t.held()
    _awake_for(t, clock, 10.0)
    t.beat_started()
    t.beat_ended(True)
    assert t.held()                              # ten seconds on: still ours
    t.renewed(clock.t)                           # the store answers: fresh again
    assert t.fresh() and t.unreachable_since is None


def test_a_store_that_answers_with_an_error_is_no_outage():
    clock = _Clock()
    t = Tenure(2.0, clock=clock)
    _awake_for(t, clock, 1.0)
    t.beat_started()
    t.beat_ended(True)
    _awake_for(t, clock, 1.5)
    assert t.held()
    t.beat_started()
    t.beat_ended(False)                          # e.g. a READONLY replica: it answered
    assert not t.held()


def test_a_sleep_ends_the_grace_until_a_renewal_sent_after_it():
    clock = _Clock()
    t = Tenure(2.0, clock=clock)
    t.beat_started()
    t.beat_ended(True)                           # the store is out of reach
    _awake_for(t, clock, 3.0)
    assert t.held()
    clock.t += 5.0                               # SIGSTOP: nothing ran for 5 s
    assert not t.held()                          # asked before the watch looked (a voice tick)
    assert t.look()                              # the watch notices the sleep
    assert not t.held()
    _awake_for(t, clock, 1.0)
    t.beat_started()
    t.beat_ended(True)
    assert not t.held()                          # awake again, but it slept: no grace
    sent = clock.t
    t.renewed(sent - 3.0)                        # a renewal sent before the sleep is no proof
    assert not t.held()
    t.renewed(sent)
    assert t.held() and t.awake()


def test_a_short_stall_is_no_sleep_and_fresh_claims_need_no_watch():
    clock = _Clock()
    t = Tenure(2.0, clock=clock)
    clock.t += t.gap * 0.9
    assert not t.look() and t.awake()
    clock.t += 0.5
    t.renewed(clock.t)
    clock.t += 1.5                               # no watch at all, but renewed 1.5 s ago
    assert t.held()


def test_orphans_wait_a_claims_life_after_a_beat_that_could_not_reach_the_store():
    clock = _Clock()
    t = Tenure(2.0, clock=clock)
    assert t.quiet_for(2.0)
    t.beat_started()
    t.beat_ended(True)
    clock.t += 1.9
    assert not t.quiet_for(2.0)
    clock.t += 0.2
    assert t.quiet_for(2.0)
    t.beat_started()                             # a store that hangs (SIGSTOP) ...
    clock.t += 3.0
    assert not t.quiet_for(2.0)
    t.beat_ended(None)                           # ... answers at last: that is the end
    clock.t += 1.9                               # of an outage, not a prompt store
    assert not t.quiet_for(2.0)
    clock.t += 0.2
    assert t.quiet_for(2.0)


def test_what_counts_as_out_of_reach():
    from redis import exceptions as rexc

    assert unreachable(rexc.ConnectionError("refused"))
    assert unreachable(rexc.TimeoutError("timed out"))
    assert unreachable(rexc.BusyLoadingError("loading"))
    assert unreachable(StoreUnavailable("redis: reset"))
    assert unreachable(ConnectionResetError())
    assert not unreachable(rexc.ResponseError("READONLY"))
    assert not unreachable(ValueError("a bug"))
