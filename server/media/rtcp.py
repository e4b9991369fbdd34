"""How often aiortc sends an audio stream's RTCP reports: every 5 s on average, as a
browser does, instead of every second.

aiortc's sender and receiver each send one report per stream every 0.5-1.5 s (their
`_run_rtcp` loops sleep `0.5 + random.random()` seconds): a 16-player room makes the
server send 32 reports a second, each built, SRTCP-protected and sent in Python, and
aiortc clients (the bots) send it as many, each unprotected, parsed and handled. A
browser's audio stream reports every 5 s on average (libwebrtc's audio interval, RFC
3550's recommended minimum, randomized over 0.5-1.5 times it), and nothing either side
reads from the reports needs them more often: their loss, jitter and round trip go to
getStats, and a browser's Opus sender adapts to a loss rate averaged over seconds
anyway. Audio only: no NACK or PLI rides on these loops (aiortc sends those for video,
from other methods).

The pause is the only thing those loops take from their module's `random`, so
`pace()` puts in its place, in aiortc.rtcrtpsender and aiortc.rtcrtpreceiver, an
object whose `random()` makes `0.5 + random()` fall uniformly in [0.5, 1.5] x
`INTERVAL`. It checks first that this is still so (in each module, the one function
that reads the name `random` is `_run_rtcp`, which sleeps `0.5 + random.random()`);
where aiortc has changed, nothing is replaced and aiortc keeps its own pace, with a
line in the log. `SUSSURRO_RTCP_INTERVAL` sets the interval in seconds (0.5-30);
`SUSSURRO_RTCP_INTERVAL=1` is aiortc's own pace.
"""

from __future__ import annotations

import logging
import os
import random
import types

import aiortc.rtcrtpreceiver
import aiortc.rtcrtpsender

log = logging.getLogger(__name__)

INTERVAL = 5.0  # seconds between two reports of a stream, on average
_BOUNDS = (0.5, 30.0)
_MODULES = (aiortc.rtcrtpsender, aiortc.rtcrtpreceiver)


class Spacing:
    """Stands for the `random` module in aiortc's RTCP loops: `0.5 + random()` is a
    pause drawn uniformly from [0.5, 1.5] x `interval` seconds."""

    def __init__(self, interval: float) -> None:
        self.interval = interval

    def random(self) -> float:
        return self.interval * (0.5 + random.random()) - 0.5


SPACING: Spacing | None = None  # installed by pace(), else None
REFUSED: str | None = None  # why pace() left aiortc's pace, once it has: not checked again


def interval_from_env() -> float:
    """`SUSSURRO_RTCP_INTERVAL`, or INTERVAL where it is unset or not a number in bounds."""
    raw = os.environ.get("SUSSURRO_RTCP_INTERVAL", "").strip()
    if not raw:
        return INTERVAL
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")
    if not _BOUNDS[0] <= value <= _BOUNDS[1]:
        log.warning("SUSSURRO_RTCP_INTERVAL=%r is not a number of seconds in %s-%s; using %s",
                    raw, *_BOUNDS, INTERVAL)
        return INTERVAL
    return value


def _codes(module: types.ModuleType):
    """(qualified name, code object) of every function defined in `module`, nested ones
    and methods included."""
    def walk(name: str, code: types.CodeType):
        yield name, code
        for const in code.co_consts:
            if isinstance(const, types.CodeType):
                yield from walk(f"{name}.{const.co_name}", const)

    def functions(owner, prefix: str):
        for attr, value in vars(owner).items():
            if isinstance(value, (staticmethod, classmethod)):
                value = value.__func__
            parts = (value.fget, value.fset, value.fdel) if isinstance(value, property) else (value,)
            for part in parts:
                if isinstance(part, types.FunctionType) and part.__module__ == module.__name__:
                    yield from walk(f"{prefix}{attr}", part.__code__)
            if isinstance(value, type) and value.__module__ == module.__name__ and value is not owner:
                yield from functions(value, f"{prefix}{attr}.")

    yield from functions(module, "")


def paceable(module: types.ModuleType) -> str | None:
    """None if `module`'s RTCP pause is the only use of its `random`, else why not."""
    current = getattr(module, "random", None)
    if current is not random and not isinstance(current, Spacing):
        return "its `random` is not the random module"
    readers = [(name, code) for name, code in _codes(module) if "random" in code.co_names]
    if [name.rsplit(".", 1)[-1] for name, _ in readers] != ["_run_rtcp"]:
        return f"`random` is read by {[name for name, _ in readers] or 'nothing'}"
    code = readers[0][1]
    if not {"sleep", "random"} <= set(code.co_names) or 0.5 not in code.co_consts:
        return "its _run_rtcp does not sleep 0.5 + random.random()"
    return None


def pace(interval: float | None = None, modules=_MODULES) -> bool:
    """Space aiortc's RTCP reports `interval` seconds apart on average; True if done (or
    already so), False if aiortc keeps its own pace. Without `interval`, a first call
    takes the environment's (else INTERVAL) and a later one keeps what is set; with
    one, the interval changes for every loop, running or not, at its next pause."""
    global SPACING, REFUSED
    if SPACING is not None and all(getattr(m, "random", None) is SPACING for m in modules):
        if interval is not None:
            SPACING.interval = interval
        return True
    if modules is _MODULES and REFUSED is not None:
        return False  # each peer asks; the log said why once
    interval = interval_from_env() if interval is None else interval
    refused = [(m.__name__, why) for m in modules if (why := paceable(m)) is not None]
    if refused:
        why = "; ".join(f"{name}: {why}" for name, why in refused)
        if modules is _MODULES:
            REFUSED = why
        log.warning("aiortc's RTCP reports keep their own pace (every 0.5-1.5 s): %s", why)
        return False
    SPACING = SPACING or Spacing(interval)
    SPACING.interval = interval
    for module in modules:
        module.random = SPACING
    log.info("aiortc's RTCP reports every %.1f s on average", interval)
    return True
