"""Opus through libopus called directly (server/media/opus.py) and PyAV's path beside it.

Issue 15 (server CPU): the encoder of every mix and the decoder of every mic
packet call libopus through ctypes where the library is found and passes the
check at first use; PyAV's (FFmpeg's) and aiortc's codecs stay as the
fallback. Real libopus throughout, no mocks of the codec.
"""

from __future__ import annotations

import glob
import logging
import os

import av
import numpy as np
import pytest

from server.config import VOICE_CODECS
from server.media import opus
from server.media.opus import FRAME, SAMPLE_RATE, OpusDecoder, OpusEncoder, OpusError
from server.media.rtc import SILENCE_PEAK, MicDecoder, Peer
from server.media.rtp_in import MicPacket


@pytest.fixture(autouse=True)
def _fresh_check(monkeypatch):
    """Each test starts with the library unloaded and unchecked, and leaves it so."""
    monkeypatch.delenv(opus.ENV, raising=False)
    opus.reset()
    yield
    opus.reset()


def _tone(frames: int, freq: float = 440.0, amp: float = 0.25) -> np.ndarray:
    t = np.arange(frames * FRAME) / SAMPLE_RATE
    return (amp * np.sin(2 * np.pi * freq * t)).astype(np.float32)


def _db(x: np.ndarray) -> float:
    return 20 * np.log10(float(np.sqrt(np.mean(np.square(x, dtype=np.float64)))) + 1e-12)


def _frames(x: np.ndarray, size: int = FRAME) -> list[np.ndarray]:
    return [x[i:i + size] for i in range(0, len(x), size)]


def _force_pyav(monkeypatch) -> None:
    monkeypatch.setenv(opus.ENV, "pyav")
    opus.reset()


def test_direct_and_pyav_encoders_decode_to_the_same_tone_either_way(monkeypatch):
    x = _tone(50)
    direct_enc, direct_dec = OpusEncoder(), OpusDecoder()
    assert direct_enc.direct and direct_dec.direct
    _force_pyav(monkeypatch)
    pyav_enc, pyav_dec = OpusEncoder(), OpusDecoder()
    assert not pyav_enc.direct and not pyav_dec.direct

    from_direct = [direct_enc.encode(f) for f in _frames(x)]
    from_pyav = [pyav_enc.encode(f) for f in _frames(x)]
    # one non-empty payload per 20 ms frame, from the first one on
    assert all(isinstance(p, bytes) and p for p in from_direct + from_pyav)
    assert len(from_direct) == len(from_pyav) == 50
    assert direct_enc.frames == pyav_enc.frames == 50
    want = _db(x)
    for payloads in (from_direct, from_pyav):
        for dec in (direct_dec, pyav_dec):
            out = np.concatenate([dec.decode(p) for p in payloads])
            assert len(out) == len(x)
            assert abs(_db(out[-25 * FRAME:]) - want) < 1.0
    # same library, same settings as FFmpeg's libopusenc: sizes alike (here, the same bytes)
    sizes = np.mean([len(p) for p in from_direct]), np.mean([len(p) for p in from_pyav])
    assert 100 < sizes[0] < 300 and abs(sizes[0] - sizes[1]) < 0.1 * sizes[1]  # 40-120 kb/s
    assert from_direct == from_pyav


def test_the_stereo_encoder_keeps_left_and_right():
    enc = OpusEncoder(channels=2)
    assert enc.direct and enc.channels == 2
    left, right = _tone(30, 440, 0.3), _tone(30, 440, 0.075)  # right 12 dB lower
    stereo = np.stack([left, right], axis=1)
    ctx = av.CodecContext.create("libopus", "r")
    ctx.sample_rate, ctx.layout = SAMPLE_RATE, "stereo"
    out = []
    for i in range(30):
        payload = enc.encode(stereo[i * FRAME:(i + 1) * FRAME])
        assert payload
        for f in ctx.decode(av.Packet(payload)):
            a = f.to_ndarray().reshape(-1)  # s16 packed, interleaved
            out.append(a.reshape(-1, 2).astype(np.float32) / 32768)
    out = np.concatenate(out)[-15 * FRAME:]
    assert abs(_db(out[:, 0]) - _db(left)) < 1.0
    assert abs(_db(out[:, 1]) - _db(right)) < 1.5
    with pytest.raises(ValueError):
        enc.encode(left[:FRAME])  # a mono frame is half a stereo one


@pytest.mark.parametrize("path", ["direct", "pyav"])
def test_two_voices_on_opposite_sides_stay_apart_after_a_frame_with_one_of_them(path,
                                                                                 monkeypatch):
    # Voices around the table (issue 13): Bruno on the listener's left, Carla on the
    # right, talking at once, and every second a frame where Carla pauses (a breath, a
    # late packet). libopus's hybrid mode narrowed such an image to 2.5 dB of the 12.2
    # sent, re-opening it over seconds after each pause; the stereo mix keeps each side.
    from audio.spatial import seat_pan
    from tests.e2e.spectrum import tone_db

    if path == "pyav":
        _force_pyav(monkeypatch)
    enc = OpusEncoder(channels=2)
    assert enc.direct == (path == "direct")
    (bl, br), (cl, cr) = seat_pan(0, 1, 3), seat_pan(0, 2, 3)
    want = 20 * np.log10(bl / br)  # 12.2 dB, and the same for Carla on the right
    bruno, carla = _tone(150, 700), _tone(150, 1300)
    for i in range(0, 150, 50):
        carla[i * FRAME:(i + 1) * FRAME] = 0
    mix = np.stack([bl * bruno + cl * carla, br * bruno + cr * carla], axis=1)
    ctx = av.CodecContext.create("libopus", "r")
    ctx.sample_rate, ctx.layout = SAMPLE_RATE, "stereo"
    out = []
    for i in range(150):
        for f in ctx.decode(av.Packet(enc.encode(mix[i * FRAME:(i + 1) * FRAME]))):
            out.append(f.to_ndarray().reshape(-1, 2).astype(np.float32) / 32768)
    out = np.concatenate(out)
    # each second after the first, from 0.1 s past the pause on (0.9 s: both tones on bins)
    for s in (1, 2):
        x = out[s * SAMPLE_RATE + 4800:(s + 1) * SAMPLE_RATE]
        bruno_left = tone_db(x[:, 0], 700) - tone_db(x[:, 1], 700)
        carla_right = tone_db(x[:, 1], 1300) - tone_db(x[:, 0], 1300)
        assert bruno_left == pytest.approx(want, abs=1.0), (s, bruno_left, want)
        assert carla_right == pytest.approx(want, abs=1.0), (s, carla_right, want)


@pytest.mark.parametrize("path", ["direct", "pyav"])
def test_each_voice_codec_codes_speech_in_its_own_opus_mode(path, monkeypatch):
    # Settings.voice_codec: "celt" codes the mono mix in CELT alone, "silk" in SILK or
    # hybrid (the mode a browser's mic uses, with FEC); a stereo mix is CELT either way.
    # Read from each packet's TOC byte (RFC 6716: configs 0-15 SILK or hybrid, 16-31 CELT).
    from audio.synth import speech_like

    if path == "pyav":
        _force_pyav(monkeypatch)
    x = speech_like(1.0, seed=3).astype(np.float32)
    frames = _frames(x)[:-1]

    def configs(enc, stereo=False):
        return {enc.encode(np.repeat(f, 2) if stereo else f)[0] >> 3 for f in frames}

    assert min(configs(OpusEncoder(opus.OpusSettings.for_codec("celt")))) >= 16
    assert max(configs(OpusEncoder(opus.OpusSettings.for_codec("silk")))) < 16
    assert configs(OpusEncoder(opus.BROWSER_MIC)) == configs(
        OpusEncoder(opus.OpusSettings.for_codec("silk")))
    for codec in VOICE_CODECS:
        assert min(configs(OpusEncoder(opus.OpusSettings.for_codec(codec), 2), True)) >= 16
    assert opus.OpusSettings() == opus.OpusSettings.for_codec("celt")
    with pytest.raises(ValueError, match="voice_codec"):
        opus.OpusSettings.for_codec("mp3")


def test_a_garbage_payload_raises_and_the_decoder_goes_on(monkeypatch):
    for force in (False, True):
        if force:
            _force_pyav(monkeypatch)
        enc, dec = OpusEncoder(), OpusDecoder()
        assert dec.direct is not force
        payloads = [enc.encode(f) for f in _frames(_tone(10))]
        dec.decode(payloads[0])
        with pytest.raises(OpusError):
            dec.decode(b"\xff\xff\xff")  # code 3, a frame count of 0 (invalid)
        assert len(dec.decode(b"")) == 0  # no samples, and not the end of the stream
        assert [len(dec.decode(p)) for p in payloads[1:]] == [FRAME] * 9


def test_sussurro_opus_pyav_selects_pyavs_codecs(monkeypatch):
    assert opus.libopus() is not None and opus.direct_decoder() is not None
    _force_pyav(monkeypatch)
    assert opus.libopus() is None and opus.direct_decoder() is None
    enc, dec = OpusEncoder(), OpusDecoder()
    assert not enc.direct and not dec.direct
    assert len(dec.decode(enc.encode(_tone(1)))) == FRAME
    monkeypatch.delenv(opus.ENV)
    assert opus.libopus() is not None  # the switch is read at each new codec


def _av_lib(name: str) -> str:
    here = os.path.dirname(os.path.dirname(av.__file__))
    found = glob.glob(os.path.join(here, "av.libs", f"{name}*.so*"))
    if not found:
        pytest.skip(f"no {name} bundled with PyAV here")
    return found[0]


@pytest.mark.parametrize("case", ["missing", "not_opus", "check_fails"])
def test_a_library_that_fails_the_check_falls_back_to_pyav(case, monkeypatch, caplog):
    if case == "missing":
        monkeypatch.setattr(opus, "library_paths", lambda: ["/nonexistent/libopus.so.0"])
    elif case == "not_opus":
        monkeypatch.setattr(opus, "library_paths", lambda: [_av_lib("libavutil")])
    else:  # the library loads but its encoder gives nothing: a mismatch
        monkeypatch.setattr(opus._DirectEncode, "encode", lambda self, pcm: b"")
    with caplog.at_level(logging.WARNING, logger="server.media.opus"):
        assert opus.libopus() is None
        enc, dec = OpusEncoder(), OpusDecoder()
        assert opus.libopus() is None
    assert not enc.direct and not dec.direct
    assert len(dec.decode(enc.encode(_tone(1)))) == FRAME
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1  # logged once, however many codecs follow


def test_codecs_are_freed_without_trouble():
    import gc

    for _ in range(200):
        enc, dec = OpusEncoder(channels=2), OpusDecoder()
        dec.decode(enc.encode(np.zeros(2 * FRAME, np.float32)))
    del enc, dec
    gc.collect()
    # one more round after the frees: the library state is intact
    assert len(OpusDecoder().decode(OpusEncoder().encode(_tone(1)))) == FRAME


# ------------------------------------------------------------------- MicDecoder


def _encode_at(payload_ms: int, x: np.ndarray) -> list[bytes]:
    """Payloads of `payload_ms` each (10, 20, 40 or 60 ms), as an odd browser might send."""
    ctx = av.CodecContext.create("libopus", "w")
    ctx.sample_rate, ctx.layout, ctx.format = SAMPLE_RATE, "mono", "flt"
    ctx.bit_rate = 32000
    ctx.options = {"application": "voip", "frame_duration": str(payload_ms)}
    ctx.open()
    size = payload_ms * 48
    out = []
    for i, chunk in enumerate(_frames(x, size)):
        f = av.AudioFrame.from_ndarray(chunk.reshape(1, -1), format="flt", layout="mono")
        f.sample_rate, f.pts = SAMPLE_RATE, i * size
        out += [bytes(p) for p in ctx.encode(f)]
    return out


def _mic_stream() -> list[MicPacket]:
    """A mic's packets: a tone, digital silence, 40 ms and 10 ms packets, garbage, an empty
    payload, a late duplicate; RTP time wraps around 2**32 on the way."""
    enc = OpusEncoder(opus.BROWSER_MIC)
    ts0 = 2**32 - 20 * FRAME
    packets: list[tuple[bytes, int]] = []
    ts = ts0
    for f in _frames(_tone(30)):
        packets.append((enc.encode(f), ts))
        ts += FRAME
    for _ in range(10):
        packets.append((enc.encode(np.zeros(FRAME, np.float32)), ts))
        ts += FRAME
    for p in _encode_at(40, _tone(8, 660)):
        packets.append((p, ts))
        ts += 2 * FRAME
    packets.append((b"\xff\xff\xff", ts))
    ts += FRAME
    packets.append((b"", ts))
    ts += FRAME
    for p in _encode_at(10, _tone(4, 550)):
        packets.append((p, ts))
        ts += FRAME // 2
    out = [MicPacket(1000 + i, t & 0xFFFFFFFF, 1234, 111, p) for i, (p, t) in enumerate(packets)]
    out.insert(12, out[10])  # a duplicate, late: dropped before decoding
    return out


def _run_mic(packets: list[MicPacket]) -> tuple[MicDecoder, Peer, list]:
    got: list[tuple[np.ndarray, int | None]] = []
    peer = Peer(pid="p1", pc=None, track=None)
    dec = MicDecoder(peer, lambda pid, pcm, ts: got.append((pcm, ts)))
    for p in packets:
        assert dec.add(p) == (False, None)
    return dec, peer, got


def test_mic_decoder_delivers_the_same_pcm_and_times_on_both_paths(monkeypatch):
    packets = _mic_stream()
    direct, direct_peer, direct_got = _run_mic(packets)
    assert direct._direct is not None
    _force_pyav(monkeypatch)
    fallback, fallback_peer, fallback_got = _run_mic(packets)
    assert fallback._direct is None

    for dec, peer in ((direct, direct_peer), (fallback, fallback_peer)):
        assert dec.errors == 1 and dec.late == 1  # the garbage; the duplicate
        assert peer.frames_in == 30 + 10 + 4 + 8 == len(direct_got)
        assert peer.silent_in >= 8  # the silence (its first frames hold the tone's tail)
    assert direct_peer.silent_in == fallback_peer.silent_in
    # the RTP timestamp of each packet, wrap-around included, and its length as sent
    assert [ts for _, ts in direct_got] == [ts for _, ts in fallback_got]
    assert [len(p) for p, _ in direct_got] == [FRAME] * 40 + [2 * FRAME] * 4 + [FRAME // 2] * 8
    assert [len(p) for p, _ in direct_got] == [len(p) for p, _ in fallback_got]
    assert direct_got[0][1] == 2**32 - 20 * FRAME and direct_got[20][1] == 0
    for (a, _), (b, _) in zip(direct_got, fallback_got, strict=True):
        assert a.dtype == b.dtype == np.float32
        # the same samples, but for the fallback's 16-bit rounding
        assert float(np.max(np.abs(a - b))) <= 1.01 / 32768
        assert (not np.any(a)) == (not np.any(b))  # silence zeroed on both
    tone = np.concatenate([p for p, _ in direct_got[10:30]])
    assert abs(_db(tone) - _db(_tone(20))) < 1.0


def test_a_stereo_mic_stream_decodes_to_the_same_mono_on_both_paths(monkeypatch):
    """A browser may send stereo Opus: libopus's mono decoder downmixes it as the
    fallback's average of aiortc's two channels does."""
    enc = OpusEncoder(channels=2)
    left, right = _tone(20, 440, 0.3), _tone(20, 660, 0.1)
    stereo = np.stack([left, right], axis=1)
    payloads = [enc.encode(stereo[i * FRAME:(i + 1) * FRAME]) for i in range(20)]
    packets = [MicPacket(i, i * FRAME, 1, 111, bytearray(p)) for i, p in enumerate(payloads)]
    _, _, direct = _run_mic(packets)
    _force_pyav(monkeypatch)
    _, _, fallback = _run_mic([MicPacket(p.sequence_number, p.timestamp, 1, 111, bytes(p._data))
                               for p in packets])
    assert len(direct) == len(fallback) == 20
    for (a, ta), (b, tb) in zip(direct, fallback, strict=True):
        assert ta == tb and len(a) == len(b) == FRAME
        assert float(np.max(np.abs(a - b))) <= 2 / 32768
    mono = np.concatenate([p for p, _ in direct[10:]])
    assert abs(_db(mono) - _db((left + right)[-10 * FRAME:] / 2)) < 1.0


def test_mic_decoder_zeroes_digital_silence_and_keeps_quiet_speech(monkeypatch):
    enc = OpusEncoder(opus.BROWSER_MIC)
    quiet = _tone(10, 440, 0.003)  # -53 dBFS: speech far away, not silence
    payloads = [enc.encode(f) for f in _frames(quiet)]
    payloads += [enc.encode(np.zeros(FRAME, np.float32)) for _ in range(15)]
    packets = [MicPacket(i, i * FRAME, 1, 111, p) for i, p in enumerate(payloads)]
    for force in (False, True):
        if force:
            _force_pyav(monkeypatch)
        _, peer, got = _run_mic(packets)
        assert all(np.max(np.abs(p)) > SILENCE_PEAK for p, _ in got[2:10])
        assert all(not np.any(p) for p, _ in got[-5:])
        assert peer.silent_in >= 5


def test_a_closed_peer_decodes_nothing():
    enc = OpusEncoder()
    got = []
    peer = Peer(pid="p1", pc=None, track=None)
    dec = MicDecoder(peer, lambda *a: got.append(a))
    peer.closed = True
    dec.add(MicPacket(1, 0, 1, 111, enc.encode(_tone(1))))
    assert got == [] and peer.frames_in == 0
