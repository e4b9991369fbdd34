"""Issue 13: which clients take stereo (the offer's Opus fmtp), what the answer says,
and the stereo encoder."""

import numpy as np

from client.rtc_peer import frame_to_stereo, with_stereo
from server.media.opus import OpusEncoder
from server.media.rtc import ask_for_dtx, offers_stereo

OFFER = "\r\n".join([
    "v=0", "m=audio 9 UDP/TLS/RTP/SAVPF 111 0", "a=rtpmap:111 opus/48000/2",
    "a=fmtp:111 minptime=10;useinbandfec=1", "a=rtpmap:0 PCMU/8000", ""])


def test_stereo_is_what_the_offers_opus_fmtp_says():
    assert not offers_stereo(OFFER)
    assert offers_stereo(OFFER.replace("useinbandfec=1", "useinbandfec=1;stereo=1"))
    assert offers_stereo(OFFER.replace("useinbandfec=1", "stereo=1; useinbandfec=1"))
    assert not offers_stereo(OFFER.replace("useinbandfec=1", "stereo=0"))
    # stereo=1 on a payload type that is not Opus says nothing
    assert not offers_stereo(OFFER + "a=fmtp:0 stereo=1\r\n")
    assert offers_stereo(with_stereo(OFFER))
    no_fmtp = "\r\n".join(ln for ln in OFFER.split("\r\n") if not ln.startswith("a=fmtp"))
    assert offers_stereo(with_stereo(no_fmtp))


def test_the_answer_says_the_server_may_send_stereo_but_never_asks_the_mic_for_it():
    answer = "\r\n".join(["v=0", "m=audio 9 UDP/TLS/RTP/SAVPF 111", "a=rtpmap:111 opus/48000/2", ""])
    mono = ask_for_dtx(answer)
    assert ("a=fmtp:111 minptime=10;useinbandfec=1;usedtx=1;maxaveragebitrate=64000\r\n"
            in mono and "stereo" not in mono)
    stereo = ask_for_dtx(answer, stereo=True)
    assert "sprop-stereo=1" in stereo
    assert ";stereo=1" not in stereo and " stereo=1" not in stereo


def test_the_stereo_encoder_keeps_the_channels_apart():
    import av

    enc = OpusEncoder(channels=2)
    t = np.arange(960 * 50) / 48000
    left = 0.5 * np.sin(2 * np.pi * 700 * t)
    payloads = [enc.encode(np.stack([left[i:i + 960], 0.05 * left[i:i + 960]], axis=1))
                for i in range(0, len(t), 960)]
    dec = av.CodecContext.create("libopus", "r")
    dec.sample_rate = 48000
    dec.layout = "stereo"
    frames = [frame_to_stereo(f) for p in payloads for f in dec.decode(av.Packet(p))]
    x = np.concatenate(frames)[-48000 // 2:]
    ratio = np.sqrt(np.mean(x[:, 0] ** 2) / np.mean(x[:, 1] ** 2))
    assert 20 * np.log10(ratio) > 17  # 20 dB apart in, about that out
