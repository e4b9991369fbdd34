"""Decoded mic frames quieter than SILENCE_PEAK are digital silence (server/media/rtc.py):
the quick test by the frame's energy must decide exactly as the sample-by-sample one."""

import numpy as np

from server.media.rtc import SILENCE_PEAK, _digital_silence


def _exact(pcm: np.ndarray) -> bool:
    return not np.any(np.abs(pcm) > SILENCE_PEAK)


def test_dither_and_frames_at_the_peak_are_silence():
    rng = np.random.default_rng(1)
    dither = (rng.integers(-2, 3, 960) / 32768).astype(np.float32)
    assert _digital_silence(dither)
    at_peak = np.full(960, SILENCE_PEAK, np.float32) * np.where(np.arange(960) % 2, 1, -1)
    assert _digital_silence(at_peak.astype(np.float32))
    assert _digital_silence(np.zeros(960, np.float32))
    assert _digital_silence(np.zeros(0, np.float32))


def test_one_sample_above_the_peak_is_not_silence():
    pcm = np.zeros(960, np.float32)
    pcm[500] = np.nextafter(np.float32(SILENCE_PEAK), np.float32(1))
    assert not _digital_silence(pcm)
    pcm = np.full(480, SILENCE_PEAK * 0.5, np.float32)
    pcm[7] = -SILENCE_PEAK * 1.01
    assert not _digital_silence(pcm)


def test_the_quick_test_agrees_with_the_exact_one_around_the_threshold():
    rng = np.random.default_rng(7)
    for scale in (0.2, 0.5, 0.9, 0.999, 1.0, 1.001, 1.1, 2.0, 100.0):
        for n in (480, 960, 1920):
            for _ in range(30):
                pcm = (rng.uniform(-1, 1, n) * SILENCE_PEAK * scale).astype(np.float32)
                assert _digital_silence(pcm) == _exact(pcm)
    speech = (0.1 * np.sin(np.arange(960) / 7)).astype(np.float32)
    assert not _digital_silence(speech)
