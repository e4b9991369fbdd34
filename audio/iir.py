"""A Butterworth low-pass's coefficients and the linear filter, without `import scipy.signal`.

Importing scipy.signal costs about 1.4 s of a core and tens of MB (it pulls scipy.stats
and scipy's array-API layer), and every server paid it at start-up for the drunk voice,
which needs two things of it: a low-pass's coefficients once per voice, and the linear
filter each tick. The coefficients are the textbook Butterworth design that
scipy.signal.butter computes (analogue poles on the unit circle, pre-warped, the bilinear
transform); the filter is scipy's own compiled routine (`scipy.signal._sigtools`), loaded
by itself: its package's `__init__` is what costs, not the routine. If that routine cannot
be loaded, or does not answer like a direct-form filter on a small check, the public
`scipy.signal.lfilter` is used (imported then).
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import logging
from collections.abc import Callable
from pathlib import Path

import numpy as np

__all__ = ["butter_lowpass", "lfilter"]

log = logging.getLogger(__name__)


def butter_lowpass(order: int, cutoff_hz: float, fs: float) -> tuple[np.ndarray, np.ndarray]:
    """(b, a) of a digital Butterworth low-pass of `order` with its -3 dB point at
    `cutoff_hz`, as scipy.signal.butter(order, cutoff_hz, fs=fs) gives them."""
    if order < 1:
        raise ValueError("order must be at least 1")
    if not 0 < cutoff_hz < fs / 2:
        raise ValueError("cutoff_hz must be between 0 and the Nyquist frequency")
    m = np.arange(-order + 1, order, 2)
    poles = -np.exp(1j * np.pi * m / (2 * order))  # the analogue prototype, cutoff 1 rad/s
    # Pre-warp so that the digital filter's cutoff lands at cutoff_hz (the bilinear
    # transform at a sampling rate of 2, as scipy does with normalised frequencies).
    warped = 4.0 * np.tan(np.pi * (cutoff_hz / (fs / 2)) / 2.0)
    poles = warped * poles
    gain = warped ** order
    # Bilinear transform: s -> 4 (z - 1) / (z + 1); every zero at infinity goes to z = -1.
    z_poles = (4.0 + poles) / (4.0 - poles)
    gain = gain * np.real(1.0 / np.prod(4.0 - poles))
    b = gain * np.real(np.poly(-np.ones(order)))
    a = np.real(np.poly(z_poles))
    return b, a


def reference_lfilter(b, a, x, zi) -> tuple[np.ndarray, np.ndarray]:
    """Direct form II transposed along the last axis, in Python: the meaning of `lfilter`
    (a[0] == 1), for checking the compiled routine on a few samples."""
    b, a = np.asarray(b, float), np.asarray(a, float)
    x, state = np.asarray(x, float), np.array(zi, float, copy=True)
    n = max(len(a), len(b))
    b, a = np.pad(b, (0, n - len(b))), np.pad(a, (0, n - len(a)))
    y = np.empty_like(x)
    for k in range(x.shape[-1]):
        xk = x[..., k]
        yk = b[0] * xk + state[..., 0]
        for i in range(n - 2):
            state[..., i] = b[i + 1] * xk - a[i + 1] * yk + state[..., i + 1]
        state[..., n - 2] = b[n - 1] * xk - a[n - 1] * yk
        y[..., k] = yk
    return y, state


def _public(b, a, x, zi):
    from scipy import signal  # noqa: PLC0415 - only if the routine alone is not usable

    return signal.lfilter(b, a, x, zi=zi)


def _load_routine() -> Callable | None:
    """scipy's compiled `_linear_filter`, loaded without scipy.signal's package."""
    try:
        import scipy  # noqa: PLC0415 - cheap: scipy's own __init__ imports no subpackage

        folder = Path(scipy.__file__).parent / "signal"
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            path = folder / f"_sigtools{suffix}"
            if path.exists():
                spec = importlib.util.spec_from_file_location("scipy.signal._sigtools", path)
                module = importlib.util.module_from_spec(spec)
                spec.loader.exec_module(module)
                return module._linear_filter
    except Exception:  # noqa: BLE001 - any surprise means: use the public function
        log.debug("scipy's linear filter routine could not be loaded alone", exc_info=True)
    return None


def _pick() -> Callable:
    """lfilter(b, a, x, zi) -> (y, zf): the compiled routine if it answers like the
    reference on one row and on rows side by side, else scipy.signal.lfilter (whose
    wrapper also spends about a third of a 20 ms call checking its arguments)."""
    routine = _load_routine()
    if routine is None:
        return _public

    def direct(b, a, x, zi):
        return routine(b, a, x, -1, zi)

    b, a = butter_lowpass(2, 2400.0, 48000.0)
    x, zi = np.linspace(-1.0, 1.0, 32).reshape(2, 16), np.array([[0.25, -0.5], [0.0, 1.0]])
    try:
        for args in ((x[0], zi[0]), (x[:1], zi[:1]), (x, zi)):
            for got, want in zip(direct(b, a, *args), reference_lfilter(b, a, *args), strict=True):
                if got.shape != want.shape or not np.allclose(got, want, rtol=1e-12, atol=1e-12):
                    return _public
    except Exception:  # noqa: BLE001 - a private routine that fails its check is not used
        return _public
    return direct


lfilter: Callable = _pick()
