"""Opus encoding of 20 ms mono frames into `av.Packet`s that aiortc only packetises.

Why a wrapper of our own rather than aiortc's encoder: aiortc encodes each
sender's frames itself (stereo, 96 kb/s, complexity 10), once per peer. The
room's listeners often hear the very same mix (silence, or the public debate
minus a speaker who is not themselves), so the voice loop encodes each
*distinct* mix once and hands the same payload to every listener's track.
Opus packets are self-describing: any decoder can decode a packet from any
encoder, so a listener moving from one mix group to another hears at most a
brief artefact where the encoder (its prediction state) changes.

Why libopus is called directly (issue 15, server CPU): the voice loop encodes
every distinct mix and `server.media.rtc.MicDecoder` decodes every mic packet, 50
times a second each. Through PyAV each call also builds an `AudioFrame` or a
`Packet` and runs FFmpeg's wrapper (and aiortc's decoder gives 16-bit stereo
that is then turned into float mono); `Libopus` calls `opus_encode_float` and
`opus_decode_float` through ctypes on buffers allocated once, on the same
libopus PyAV's wheel bundles, with the settings FFmpeg's libopusenc applies
for the same options, so the stream is the same kind. The first use in a
process loads the library and checks it (`self_check`: a tone through each
direct codec and PyAV's counterpart); if the library is missing, is not
libopus or fails the check, a warning is logged once and PyAV's encoder and
aiortc's decoder are used as before. `SUSSURRO_OPUS=pyav` forces that
fallback (operators, tests of both paths).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import fractions
import glob
import logging
import os
import weakref
from dataclasses import dataclass

import av
import numpy as np

from server.config import check_voice_codec

SAMPLE_RATE = 48000
FRAME = 960  # 20 ms
TIME_BASE = fractions.Fraction(1, SAMPLE_RATE)

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class OpusSettings:
    """Encoder settings; the defaults suit speech on a LAN or a decent uplink.

    The mono mix is coded by CELT alone ("lowdelay") at 80 kb/s set (VBR: ~140 kb/s on
    speech, ~115 at 64). The mix is the voice's second generation of Opus (the browser
    coded it first), and each generation's noise adds: at 40 kb/s set the tandem scored
    0.45 PESQ below the mic's own coding, at 64 kb/s 0.27, with the mic asked for 64 kb/s
    too (rtc.MIC_BITRATE); with complexity 8 (below), 0.03 at 80 kb/s (bench/README.md,
    "The mix's complexity and bitrate"). CELT costs less than half the CPU of SILK's
    hybrid mode per encode and 4 ms less look-ahead; it has no in-band FEC, so a lossy
    listener is protected otherwise. `for_codec("silk")` is the SILK setting, for links
    short of bandwidth.
    """

    bitrate: int = 80000
    # A stereo mix (voices placed around the table) is coded by CELT alone ("lowdelay").
    # In "voip" libopus codes 48 kb/s stereo speech in its hybrid mode, whose SILK part
    # narrows the image: two voices at once on opposite sides came out 8.5 dB apart
    # instead of 12.2, and after any frame with one voice or none SILK's smoothed stereo
    # width starts again from nothing and takes ~3 s to open (one such frame a second
    # kept them 2.5 dB apart). CELT keeps each side exact and costs a quarter of the
    # hybrid encode; at 64 kb/s (VBR, ~90-115 kb/s on speech) each ear scores better
    # than hybrid at 48 in PESQ (bench/opus_modes.py, bench/ROOM.md). It has no in-band
    # FEC (SILK's): a lost stereo packet is concealed, not rebuilt. 96 kb/s set: the mono
    # mix's 64 per channel pair, as the tandem needs (see the class).
    stereo_bitrate: int = 96000
    stereo_application: str = "lowdelay"
    # 0..10. CELT (the mix's mode) analyses more from 7 and most from 8: the tandem at
    # 64 kb/s cost 0.26 PESQ-WB at 5 (and 4 and 6, which code the same), 0.09-0.11 at 8
    # (9 and 10 the same), for ~90 -> ~135 us an encode here (issue 36, the clean room's
    # gap to a direct call). SILK's hybrid mode (`for_codec("silk")`) keeps 5: at 32 kb/s
    # 8 doubles its encode (bench/ROOM.md, "Opus complexity").
    complexity: int = 8
    # The stereo mix keeps 5: there 8 costs 2.7 times the encode (~105 -> ~280 us) for
    # +0.07 PESQ-WB, its 96 kb/s already scoring above the mono mix at 8.
    stereo_complexity: int = 5
    application: str = "lowdelay"
    # SILK's in-band FEC ("voip" only: CELT has none), so one lost packet is rebuilt
    # from the next
    fec: bool = True
    # Expected loss in percent (FEC needs a non-zero value). The FEC bitrate
    # grows with it and comes out of the 32 kb/s: 5 % keeps the coding noise
    # ~10 dB lower than 10 % while still covering an isolated lost packet.
    packet_loss: int = 5

    def application_for(self, channels: int) -> str:
        """The libopus application of an encoder of `channels` (1 or 2)."""
        return self.application if channels == 1 else self.stereo_application

    def complexity_for(self, channels: int) -> int:
        """The complexity (0..10) of an encoder of `channels` (1 or 2)."""
        return self.complexity if channels == 1 else self.stereo_complexity

    def bitrate_for(self, channels: int) -> int:
        """The bitrate (b/s) of an encoder of `channels` (1 or 2)."""
        return self.bitrate if channels == 1 else self.stereo_bitrate

    @classmethod
    def for_codec(cls, codec: str) -> OpusSettings:
        """The settings of `Settings.voice_codec`: "celt" (the defaults) or "silk" (the
        mono mix in SILK's hybrid mode at 32 kb/s, with in-band FEC); ValueError else."""
        if check_voice_codec(codec) == "silk":
            return cls(bitrate=32000, application="voip", complexity=5)
        return cls()


# What the server asks of a browser's microphone (the answer's maxaveragebitrate,
# server/media/rtc.py): 64 kb/s rather than a browser's default 32, for the tandem.
MIC_BITRATE = 64000

# What a browser's microphone sends once the answer asks for it (Chrome codes Opus as
# "voip", in-band FEC, at the bitrate the answer names): the bots and the tests that stand
# in for a player's mic encode with it. At 64 kb/s libopus codes the FEC (LBRR) into
# most speech packets whatever the expected loss; at 32 kb/s, none below 10 %. Complexity
# 5, as a phone's WebRTC codes (a desktop's codes at 9), and the bots' CPU stays low.
BROWSER_MIC = OpusSettings(bitrate=MIC_BITRATE, application="voip", complexity=5)


class OpusError(Exception):
    """libopus refused a call (its error text), or a payload it could not decode."""


# ----------------------------------------------------------------- libopus through ctypes

# "pyav": use PyAV's (FFmpeg's) and aiortc's codecs, never libopus directly; unset (or
# anything else): libopus directly where it loads and passes the check
ENV = "SUSSURRO_OPUS"
MAX_PACKET = 4000  # bytes: what libopus recommends as an encode's output room
MAX_SAMPLES = 5760  # 120 ms at 48 kHz: the longest packet Opus can carry

# opus_defines.h: applications and the CTL requests FFmpeg's libopusenc makes
OPUS_OK = 0
APPLICATIONS = {"voip": 2048, "audio": 2049, "lowdelay": 2051}
OPUS_SET_BITRATE = 4002
OPUS_SET_VBR = 4006
OPUS_SET_COMPLEXITY = 4010
OPUS_SET_INBAND_FEC = 4012
OPUS_SET_PACKET_LOSS_PERC = 4014
OPUS_SET_VBR_CONSTRAINT = 4020
OPUS_SET_PREDICTION_DISABLED = 4042


class Libopus:
    """libopus's C functions the codecs below call, declared once for ctypes.

    Raises OSError if `path` does not load and AttributeError if it is not libopus.
    """

    def __init__(self, path: str) -> None:
        lib = ctypes.CDLL(path)
        i32, ip, vp = ctypes.c_int32, ctypes.c_int, ctypes.c_void_p
        self.path = path

        def fn(name: str, restype, *argtypes):
            f = getattr(lib, name)
            f.restype = restype
            if argtypes:
                f.argtypes = list(argtypes)
            return f

        self.encoder_create = fn("opus_encoder_create", vp, i32, ip, ip, ctypes.POINTER(ip))
        # variadic: no argtypes, every argument passed as a ctypes int (or pointer)
        self.encoder_ctl = fn("opus_encoder_ctl", ip)
        self.encode_float = fn("opus_encode_float", i32, vp, vp, ip, vp, i32)
        self.encoder_destroy = fn("opus_encoder_destroy", None, vp)
        self.encoder_get_size = fn("opus_encoder_get_size", ip, ip)
        self.decoder_create = fn("opus_decoder_create", vp, i32, ip, ctypes.POINTER(ip))
        self.decode_float = fn("opus_decode_float", ip, vp, ctypes.c_char_p, i32, vp, ip, ip)
        self.decoder_destroy = fn("opus_decoder_destroy", None, vp)
        self.soft_clip = fn("opus_pcm_soft_clip", None, vp, ip, ip, vp)
        self.packet_samples = fn("opus_packet_get_nb_samples", ip, ctypes.c_char_p, i32, i32)
        # libopus 1.5 and later: whether a packet carries in-band FEC (LBRR); None before
        self.has_lbrr = (fn("opus_packet_has_lbrr", ip, ctypes.c_char_p, i32)
                         if hasattr(lib, "opus_packet_has_lbrr") else None)
        self.strerror = fn("opus_strerror", ctypes.c_char_p, ip)
        self.version = fn("opus_get_version_string", ctypes.c_char_p)().decode("ascii", "replace")

    def error(self, what: str, code: int) -> OpusError:
        """An OpusError naming libopus's text for `code`."""
        return OpusError(f"{what}: {self.strerror(code).decode('ascii', 'replace')}")


def library_paths() -> list[str]:
    """Where libopus may be, best first: the copy PyAV's wheel bundles (the very library
    FFmpeg already loaded in this process), then the system's."""
    here = os.path.dirname(av.__file__)
    found = sorted(glob.glob(os.path.join(os.path.dirname(here), "av.libs", "libopus*.so*")))
    found += sorted(glob.glob(os.path.join(here, ".dylibs", "libopus*")))
    system = ctypes.util.find_library("opus")
    if system:
        found.append(system)
    return found


_lib: Libopus | None = None
_checked = False
_forced_logged = False


def libopus() -> Libopus | None:
    """libopus to call directly, or None: use PyAV's and aiortc's codecs.

    The first call loads the library and checks it once per process
    (`self_check`); any failure is logged once and gives None from then on.
    `SUSSURRO_OPUS=pyav` gives None without loading anything.
    """
    global _lib, _checked, _forced_logged
    if os.environ.get(ENV, "").strip().lower() == "pyav":
        if not _forced_logged:
            _forced_logged = True
            log.info("%s=pyav: Opus through PyAV (FFmpeg) and aiortc", ENV)
        return None
    if not _checked:
        _checked = True
        _lib = _load_and_check()
    return _lib


def reset() -> None:
    """Forget the library and the check, so the next use loads and checks again (tests)."""
    global _lib, _checked, _forced_logged, _clone_ok
    _lib, _checked, _forced_logged, _clone_ok = None, False, False, None


_clone_ok: bool | None = None


def clone_works() -> bool:
    """True if a byte copy of a direct encoder goes on exactly as the original, mono and
    stereo (checked once per process): both fed the same speech-like frames after the
    copy, every payload is the same. False without direct libopus."""
    global _clone_ok
    lib = libopus()
    if lib is None:
        return False
    if _clone_ok is None:
        try:
            _clone_ok = all(_clone_matches(lib, ch) for ch in (1, 2))
        except Exception:
            log.exception("Opus: checking encoder copies failed")
            _clone_ok = False
        if not _clone_ok:
            log.warning("Opus: encoder copies differ from their originals; no mix is shared "
                        "by listeners whose streams began apart")
    return _clone_ok


def _clone_matches(lib: Libopus, channels: int) -> bool:
    rng = np.random.default_rng(7)
    t = np.arange(FRAME * 16) / SAMPLE_RATE
    sig = (0.2 * np.sin(2 * np.pi * 210 * t) * (1 + np.sin(2 * np.pi * 3 * t))
           + 0.02 * rng.standard_normal(t.size)).astype(np.float32)
    frames = [np.repeat(sig[i * FRAME:(i + 1) * FRAME], channels) for i in range(16)]
    a = _DirectEncode(lib, OpusSettings(), channels)
    for f in frames[:8]:
        a.encode(f)
    b = a.clone()
    return all(a.encode(f) == b.encode(f) for f in frames[8:])


def _load_and_check() -> Libopus | None:
    reasons = []
    for path in library_paths():
        try:
            lib = Libopus(path)
            problem = self_check(lib)
        except Exception as exc:  # a missing library or symbol, an API change: any error
            problem = f"{type(exc).__name__}: {exc}"
        if problem is None:
            log.info("Opus: %s called directly (%s)", lib.version, path)
            return lib
        reasons.append(f"{path}: {problem}")
    log.warning("Opus: libopus not usable directly (%s); using PyAV's and aiortc's codecs",
                "; ".join(reasons) or "not found")
    return None


def self_check(lib: Libopus) -> str | None:
    """None if `lib` encodes and decodes as FFmpeg's libopus does here, else what differs.

    A 440 Hz tone goes through the direct encoder and PyAV's decoder, and
    through PyAV's encoder and the direct decoder: one payload per frame,
    every sample back, and the tone's level within 1 dB both ways.
    """
    n = 12
    t = np.arange(n * FRAME) / SAMPLE_RATE
    tone = (0.25 * np.sin(2 * np.pi * 440 * t)).astype(np.float32)
    frames = [tone[i * FRAME:(i + 1) * FRAME] for i in range(n)]
    want = 20 * np.log10(0.25 / np.sqrt(2))
    pairs = {"direct encoder": (_DirectEncode(lib, OpusSettings(), 1), _PyavDecode()),
             "direct decoder": (_PyavEncode(OpusSettings(), 1), DirectDecoder(lib))}
    for name, (enc, dec) in pairs.items():
        payloads = [enc.encode(f) for f in frames]
        if not all(payloads):
            return f"{name}: a frame gave no payload"
        out = np.concatenate([dec.decode(p) for p in payloads])
        if len(out) != n * FRAME:
            return f"{name}: {len(out)} samples back of {n * FRAME}"
        level = 20 * np.log10(float(np.sqrt(np.mean(np.square(out[-6 * FRAME:])))) + 1e-12)
        if abs(level - want) > 1.0:
            return f"{name}: tone at {level:.1f} dBFS, sent at {want:.1f}"
    stereo = _DirectEncode(lib, OpusSettings(), 2).encode(np.zeros(2 * FRAME, np.float32))
    if not stereo:
        return "stereo encoder: no payload"
    return None


# ------------------------------------------------------------------------------ codecs


class _DirectEncode:
    """One libopus encoder, set as FFmpeg's libopusenc sets it for the same options."""

    __slots__ = ("_st", "_encode", "_in", "_in_addr", "_out", "_size", "_lib", "_copy",
                 "_channels", "__weakref__")

    def __init__(self, lib: Libopus, s: OpusSettings, channels: int) -> None:
        self._channels = channels
        self._copy = None  # a clone's state lives in this buffer (no destroy needed)
        err = ctypes.c_int(0)
        st = lib.encoder_create(SAMPLE_RATE, channels, APPLICATIONS[s.application_for(channels)],
                                ctypes.byref(err))
        if err.value != OPUS_OK or not st:
            raise lib.error("opus_encoder_create", err.value)
        weakref.finalize(self, lib.encoder_destroy, st)
        self._st = st
        self._lib = lib
        bitrate = s.bitrate_for(channels)
        # FFmpeg: bitrate, complexity, VBR on and unconstrained (libopus's default is
        # constrained), expected loss, in-band FEC; no signal hint, no DTX
        for request, value in ((OPUS_SET_BITRATE, bitrate),
                               (OPUS_SET_COMPLEXITY, s.complexity_for(channels)),
                               (OPUS_SET_VBR, 1), (OPUS_SET_VBR_CONSTRAINT, 0),
                               (OPUS_SET_PACKET_LOSS_PERC, s.packet_loss if s.fec else 0),
                               (OPUS_SET_INBAND_FEC, 1 if s.fec else 0)):
            rc = lib.encoder_ctl(ctypes.c_void_p(st), ctypes.c_int(request), ctypes.c_int(value))
            if rc != OPUS_OK:
                raise lib.error(f"opus_encoder_ctl({request}, {value})", rc)
        self._buffers(lib, channels)

    def _buffers(self, lib: Libopus, channels: int) -> None:
        self._encode = lib.encode_float
        self._size = FRAME * channels
        self._in = np.zeros(self._size, np.float32)
        self._in_addr = self._in.ctypes.data
        self._out = ctypes.create_string_buffer(MAX_PACKET)

    def clone(self) -> _DirectEncode:
        """An encoder in the very same state: libopus keeps an encoder's whole state in
        one position-independent block (offsets, no pointers into itself), so a byte
        copy goes on exactly as the original would (checked by `clone_works`)."""
        c = object.__new__(_DirectEncode)
        c._lib, c._channels = self._lib, self._channels
        size = self._lib.encoder_get_size(self._channels)
        c._copy = ctypes.create_string_buffer(size)
        ctypes.memmove(c._copy, self._st, size)
        c._st = ctypes.addressof(c._copy)
        c._buffers(self._lib, self._channels)
        return c

    def predict(self, on: bool) -> None:
        """Prediction across frames on (the default) or off: off, a frame decodes the
        same whatever the decoder decoded before (intra energy, no pitch pre-filter)."""
        rc = self._lib.encoder_ctl(ctypes.c_void_p(self._st),
                                   ctypes.c_int(OPUS_SET_PREDICTION_DISABLED),
                                   ctypes.c_int(0 if on else 1))
        if rc != OPUS_OK:
            raise self._lib.error("opus_encoder_ctl(PREDICTION_DISABLED)", rc)

    def encode(self, pcm: np.ndarray) -> bytes:
        if pcm.size != self._size:
            raise ValueError(f"an Opus frame is {self._size} samples, not {pcm.size}")
        self._in[:] = pcm.reshape(-1)
        n = self._encode(self._st, self._in_addr, FRAME, self._out, MAX_PACKET)
        if n < 0:
            raise self._lib.error("opus_encode_float", n)
        return ctypes.string_at(self._out, n)


class _PyavEncode:
    """FFmpeg's libopus encoder through PyAV."""

    __slots__ = ("_ctx", "_layout", "_channels", "_pts")

    def __init__(self, s: OpusSettings, channels: int) -> None:
        self._channels = channels
        self._layout = "mono" if channels == 1 else "stereo"
        ctx = av.CodecContext.create("libopus", "w")
        ctx.sample_rate = SAMPLE_RATE
        ctx.layout = self._layout
        ctx.format = "flt"
        ctx.bit_rate = s.bitrate_for(channels)
        ctx.time_base = TIME_BASE
        ctx.options = {
            "application": s.application_for(channels),
            "compression_level": str(s.complexity_for(channels)),
            "fec": "1" if s.fec else "0",
            "packet_loss": str(s.packet_loss if s.fec else 0),
            "frame_duration": "20",
        }
        ctx.open()
        self._ctx = ctx
        self._pts = 0

    def encode(self, pcm: np.ndarray) -> bytes:
        x = np.ascontiguousarray(pcm, dtype=np.float32).reshape(1, -1)
        frame = av.AudioFrame.from_ndarray(x, format="flt", layout=self._layout)
        frame.sample_rate = SAMPLE_RATE
        frame.pts = self._pts
        frame.time_base = TIME_BASE
        self._pts += x.shape[1] // self._channels
        packets = self._ctx.encode(frame)
        return b"".join(bytes(p) for p in packets)


class OpusEncoder:
    """Streaming Opus encoder: one float32 frame of 960 samples (mono) or 960 x 2
    (stereo, interleaved) in, one payload out.

    libopus called directly where `libopus()` allows it, else PyAV's encoder;
    `direct` says which.
    """

    def __init__(self, settings: OpusSettings | None = None, channels: int = 1) -> None:
        s = settings or OpusSettings()
        if channels not in (1, 2):
            raise ValueError("channels: 1 or 2")
        self.channels = channels
        self.frames = 0
        lib = libopus()
        self._codec: _DirectEncode | _PyavEncode
        self._codec = _DirectEncode(lib, s, channels) if lib else _PyavEncode(s, channels)
        self.direct = lib is not None

    @staticmethod
    def sharing_possible() -> bool:
        """True if encoders made now can be cloned (direct libopus, copies checked)."""
        return clone_works()  # False without direct libopus

    @property
    def can_clone(self) -> bool:
        """True if `clone` works here (libopus called directly and its copy checked)."""
        return self.direct and clone_works()

    def clone(self) -> OpusEncoder:
        """A second encoder in this one's exact state: fed the same frames, both give the
        same payloads. Only where `can_clone`; RuntimeError otherwise."""
        if not self.can_clone:
            raise RuntimeError("this Opus encoder cannot be cloned (PyAV's codec)")
        c = object.__new__(OpusEncoder)
        c.channels, c.frames, c.direct = self.channels, self.frames, True
        c._codec = self._codec.clone()
        return c

    def predict(self, on: bool) -> None:
        """Prediction across frames on (default) or off (direct libopus only; no-op on
        PyAV's codec, which cannot set it)."""
        if self.direct:
            self._codec.predict(on)

    def encode(self, pcm: np.ndarray) -> bytes:
        """Encode one 20 ms frame (float32, 960 samples or 960 x 2, [-1, 1]) and return the
        Opus payload.

        Both paths return exactly one packet per 20 ms frame, at once (libopus's
        look-ahead only delays the audio inside the stream, by 6.5 ms, not the
        packets); an empty result (never seen in practice) is reported as b""
        and the caller skips it.
        """
        self.frames += 1
        return self._codec.encode(pcm)


class DirectDecoder:
    """A mono libopus decoder called directly: float32 samples at 48 kHz, soft-clipped
    into [-1, 1] as libopus's own 16-bit decode (what FFmpeg and aiortc use) does.

    `decode` raises OpusError for a payload libopus refuses; its state is kept.
    """

    __slots__ = ("_st", "_decode", "_clip", "_buf", "_addr", "_mem", "_lib", "__weakref__")

    def __init__(self, lib: Libopus) -> None:
        err = ctypes.c_int(0)
        st = lib.decoder_create(SAMPLE_RATE, 1, ctypes.byref(err))
        if err.value != OPUS_OK or not st:
            raise lib.error("opus_decoder_create", err.value)
        weakref.finalize(self, lib.decoder_destroy, st)
        self._st = st
        self._lib = lib
        self._decode = lib.decode_float
        self._clip = lib.soft_clip
        self._buf = np.zeros(MAX_SAMPLES, np.float32)
        self._addr = self._buf.ctypes.data
        self._mem = (ctypes.c_float * 2)()

    def decode(self, payload: bytes) -> np.ndarray:
        """Decode one payload (not empty: libopus takes that for a lost packet) into a new
        float32 array of as many samples as the packet holds."""
        if type(payload) is not bytes:  # ctypes passes bytes without a copy, and only bytes
            payload = bytes(payload)
        n = self._decode(self._st, payload, len(payload), self._addr, MAX_SAMPLES, 0)
        if n < 0:
            raise self._lib.error("opus_decode_float", n)
        self._clip(self._addr, n, 1, self._mem)
        return self._buf[:n].copy()

    def samples_of(self, payload: bytes) -> int:
        """How many samples (at 48 kHz) `payload` holds; FRAME where libopus cannot tell."""
        n = self._lib.packet_samples(bytes(payload), len(payload), SAMPLE_RATE)
        return n if 0 < n <= MAX_SAMPLES else FRAME

    def carries_fec(self, payload: bytes) -> bool:
        """True if `payload` carries in-band FEC (an LBRR copy of the frame before it);
        False if not, or if this libopus cannot tell (before 1.5)."""
        has = self._lib.has_lbrr
        return has is not None and has(bytes(payload), len(payload)) == 1

    def recover(self, payload: bytes | None, samples: int = FRAME) -> np.ndarray:
        """`samples` of the packet lost just before `payload`: rebuilt from the in-band FEC
        (SILK's LBRR) that `payload` carries, or, where it carries none (a CELT packet, FEC
        off, or `payload` None: nothing after the loss has come yet), libopus's own
        concealment, which continues the voice from what was decoded last. The decoder's
        state moves on by `samples`, as if the lost packet had been decoded."""
        if payload is not None and type(payload) is not bytes:
            payload = bytes(payload)
        samples = min(samples, MAX_SAMPLES)
        if payload:
            n = self._decode(self._st, payload, len(payload), self._addr, samples, 1)
        else:
            n = self._decode(self._st, None, 0, self._addr, samples, 0)
        if n < 0:
            raise self._lib.error("opus_decode_float (recover)", n)
        self._clip(self._addr, n, 1, self._mem)
        return self._buf[:n].copy()


def direct_decoder() -> DirectDecoder | None:
    """A DirectDecoder where `libopus()` allows it, else None."""
    lib = libopus()
    return DirectDecoder(lib) if lib is not None else None


class _PyavDecode:
    """FFmpeg's libopus decoder through PyAV (16-bit mono)."""

    __slots__ = ("_ctx",)

    def __init__(self) -> None:
        ctx = av.CodecContext.create("libopus", "r")
        ctx.sample_rate = SAMPLE_RATE
        ctx.layout = "mono"
        self._ctx = ctx

    def decode(self, payload: bytes) -> np.ndarray:
        try:
            out = [frame_to_mono(f) for f in self._ctx.decode(av.Packet(payload))]
        except av.FFmpegError as exc:
            raise OpusError(f"libopus (FFmpeg): {exc}") from None
        return np.concatenate(out) if out else np.zeros(0, np.float32)


class OpusDecoder:
    """Mono float32 decoder, used by tests and bots to read payloads back.

    libopus called directly where `libopus()` allows it, else PyAV's decoder;
    `direct` says which.
    """

    def __init__(self) -> None:
        lib = libopus()
        self._codec: DirectDecoder | _PyavDecode
        self._codec = DirectDecoder(lib) if lib is not None else _PyavDecode()
        self.direct = lib is not None

    def decode(self, payload: bytes) -> np.ndarray:
        """Decode one payload to float32 mono samples; OpusError if it is not Opus.

        An empty payload decodes to no samples (FFmpeg would take it for the
        end of the stream and refuse every later packet; libopus for a loss).
        """
        if not payload:
            return np.zeros(0, np.float32)
        return self._codec.decode(payload)


def make_packet(payload: bytes, pts: int) -> av.Packet:
    """An `av.Packet` aiortc's sender packetises as is: RTP timestamp from pts in 1/48000."""
    packet = av.Packet(payload)
    packet.pts = pts
    packet.time_base = TIME_BASE
    return packet


_SCALE = {"s16": 1 / 32768.0, "s16p": 1 / 32768.0, "s32": 1 / 2147483648.0,
          "s32p": 1 / 2147483648.0, "flt": 1.0, "fltp": 1.0, "dbl": 1.0, "dblp": 1.0}


def frame_to_mono(frame: av.AudioFrame) -> np.ndarray:
    """Any decoded audio frame (aiortc gives s16 packed stereo) -> float32 mono.

    Does not resample: the caller checks `frame.sample_rate` (Opus always
    decodes at 48 kHz here because the answer only accepts Opus).
    """
    channels = len(frame.layout.channels)
    if frame.format.name == "s16" and channels <= 2:
        # aiortc's case, read straight from the buffer (8x cheaper than to_ndarray)
        a = np.frombuffer(frame.planes[0], dtype=np.int16, count=frame.samples * channels)
        if channels == 1:
            return a.astype(np.float32) * np.float32(1 / 32768)
        return (a[0::2].astype(np.float32) + a[1::2]) * np.float32(0.5 / 32768)
    arr = frame.to_ndarray()
    if frame.format.is_planar:
        mono = arr.mean(axis=0) if channels > 1 else arr[0]
    else:
        flat = arr.reshape(-1)
        mono = flat.reshape(-1, channels).mean(axis=1) if channels > 1 else flat
    return (mono * _SCALE.get(frame.format.name, 1.0)).astype(np.float32, copy=False)
