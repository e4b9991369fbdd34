"""Look-ahead peak limiter, vectorised over many mixes, state streamed across frames.

Method: the mix is cut into 1 ms blocks; each block gets a target gain that
brings its peak to `CEILING`. The gain at each block edge is the smallest of
the targets of the two blocks it touches and of the previous edge plus the
release step, and samples get the gain linearly interpolated between edges.
Both edges of a block are at or below its target, so every sample is at or
below the ceiling: no overshoot, and no hard clipping (the gain moves
smoothly, attack over 1 ms, release at `RELEASE_DB_PER_S`).

The attack needs to see one block ahead: the mixer delays every source by
`LOOKAHEAD` samples (1 ms) and hands the limiter FRAME + LOOKAHEAD samples,
the last block being the look-ahead. The state is one float per mix: the
gain (dB) at the edge where the next frame starts. The release is a running
minimum (`np.minimum.accumulate`), so there is no Python loop per block.

Mixes far below the ceiling pass bit-exact (gain exactly 1).
"""

from __future__ import annotations

import numpy as np

from audio.format import FRAME, SAMPLE_RATE

__all__ = ["LOOKAHEAD", "CEILING", "limit"]

BLOCK = 48  # 1 ms
LOOKAHEAD = BLOCK
CEILING = 0.97  # about -0.26 dBFS: headroom for the Opus encoder's own overshoot
RELEASE_DB_PER_S = 40.0  # -24 dB recovers in 0.6 s: no pumping on speech
_BLOCKS = (FRAME + LOOKAHEAD) // BLOCK  # 21, the last one is the look-ahead
_R = RELEASE_DB_PER_S * BLOCK / SAMPLE_RATE  # release step per block, dB
_K = np.arange(_BLOCKS, dtype=np.float64)
_STARTS = np.arange(0, FRAME + LOOKAHEAD, BLOCK)


def _interpolation() -> np.ndarray:
    # (edges x samples): sample i of block k is (1-r) * edge[k] + r * edge[k+1],
    # so the per-sample gain curve is one small matrix product.
    m = np.zeros((_BLOCKS, FRAME), dtype=np.float32)
    r = np.arange(BLOCK) / BLOCK
    for k in range(_BLOCKS - 1):
        m[k, k * BLOCK : (k + 1) * BLOCK] = 1.0 - r
        m[k + 1, k * BLOCK : (k + 1) * BLOCK] = r
    return m


_INTERP = _interpolation()


def limit(window: np.ndarray, gain_db: np.ndarray, partner: np.ndarray | None = None
          ) -> tuple[np.ndarray, np.ndarray]:
    """Limit each row of `window` (mixes x FRAME+LOOKAHEAD samples).

    `gain_db` is each mix's gain at the start of this frame (state, <= 0 dB).
    `partner[i]`, if given, is the row linked to row i (a stereo pair's other
    channel, or i itself): both see the louder of the two, so with equal
    states they get the same gain and the stereo image does not move.
    Returns the limited frames (mixes x FRAME, float32) and the new state.
    """
    mixes = window.shape[0]
    # each 1 ms block's peak (a stereo pair's: the louder channel's); a mix's peak is
    # the largest of its blocks'
    peaks = np.maximum.reduceat(np.abs(window), _STARTS, axis=1)
    if partner is not None:
        peaks = np.maximum(peaks, peaks[partner])
    need = (peaks.max(axis=1) > CEILING) | (gain_db < 0.0)
    if not need.any():
        return window[:, :FRAME], np.zeros(mixes)
    if need.all():
        return _limit(window, peaks, gain_db)
    # Only the mixes that are loud (or still releasing) pay for the gain curve.
    out = np.array(window[:, :FRAME])
    state = np.zeros(mixes)
    out[need], state[need] = _limit(window[need], peaks[need], gain_db[need])
    return out, state


def _limit(window: np.ndarray, peaks: np.ndarray, gain_db: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    # (peaks are floored at 1e-12: no division by zero, no np.errstate needed)
    target = np.minimum(0.0, 20.0 * np.log10(CEILING / np.maximum(peaks, 1e-12)))
    # Upper bound on each block edge k: targets of blocks k-1 and k (edge 0: the
    # state carried in, which may exceed block 0's target after a regroup).
    bound = target.copy()
    bound[:, 1:] = np.minimum(target[:, 1:], target[:, :-1])
    bound[:, 0] = np.minimum(gain_db, target[:, 0])
    # edge[k] = min(bound[k], edge[k-1] + R)  ==  R*k + cummin(bound[j] - R*j)
    edges = np.minimum(0.0, _R * _K + np.minimum.accumulate(bound - _R * _K, axis=1))
    lin = (10.0 ** (edges / 20.0)).astype(np.float32)
    out = window[:, :FRAME] * (lin @ _INTERP)
    return out, edges[:, -1]
