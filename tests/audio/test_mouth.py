"""Mouth levels: open within 60 ms of speech, not on silence or steady noise, ~150 ms hangover."""

import numpy as np
from scipy import signal

from audio import FRAME, SAMPLE_RATE, RoomMixer, Routing
from audio.mouth import MouthMeter
from audio.synth import speech_like
from tests.audio.mixhelp import run

FRAME_S = FRAME / SAMPLE_RATE


def _levels(x):
    meter = MouthMeter(1)
    frames = x[: x.size // FRAME * FRAME].reshape(-1, FRAME)
    return np.array([meter.update(f[None, :])[0] for f in frames])


def _fan(seconds, level_db, seed=0):
    # steady broadband noise with a low-frequency tilt, like a laptop fan
    rng = np.random.default_rng(seed)
    n = int(seconds * SAMPLE_RATE)
    x = signal.lfilter([1.0], [1.0, -0.9], rng.standard_normal(n))
    return (x / np.sqrt(np.mean(x**2)) * 10 ** (level_db / 20)).astype(np.float32)


def test_mouth_opens_within_60_ms_of_speech_onset():
    onset = 1.0
    x = speech_like(2.0, seed=1, start=onset, stop=1.8)
    m = _levels(x)
    first = int(np.argmax(m > 0.2))
    assert (first + 1) * FRAME_S - onset <= 0.060
    assert not m[: int(onset / FRAME_S)].any()


def test_mouth_opens_within_60_ms_of_speech_over_a_fan():
    onset = 3.0
    x = _fan(4.0, -45.0) + speech_like(4.0, seed=2, start=onset, stop=3.9, level_db=-20.0)
    m = _levels(x)
    first = int(np.argmax(m[int(2.0 / FRAME_S) :] > 0.2)) + int(2.0 / FRAME_S)
    assert (first + 1) * FRAME_S - onset <= 0.060


def _reference_levels(frames):
    """The meter's rule written with arrays (how it was first written): the floor is
    the minimum of the last FLOOR_FRAMES levels, a hangover closes the mouth."""
    from audio.mouth import FLOOR_FRAMES, GATE_DB, HANG, MARGIN_DB, RANGE_DB, SILENT_DB

    history = np.full((FLOOR_FRAMES, frames.shape[1]), SILENT_DB)
    hold, hang, out = np.zeros(frames.shape[1]), np.zeros(frames.shape[1], int), []
    for k, frame in enumerate(frames):
        level = 10.0 * np.log10(np.sum(frame.astype(np.float64) ** 2, axis=1) / FRAME + 1e-10)
        floor = history.min(axis=0)
        history[k % FLOOR_FRAMES] = level
        opening = np.minimum((level - floor - MARGIN_DB) / RANGE_DB, 1.0) * (level >= GATE_DB)
        speaking = opening > 0.0
        hold[speaking] = opening[speaking]
        hang -= hang > 0
        hang[speaking] = HANG
        out.append(np.where(speaking, opening, hold * hang / HANG))
    return np.array(out)


def test_meter_matches_its_rule_through_long_silences_and_speech():
    # Three speakers: speech after 2 s of digital silence, speech over a fan with
    # silent gaps longer than the floor's memory, and silence only. The meter
    # skips the work of a long silence; what it reports must not change.
    n = 6 * SAMPLE_RATE
    a = speech_like(6.0, seed=3, start=2.0, stop=5.0)
    b = _fan(6.0, -45.0, seed=4) + speech_like(6.0, seed=5, start=0.5, stop=1.5, level_db=-20.0)
    b[int(2.0 * SAMPLE_RATE) : int(4.5 * SAMPLE_RATE)] = 0.0
    x = np.stack([a[:n], b[:n], np.zeros(n, np.float32)]).astype(np.float32)
    frames = x.reshape(3, -1, FRAME).transpose(1, 0, 2)  # frames x speakers x samples
    meter = MouthMeter(3)
    got = np.array([meter.update(f) for f in frames])
    want = _reference_levels(frames)
    np.testing.assert_allclose(got, want, atol=1e-4)
    assert got[:, 0].max() > 0.5 and got[:, 1].max() > 0.5 and not got[:, 2].any()


def test_silence_never_moves_the_mouth():
    assert not _levels(np.zeros(3 * SAMPLE_RATE, dtype=np.float32)).any()


def test_steady_noise_stops_moving_the_mouth_once_the_floor_adapts():
    m = _levels(_fan(8.0, -30.0))
    # 1.5 s to learn the floor, plus the 140 ms hangover of that learning time
    assert not m[int(1.7 / FRAME_S) :].any()


def test_mouth_closes_after_about_150_ms_of_hangover():
    stop = 1.5
    x = speech_like(3.0, seed=4, start=0.5, stop=stop)
    m = _levels(x)
    after = m[int(stop / FRAME_S) :]
    assert after[:4].min() > 0.0  # still open 60-80 ms after the last sound
    assert not after[10:].any()  # shut 200 ms after it


def test_mouth_follows_syllables_rather_than_staying_open():
    x = speech_like(4.0, seed=5, start=0.5, stop=3.5)
    m = _levels(x)[int(0.5 / FRAME_S) : int(3.5 / FRAME_S)]
    assert m.max() > 0.8
    assert m.min() < m.max() * 0.8  # it moves


def test_every_speakers_mouth_is_reported_whisperer_and_muted_alike():
    mixer = RoomMixer()
    for p in ("a", "b", "c", "d"):
        mixer.add_player(p)
    mixer.set_routing(Routing(public=frozenset({"a", "b"}), whisper={"a": frozenset({"b"})}))
    mixer.start_whisper("a", "b")
    voices = {"a": speech_like(1.0, seed=1, start=0.2), "d": speech_like(1.0, seed=2, start=0.2)}
    _, mouths, results = run(mixer, voices, 50)
    assert set(results[-1].mouths) == {"a", "b", "c", "d"}
    assert mouths["a"].max() > 0.5  # the whisperer's mouth moves for everyone
    assert mouths["d"].max() > 0.5  # so does a muted speaker's (the server filters)
    assert not mouths["b"].any() and not mouths["c"].any()


def test_mouth_follows_real_synthesised_speech(tmp_path):
    import shutil
    import subprocess

    import soundfile as sf
    from scipy.signal import resample_poly

    espeak = shutil.which("espeak-ng")
    if espeak is None:
        import pytest

        pytest.skip("espeak-ng not installed")
    wav = tmp_path / "speech.wav"
    subprocess.run([espeak, "-v", "it", "-w", str(wav), "ciao a tutti, chi è l'intruso?"], check=True)
    speech, rate = sf.read(wav, dtype="float64")
    speech = resample_poly(speech, SAMPLE_RATE, rate) * 0.5
    lead = 2.0  # s of fan noise before the first word
    x = _fan(lead + speech.size / SAMPLE_RATE + 1.0, -50.0)
    start = int(lead * SAMPLE_RATE)
    x[start : start + speech.size] += speech.astype(np.float32)
    loud = np.flatnonzero(np.abs(speech) > 0.01 * np.abs(speech).max())
    onset = lead + loud[0] / SAMPLE_RATE
    end = lead + loud[-1] / SAMPLE_RATE
    m = _levels(x)
    assert not m[int(1.7 / FRAME_S) : int(lead / FRAME_S)].any()  # fan only: closed
    skip = int(lead / FRAME_S)
    first = skip + int(np.argmax(m[skip:] > 0.2))
    assert 0 <= (first + 1) * FRAME_S - onset <= 0.060
    assert not m[int((end + 0.2) / FRAME_S) :].any()
