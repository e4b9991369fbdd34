"""Issue 36, a clean link: what coding the mix again costs the voice (the tandem).

Through a room a player's voice is coded twice: by their browser (Opus "voip" at the
64 kb/s the server's answer asks, in-band FEC: `BROWSER_MIC`), then, decoded and mixed,
by the server for each listener (`OpusSettings`: CELT at 80 kb/s). A direct call codes it
once. Each generation adds its noise, and the second one was most of what kept a clean
room ~0.25 PESQ-WB behind a direct call in bench/voice_quality.py: at 64 kb/s and
complexity 5 the mix's encoder cost the mic's speech 0.25-0.27 PESQ-WB, at complexity 8
0.10-0.15, at 80 kb/s and 8 0.03 (bench/README.md, "The mix's complexity and bitrate").

Here espeak-ng's sentences in the three languages go through the real codecs (libopus)
and the real mixer, as one listener hears one speaker, and are scored against the
speaker's own coding.
"""

from __future__ import annotations

import numpy as np
import pytest

from audio import FRAME, RoomMixer, Routing
from server.media.opus import BROWSER_MIC, OpusDecoder, OpusEncoder, OpusSettings

# The mean cost of the mix's coding, PESQ-WB points below the mic's own: 0.27 at 64 kb/s
# and complexity 5, 0.09 at 64 kb/s and complexity 8 (both refused), 0.03 at 80 kb/s and 8.
TANDEM_COST_MAX = 0.07


def _code(x: np.ndarray, settings: OpusSettings) -> np.ndarray:
    enc, dec = OpusEncoder(settings, 1), OpusDecoder()
    return np.concatenate([dec.decode(enc.encode(x[i:i + FRAME])) for i in range(0, len(x), FRAME)])


def _through_the_mixer(x: np.ndarray) -> np.ndarray:
    """What listener "b" hears of speaker "a" alone in a public debate: the room's mixer
    (gain ramps, limiter) tick by tick."""
    m = RoomMixer()
    for p in ("a", "b"):
        m.add_player(p)
    m.set_routing(Routing(public=frozenset({"a", "b"}), whisper={}, whispering={}))
    out = []
    for i in range(0, len(x), FRAME):
        m.push("a", np.ascontiguousarray(x[i:i + FRAME], dtype=np.float32))
        out.append(np.asarray(m.tick().mixes["b"], dtype=np.float32).reshape(-1))
    return np.concatenate(out)


def test_the_mix_coded_again_stays_close_to_the_speakers_own_coding():
    from bench.opus_quality import aligned, padded, pesq_wb, sentences_or_why

    voices = sentences_or_why()
    if isinstance(voices, str):
        pytest.skip(voices)
    costs = []
    for x in voices[0]:
        mic = _code(padded(x), BROWSER_MIC)
        heard = _code(_through_the_mixer(mic), OpusSettings())
        # each aligned to the voice: the codecs' look-ahead delays it a few ms
        own, room = pesq_wb(x, aligned(mic, x)), pesq_wb(x, aligned(heard, x))
        assert own > 3.9, own  # the harness: a 64 kb/s voice scores ~4.2
        costs.append(own - room)
    assert float(np.mean(costs)) <= TANDEM_COST_MAX, [round(c, 3) for c in costs]


def test_the_silk_setting_and_the_stereo_mix_keep_their_cheaper_complexity():
    # For links short of bandwidth (`voice_codec` "silk"): at 32 kb/s SILK's hybrid mode
    # doubles its encode from 5 to 8 (bench/ROOM.md "Opus complexity"); the stereo mix's
    # encode costs 2.7 times as much at 8 for +0.07 (opus.py, `stereo_complexity`).
    assert OpusSettings.for_codec("silk").complexity_for(1) == 5
    assert OpusSettings.for_codec("celt").complexity_for(1) == OpusSettings().complexity == 8
    assert OpusSettings().complexity_for(2) == OpusSettings.for_codec("silk").complexity_for(2) == 5
