"""audio/iir.py: the drunk voice's low-pass without importing scipy.signal (1.4 s of a
core at every server's start-up)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from scipy import signal

from audio import iir
from tests.support.server_proc import ROOT


@pytest.mark.parametrize("order", [1, 2, 3, 4, 6])
@pytest.mark.parametrize("cutoff", [300.0, 3000.0, 11025.0, 20000.0])
def test_the_low_pass_is_scipys_butterworth(order, cutoff):
    b, a = iir.butter_lowpass(order, cutoff, 48000.0)
    want_b, want_a = signal.butter(order, cutoff, fs=48000.0)
    assert np.allclose(b, want_b, rtol=1e-9, atol=1e-15)
    assert np.allclose(a, want_a, rtol=1e-9, atol=1e-12)


def test_a_cutoff_outside_the_band_is_refused():
    for bad in (0.0, 24000.0, 30000.0):
        with pytest.raises(ValueError):
            iir.butter_lowpass(2, bad, 48000.0)


def test_the_filter_is_lfilter_on_a_row_and_on_rows_side_by_side():
    rng = np.random.default_rng(7)
    b, a = iir.butter_lowpass(2, 3000.0, 48000.0)
    x, zi = rng.standard_normal((3, 960)), rng.standard_normal((3, 2))
    for args in ((x[0], zi[0]), (x, zi)):
        got = iir.lfilter(b, a, *args)
        want = signal.lfilter(b, a, args[0], zi=args[1])
        for g, w in zip(got, want, strict=True):
            assert np.allclose(g, w, rtol=1e-12, atol=1e-12)
    # The reference the routine is checked against says the same.
    for g, w in zip(iir.reference_lfilter(b, a, x[:, :50], zi),
                    signal.lfilter(b, a, x[:, :50], zi=zi), strict=True):
        assert np.allclose(g, w, rtol=1e-12, atol=1e-12)


def test_the_compiled_routine_is_the_one_used():
    assert iir.lfilter is not iir._public


def test_the_voice_stack_imports_without_scipy_signal():
    """A server imports the voice stack at start-up: scipy.signal's package stays out of it
    (its compiled routine alone is loaded)."""
    code = ("import sys, server.main; from server.media import voice; "
            "print(sorted(m for m in sys.modules if m in ('scipy.signal', 'scipy.stats')))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         timeout=60, check=True)
    assert out.stdout.strip() == "[]", out.stdout
