"""The sound cues: every name loads, is clean and matches what the script makes."""

import importlib.util
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from audio.cues import CUE_DIR, CUE_NAMES, CueBank

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "make_cues.py"
PEAK_LIMIT = 10 ** (-6 / 20) * 1.01  # -6 dBFS with 1 % tolerance


@pytest.fixture(scope="module")
def bank() -> CueBank:
    return CueBank.load()


def _load_script():
    spec = importlib.util.spec_from_file_location("make_cues", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_cue_name_loads_from_the_package_folder(bank):
    assert sorted(CUE_NAMES) == bank.names()
    for name in CUE_NAMES:
        assert bank.get(name).size > 0


def test_cues_are_float32_mono_48k_files(bank):
    for name in CUE_NAMES:
        pcm = bank.get(name)
        assert pcm.dtype == np.float32 and pcm.ndim == 1
        info = sf.info(CUE_DIR / f"{name}.wav")
        assert (info.samplerate, info.channels, info.subtype) == (48000, 1, "PCM_16")


def test_cue_durations_are_short_and_files_small(bank):
    for name in CUE_NAMES:
        seconds = bank.get(name).size / 48000
        low, high = (0.01, 0.06) if name == "whisper_tick" else (0.2, 1.5)
        assert low <= seconds <= high, (name, seconds)
        assert (CUE_DIR / f"{name}.wav").stat().st_size < 100_000


def test_cue_peaks_stay_at_or_below_minus_6_dbfs(bank):
    for name in CUE_NAMES:
        peak = float(np.max(np.abs(bank.get(name))))
        assert peak <= PEAK_LIMIT, (name, peak)
        assert peak > 0.01, f"{name} is silent"


def test_whisper_tick_is_softer_than_the_other_cues(bank):
    tick = np.max(np.abs(bank.get("whisper_tick")))
    assert all(tick < 0.5 * np.max(np.abs(bank.get(n))) for n in CUE_NAMES if n != "whisper_tick")


def test_cues_start_and_end_near_zero_without_click(bank):
    for name in CUE_NAMES:
        pcm = bank.get(name)
        peak = np.max(np.abs(pcm))
        assert abs(pcm[0]) < 1e-3 and abs(pcm[-1]) < 1e-3, name
        # The first and last millisecond stay small: faded, not cut.
        assert np.max(np.abs(pcm[:48])) < 0.1 * peak, name
        assert np.max(np.abs(pcm[-48:])) < 0.1 * peak, name


def test_unknown_cue_raises_key_error(bank):
    with pytest.raises(KeyError):
        bank.get("fanfare")


def test_cue_arrays_are_read_only_so_mixes_cannot_corrupt_them(bank):
    with pytest.raises(ValueError):
        bank.get("day")[0] = 1.0


def test_loading_a_missing_folder_fails(tmp_path):
    with pytest.raises(FileNotFoundError):
        CueBank.load(tmp_path / "nope")


def test_loading_a_wrong_sample_rate_fails(tmp_path):
    sf.write(tmp_path / "day.wav", np.zeros(100, dtype=np.int16), 44100, subtype="PCM_16")
    with pytest.raises(ValueError):
        CueBank.load(tmp_path)


def test_script_makes_exactly_the_cue_names():
    assert set(_load_script().CUES) == set(CUE_NAMES)


def test_committed_cue_files_equal_a_fresh_generation(tmp_path):
    subprocess.run([sys.executable, str(SCRIPT), str(tmp_path)], check=True, capture_output=True)
    for name in CUE_NAMES:
        fresh, _ = sf.read(tmp_path / f"{name}.wav", dtype="int16")
        committed, _ = sf.read(CUE_DIR / f"{name}.wav", dtype="int16")
        assert fresh.shape == committed.shape, name
        # One LSB of slack for libm differences between machines.
        assert np.max(np.abs(fresh.astype(int) - committed.astype(int))) <= 1, name
