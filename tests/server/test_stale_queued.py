"""A voice payload queued for a listener whose connection is not up yet (or whose aiortc
sender lags) is dropped, not sent late, once it has waited over STALE_QUEUED: a node
woken from a sleep (SIGSTOP) whose peer finishes connecting then sends no voice made
before it slept (issue 33's guarantee; tests/cluster/test_failover.py saw three such
packets reach a bot whose voice was connecting when its node was paused)."""

from __future__ import annotations

from server.media import rtc
from server.media.rtc import STALE_QUEUED, MixTrack


class _Direct:
    native = None

    def __init__(self) -> None:
        self.sent: list[tuple[bytes, int]] = []

    def send(self, payload: bytes, ts: int, pt: int | None = None) -> None:
        self.sent.append((payload, ts))

    def go_native(self, first_tick: int):
        return None


class _Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


async def test_payloads_that_waited_too_long_are_dropped_at_attach(monkeypatch):
    clock = _Clock()
    monkeypatch.setattr(rtc.time, "monotonic", clock)
    track = MixTrack()
    track.push(b"old1", 1)
    track.push(b"old2", 2)
    clock.t += STALE_QUEUED + 1.5                    # the node slept
    track.push(b"new", 80)
    direct = _Direct()
    track.attach(direct)
    assert [p for p, _ in direct.sent] == [b"new"]
    assert track.dropped == 2


async def test_aiortcs_sender_gets_only_fresh_payloads(monkeypatch):
    clock = _Clock()
    monkeypatch.setattr(rtc.time, "monotonic", clock)
    track = MixTrack()
    track.push(b"old", 1)
    clock.t += STALE_QUEUED + 0.5
    track.push(b"fresh", 30)
    packet = await track.recv()
    assert bytes(packet) == b"fresh" and track.dropped == 1
