"""Look-ahead peak limiter, vectorised over many mixes, state streamed across frames.

Method: the mix is cut into 1 ms blocks; each block gets a target gain that
brings its peak to `CEILING`. The gain at each block edge is the smallest of
the targets of the two blocks it touches and of the previous edge raised by
the release step, and samples get the gain linearly interpolated between
edges. Both edges of a block are at or below its target, so every sample is
at or below the ceiling: no overshoot, and no hard clipping (the gain moves
smoothly, attack over 1 ms, release at `RELEASE_DB_PER_S`).

The attack needs to see one block ahead: the mixer delays every source by
`LOOKAHEAD` samples (1 ms) and hands the limiter FRAME + LOOKAHEAD samples,
the last block being the look-ahead. The state is one float per mix: the
gain (linear, at most 1) at the edge where the next frame starts. The
release is a running minimum (`np.minimum.accumulate`) of the bounds scaled
by the release curve, so there is no Python loop per block.

Mixes far below the ceiling pass bit-exact (gain exactly 1), also when
another mix of the same call is being limited. Every call is a numpy call over
all the mixes at once: the cost of a tick is mostly its number of calls.
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
_STARTS = np.arange(0, FRAME + LOOKAHEAD, BLOCK)


def _release() -> tuple[np.ndarray, np.ndarray]:
    """The release curve over the block edges, g**k (g: one block's release step, a
    factor), and its inverse, each pair multiplying to exactly 1: a mix bounded by 1
    everywhere then comes out at exactly 1."""
    k = np.arange(_BLOCKS, dtype=np.float64)
    up = 10.0 ** (RELEASE_DB_PER_S * BLOCK / SAMPLE_RATE * k / 20.0)
    down = 1.0 / up
    for i in range(_BLOCKS):
        while up[i] * down[i] != 1.0:
            down[i] = np.nextafter(down[i], 0.0 if up[i] * down[i] > 1.0 else 2.0)
    return up, down


_UP, _DOWN = _release()
# Within each block the gain goes from its first edge e to the next e' as e + (e' - e)*r:
# rows 1 and r of one block (a block whose edges are equal keeps exactly their gain).
_RAMP = np.stack([np.ones(BLOCK), np.arange(BLOCK) / BLOCK]).astype(np.float32)


def limit(window: np.ndarray, gain: np.ndarray, partner: np.ndarray | None = None
          ) -> tuple[np.ndarray, np.ndarray]:
    """Limit each row of `window` (mixes x FRAME+LOOKAHEAD samples, float32).

    `gain` is each mix's gain at the start of this frame (state: linear, <= 1).
    `partner[i]`, if given, is the row linked to row i (a stereo pair's other
    channel, or i itself): both see the louder of the two, so with equal
    states they get the same gain and the stereo image does not move.
    Returns the limited frames (mixes x FRAME, float32; a view of `window` when no
    mix is touched) and the new state.
    """
    mixes = window.shape[0]
    # each 1 ms block's peak (a stereo pair's: the louder channel's)
    peaks = np.maximum.reduceat(np.abs(window), _STARTS, axis=1)
    if partner is not None:
        peaks = np.maximum(peaks, peaks[partner])
    if peaks.max(initial=0.0) <= CEILING and gain.min(initial=1.0) >= 1.0:
        return window[:, :FRAME], np.ones(mixes)
    # Upper bound on each block edge k: targets of blocks k-1 and k (edge 0: the state
    # carried in, which may be below block 0's target after a regroup). (Peaks are
    # floored at 1e-12: no division by zero.)
    target = np.minimum(np.divide(CEILING, np.maximum(peaks, 1e-12)), 1.0)
    bound = np.empty((mixes, _BLOCKS))
    np.minimum(target[:, 1:], target[:, :-1], out=bound[:, 1:])
    np.minimum(gain, target[:, 0], out=bound[:, 0])
    # edge[k] = min(bound[k], edge[k-1] * up[1])  ==  up[k] * cummin(bound[j] * down[j])
    bound *= _DOWN
    edges = np.minimum.accumulate(bound, axis=1)
    edges *= _UP
    np.minimum(edges, 1.0, out=edges)
    # the gain curve: per block, its first edge and the step to the next, times rows 1, r
    steps = np.empty((mixes, _BLOCKS - 1, 2), dtype=np.float32)
    steps[:, :, 0] = edges[:, :-1]
    np.subtract(edges[:, 1:], edges[:, :-1], out=steps[:, :, 1], casting="same_kind")
    curve = (steps.reshape(-1, 2) @ _RAMP).reshape(mixes, FRAME)
    curve *= window[:, :FRAME]
    return curve, edges[:, -1]
