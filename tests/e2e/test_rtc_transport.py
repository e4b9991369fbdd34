"""The WebRTC transport alone (server/media/rtc.py, client/rtc_peer.py), real aiortc over the host.

No mixer here: the server side of the peer is driven directly, so these
checks hold whatever the mixer does.
"""

from __future__ import annotations

import asyncio
import os
import random
import re
import struct

import numpy as np
import pytest

from client.rtc_peer import Tone, VoicePeer
from server.media import fastrtp, opus, rtcp, rtp_in, srtp
from server.media.opus import OpusDecoder, OpusEncoder
from server.media.rtc import VoiceError, open_peer, validate_offer
from tests.e2e.spectrum import steady, tone_db
from tests.support.mix_tone import push_tone

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def rtcp_every_second():
    """aiortc's RTCP reports at its own pace (every 0.5-1.5 s, not every 2.5-7.5 s as the
    server spaces them; tests/server/test_rtcp_pace.py), for tests that wait for one."""
    rtcp.pace(1.0)  # or aiortc's own pace, where pace() refuses: 1 s too
    yield
    rtcp.pace(rtcp.interval_from_env())


async def _offer() -> tuple[VoicePeer, str]:
    peer = VoicePeer(Tone(440))
    return peer, await peer.make_offer()


def test_opus_round_trip_keeps_a_tone():
    enc, dec = OpusEncoder(), OpusDecoder()
    t = np.arange(48000 * 2) / 48000
    x = (0.3 * np.sin(2 * np.pi * 1000 * t)).astype(np.float32)
    out = np.concatenate([dec.decode(enc.encode(x[i : i + 960])) for i in range(0, len(x), 960)])
    assert len(out) == len(x)
    seg = out[-24000:]
    assert tone_db(seg, 1000) > -14  # 0.3 ~ -10.5 dBFS
    assert tone_db(seg, 3000) < tone_db(seg, 1000) - 50


@pytest.mark.slow
@pytest.mark.parametrize("codec", ["direct", "pyav"])
async def test_tone_goes_up_and_mix_comes_down(codec, monkeypatch):
    """Issue 15: libopus is called directly (server/media/opus.py) for the mic decoder and the
    mix encoder; with SUSSURRO_OPUS=pyav (the fallback, forced here) PyAV's encoder and
    aiortc's decoder carry the same audio."""
    monkeypatch.setenv(opus.ENV, codec)
    opus.reset()
    got: list[np.ndarray] = []
    client, offer = await _offer()
    peer, answer = await open_peer("p1", offer, ice_servers=None, on_pcm=lambda pid, pcm, ts: got.append(pcm))
    try:
        decoder = peer.pc.getTransceivers()[0].receiver._RTCRtpReceiver__jitter_buffer
        assert (decoder._direct is not None) is (codec == "direct")
        assert "opus/48000" in answer and "usedtx=1" in answer
        await client.accept_answer(answer)
        await asyncio.wait_for(client.connected.wait(), 15)
        enc = OpusEncoder()
        await push_tone(peer, 100, enc=enc)
        await asyncio.sleep(0.2)
        up = np.concatenate(got)
        down = client.recorder.audio()
        assert tone_db(steady(up, 0.5), 440) > -16
        assert tone_db(steady(down, 0.5), 880) > -16
        assert tone_db(steady(down, 0.5), 440) < -70  # the server only sent 880 Hz
        assert enc.direct is (codec == "direct") and decoder.errors == 0
    finally:
        await client.close()
        await peer.close()
        opus.reset()


def _stats(report, kind: str) -> list:
    return [s for s in report.values() if s.type == kind]


def _forge_srtp(client: VoicePeer, offer: str) -> None:
    """Send the server one packet of the client's stream that does not authenticate
    (right SSRC and payload type, random bytes for the encrypted payload and tag)."""
    transceiver = client.pc.getTransceivers()[0]
    pt = int(re.search(r"a=rtpmap:(\d+) opus/48000", offer).group(1))
    header = struct.pack("!BBHLL", 0x80, pt, 40000, 123456, transceiver.sender._ssrc)
    pair = transceiver.sender.transport.transport._connection._nominated[1]
    pair.protocol.transport.sendto(header + os.urandom(40), pair.remote_addr)


@pytest.mark.slow
@pytest.mark.parametrize("path", ["compiled", "python", "aiortc"])
async def test_mic_packets_arrive_through_the_direct_path_or_aiortcs_alike(path, monkeypatch,
                                                                          rtcp_every_second):
    """Issue 15 (server CPU): mic packets skip aiortc's receive task (server/media/rtp_in.py) and
    SRTP skips pylibsrtp's wrapper (server/media/srtp.py) where aiortc and pylibsrtp are as
    those modules expect, and are taken in C (server/media/_fastrtp.c, a Receiver) where it is
    built; with SUSSURRO_NATIVE_RTP=0 in Python, and where aiortc is not as expected
    (forced here) aiortc's own paths carry the audio. Either way the tone goes up and
    down intact, a forged packet is dropped, and RTCP still works both ways (the
    server's receiver reports come from the statistics the direct paths keep; the
    client's sender reports reach aiortc)."""
    direct = path != "aiortc"
    if path == "compiled":
        assert pytest.importorskip("server.media._fastrtp").Receiver
    else:
        monkeypatch.setenv("SUSSURRO_NATIVE_RTP", "0")
    monkeypatch.setattr(fastrtp, "_checked", None)
    monkeypatch.setattr(fastrtp, "_rx_checked", None)
    if not direct:
        monkeypatch.setattr(rtp_in, "_RECEIVER_PRIVATES",
                            (*rtp_in._RECEIVER_PRIVATES, "_RTCRtpReceiver__not_in_aiortc"))
        monkeypatch.setattr(srtp, "_checked", False)
    got: list[tuple] = []
    client, offer = await _offer()
    peer, answer = await open_peer("p1", offer, ice_servers=None,
                                   on_pcm=lambda pid, pcm, ts: got.append((pcm, ts)))
    try:
        assert (peer.rtp_in is not None) is direct
        await client.accept_answer(answer)
        await asyncio.wait_for(client.connected.wait(), 15)

        def each(n: int) -> None:
            if n == 60:
                if direct:  # the compiled Receiver took over after the stream's first packet
                    assert (peer.rtp_in.native is not None) is (path == "compiled")
                _forge_srtp(client, offer)

        await push_tone(peer, 125, each=each)
        await asyncio.sleep(0.2)
        assert (peer.track._direct._srtp is not None) is direct
        up, down = np.concatenate([pcm for pcm, _ in got]), client.recorder.audio()
        assert tone_db(steady(up, 0.5), 440) > -16
        assert tone_db(steady(down, 0.5), 880) > -16
        times = [ts for _, ts in got]
        assert times == sorted(times) and len(set(times)) == len(times)  # none late, none twice
        if direct:
            assert peer.rtp_in.refused == 1
            assert peer.rtp_in.taken >= len(got) - 5 > 100
            peer.rtp_in.push()  # what the next SYNC_EVERY packets would hand aiortc
        # RTCP, sent every 0.5-1.5 s: give it up to 3 s more
        for _ in range(30):
            server_side, client_side = await peer.pc.getStats(), await client.pc.getStats()
            if _stats(server_side, "remote-outbound-rtp") and _stats(client_side, "remote-inbound-rtp"):
                break
            await asyncio.sleep(0.1)
        (inbound,) = _stats(server_side, "inbound-rtp")
        assert inbound.packetsReceived >= len(got) - 5
        assert _stats(server_side, "remote-outbound-rtp")  # the client's sender report
        (report,) = _stats(client_side, "remote-inbound-rtp")  # the server's receiver report
        assert report.packetsReceived > 50 and report.packetsLost == 0
    finally:
        await client.close()
        await peer.close()


@pytest.mark.slow
@pytest.mark.parametrize("native", [True, False], ids=["compiled", "python"])
async def test_mix_packets_leave_through_the_compiled_sender_or_pythons_alike(
        native, monkeypatch, rtcp_every_second):
    """Issue 15 (server CPU): once the connection is up, the listener's packets are sent by
    server/media/_fastrtp.c (header, SRTP, sendto in one call) where it is built, by DirectRtp's
    Python otherwise (forced here). Either way the tone arrives intact with no packet lost
    or out of order, and the server's sender reports carry the counts the compiled sender
    hands back. Midway the compiled sender's path is made to look changed: the Python path
    takes over at the next sequence number, and a new compiled sender later."""
    if native:
        fast_rtp_built = pytest.importorskip("server.media._fastrtp")
        assert fast_rtp_built.Sender
    else:
        monkeypatch.setenv("SUSSURRO_NATIVE_RTP", "0")
    monkeypatch.setattr(fastrtp, "_checked", None)
    client, offer = await _offer()
    peer, answer = await open_peer("p1", offer, ice_servers=None, on_pcm=lambda *a: None)
    natives: list[bool] = []
    try:
        await client.accept_answer(answer)
        await asyncio.wait_for(client.connected.wait(), 15)

        def each(n: int) -> None:
            natives.append(peer.track.native)
            if n == 60 and native:
                assert peer.track.native
                peer.track._direct._native_pair = object()  # as if ICE had moved to another pair

        await push_tone(peer, 150, each=each)
        await asyncio.sleep(0.3)
        peer.track._sync()  # what a sync SYNC_EVERY ticks later would hand aiortc
        if native:
            # handed over after a tick or two, back to Python at the first sync after
            # tick 60, then a new compiled sender SYNC_EVERY ticks later
            assert natives[5] and not natives[95] and natives[-1]
        else:
            assert not any(natives) and peer.track._direct._srtp is not None
        down = client.recorder.audio()
        assert tone_db(steady(down, 0.5), 880) > -16
        for _ in range(40):  # RTCP, sent every 0.5-1.5 s
            client_side, server_side = await client.pc.getStats(), await peer.pc.getStats()
            remote = _stats(client_side, "remote-outbound-rtp")  # the server's sender report
            if remote and remote[0].packetsSent >= 140 and _stats(server_side, "remote-inbound-rtp"):
                break
            await asyncio.sleep(0.1)
        (inbound,) = _stats(client_side, "inbound-rtp")
        assert inbound.packetsReceived == 150 and inbound.packetsLost == 0
        (remote,) = _stats(client_side, "remote-outbound-rtp")
        assert 140 <= remote.packetsSent <= 150
        (report,) = _stats(server_side, "remote-inbound-rtp")  # the client's receiver report
        assert report.packetsLost == 0
        (outbound,) = _stats(server_side, "outbound-rtp")
        if not native:
            assert outbound.packetsSent == 150
    finally:
        await client.close()
        await peer.close()
    assert peer.track._direct is None and not peer.track.native  # closed with the peer


async def _refused(sdp) -> str:
    with pytest.raises(VoiceError) as err:
        await open_peer("px", sdp, ice_servers=None, on_pcm=lambda *a: None)
    return err.value.code


async def test_hostile_offers_are_refused_with_a_code():
    client, good = await _offer()
    try:
        lines = good.split("\r\n")
        no_opus = "\r\n".join(
            ln.replace(" 96", " 0") if ln.startswith("m=audio") else ln
            for ln in lines if not ln.startswith("a=rtpmap:96")
        )
        with_video = good + "m=video 9 UDP/TLS/RTP/SAVPF 97\r\na=rtpmap:97 VP8/90000\r\n"
        no_fp = "\r\n".join(ln for ln in lines if not ln.startswith("a=fingerprint"))
        many_cands = good + "".join(
            f"a=candidate:{i} 1 udp 1 10.0.0.{i % 250} {1000 + i} typ host\r\n" for i in range(60)
        )
        cases = {
            "sdp_too_large": ["v=0\r\n" + "a=x:" + "y" * 30000],
            "no_audio": [no_opus, with_video],
            "too_many_candidates": [many_cands],
            "bad_sdp": [
                "", "hello", None, 42, no_fp,
                good.replace("a=setup:actpass", "a=setup:\x00\x01"),
                good.replace("a=rtpmap:96 opus/48000/2", "a=rtpmap:96 opus/48000/2\r\na=candidate:x"),
                good.replace("IN IP4", "IN IP9"),
            ],
        }
        for code, sdps in cases.items():
            for sdp in sdps:
                assert await _refused(sdp) == code, repr(sdp)[:80]
    finally:
        await client.close()


async def test_any_mangled_offer_is_answered_or_refused_never_crashes():
    """Seeded fuzz: lines dropped, duplicated, cut or suffixed with junk bytes."""
    client, good = await _offer()
    lines = good.split("\r\n")
    rng = random.Random(7)
    outcomes: list[str] = []
    try:
        for _ in range(40):
            out = list(lines)
            for _ in range(rng.randint(1, 4)):
                i = rng.randrange(len(out))
                op = rng.choice(["drop", "dup", "cut", "junk"])
                if op == "drop" and len(out) > 1:
                    out.pop(i)
                elif op == "dup":
                    out.insert(i, out[i])
                elif op == "cut":
                    out[i] = out[i][: len(out[i]) // 2]
                else:
                    out[i] += bytes(rng.randrange(256) for _ in range(rng.randint(1, 8))).decode("latin-1")
            try:
                peer, answer = await open_peer("pz", "\r\n".join(out), ice_servers=None,
                                               on_pcm=lambda *a: None)
            except VoiceError as exc:
                outcomes.append(exc.code)
            else:
                outcomes.append("answered")
                assert answer.startswith("v=0")
                await peer.close()
    finally:
        await client.close()
    assert set(outcomes) <= {"answered", "bad_sdp", "no_audio", "sdp_too_large"}
    assert "bad_sdp" in outcomes and "answered" in outcomes


def test_validate_offer_accepts_a_browser_like_offer():
    sdp = (
        "v=0\r\no=- 46117 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\na=group:BUNDLE 0\r\n"
        "a=extmap-allow-mixed\r\na=msid-semantic: WMS s\r\n"
        "m=audio 9 UDP/TLS/RTP/SAVPF 111 63 9 0 8 13 110 126\r\nc=IN IP4 0.0.0.0\r\n"
        "a=rtcp:9 IN IP4 0.0.0.0\r\na=ice-ufrag:abcd\r\na=ice-pwd:abcdefghijklmnopqrstuvwx\r\n"
        "a=ice-options:trickle\r\na=fingerprint:sha-256 "
        + ":".join(["AB"] * 32)
        + "\r\na=setup:actpass\r\na=mid:0\r\na=sendrecv\r\na=msid:s t\r\na=rtcp-mux\r\n"
        "a=rtpmap:111 opus/48000/2\r\na=rtcp-fb:111 transport-cc\r\n"
        "a=fmtp:111 minptime=10;useinbandfec=1\r\na=rtpmap:63 red/48000/2\r\n"
        "a=fmtp:63 111/111\r\na=rtpmap:9 G722/8000\r\na=rtpmap:0 PCMU/8000\r\n"
        "a=rtpmap:8 PCMA/8000\r\na=rtpmap:13 CN/8000\r\na=rtpmap:110 telephone-event/48000\r\n"
        "a=rtpmap:126 telephone-event/8000\r\na=ssrc:1 cname:x\r\n"
    )
    validate_offer(sdp)
