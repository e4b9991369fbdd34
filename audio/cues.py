"""The game's sound cues: short WAV files read once with soundfile, kept in memory.

The files in audio/cues/ are made by scripts/make_cues.py (48 kHz, mono,
16-bit, peak about -6 dBFS, silent at both ends).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np
import soundfile as sf

__all__ = ["CUE_NAMES", "CueBank", "CUE_DIR"]

CUE_NAMES = (
    "your_turn",
    "vote_open",
    "elimination",
    "victory",
    "defeat",
    "night",
    "day",
    "whisper_tick",
)
CUE_DIR = Path(__file__).resolve().parent / "cues"
SAMPLE_RATE = 48000


class CueBank:
    """Named cues as float32 mono 48 kHz arrays (read-only, shared by every mix)."""

    def __init__(self, cues: Mapping[str, np.ndarray] | None = None):
        """Wrap ready-made arrays (tests, synthetic cues); `load` reads the files."""
        self._cues: dict[str, np.ndarray] = {}
        for name, pcm in (cues or {}).items():
            arr = np.array(pcm, dtype=np.float32).reshape(-1)
            # One array is shared by every listener's mix: forbid in-place edits.
            arr.flags.writeable = False
            self._cues[name] = arr

    @classmethod
    def load(cls, path: str | Path | None = None) -> CueBank:
        """Read every <name>.wav in `path` (default: the package's cues folder).

        Raises FileNotFoundError if the folder is missing and ValueError for a
        file that is not 48 kHz mono.
        """
        folder = Path(path) if path is not None else CUE_DIR
        if not folder.is_dir():
            raise FileNotFoundError(f"no cue folder at {folder}")
        cues = {}
        for wav in sorted(folder.glob("*.wav")):
            data, rate = sf.read(wav, dtype="float32", always_2d=True)
            if rate != SAMPLE_RATE or data.shape[1] != 1:
                raise ValueError(f"{wav.name}: need {SAMPLE_RATE} Hz mono, got {rate} Hz x {data.shape[1]}")
            cues[wav.stem] = data[:, 0]
        return cls(cues)

    def names(self) -> list[str]:
        """Names of the cues held, sorted."""
        return sorted(self._cues)

    def get(self, name: str) -> np.ndarray:
        """The cue's samples (float32, read-only); KeyError for an unknown name."""
        try:
            return self._cues[name]
        except KeyError:
            raise KeyError(f"unknown cue {name!r}; known: {', '.join(self.names())}") from None

    def __contains__(self, name: object) -> bool:
        return name in self._cues
