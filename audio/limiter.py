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
_RAMP = (np.arange(BLOCK, dtype=np.float32) / BLOCK)[None, None, :]
_K = np.arange(_BLOCKS, dtype=np.float64)


def limit(window: np.ndarray, gain_db: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Limit each row of `window` (mixes x FRAME+LOOKAHEAD samples).

    `gain_db` is each mix's gain at the start of this frame (state, <= 0 dB).
    Returns the limited frames (mixes x FRAME, float32) and the new state.
    """
    mixes = window.shape[0]
    peaks = np.abs(window.reshape(mixes, _BLOCKS, BLOCK)).max(axis=2)
    if not (peaks > CEILING).any() and not (gain_db < 0.0).any():
        return window[:, :FRAME], np.zeros(mixes)
    with np.errstate(divide="ignore"):
        target = np.minimum(0.0, 20.0 * np.log10(CEILING / np.maximum(peaks, 1e-12)))
    # Upper bound on each block edge k: targets of blocks k-1 and k (edge 0: the
    # state carried in, which may exceed block 0's target after a regroup).
    bound = target.copy()
    bound[:, 1:] = np.minimum(target[:, 1:], target[:, :-1])
    bound[:, 0] = np.minimum(gain_db, target[:, 0])
    # edge[k] = min(bound[k], edge[k-1] + R)  ==  R*k + cummin(bound[j] - R*j)
    edges = np.minimum(0.0, _R * _K + np.minimum.accumulate(bound - _R * _K, axis=1))
    lin = (10.0 ** (edges / 20.0)).astype(np.float32)
    start = lin[:, :-1, None]
    gains = start + (lin[:, 1:, None] - start) * _RAMP  # (mixes, 20, BLOCK)
    out = window[:, :FRAME] * gains.reshape(mixes, FRAME)
    return out, edges[:, -1]
