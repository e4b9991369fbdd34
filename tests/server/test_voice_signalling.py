"""Voice through the server: WebRTC offers over the socket, mouths, metrics (real aiortc)."""

from __future__ import annotations

import asyncio
import re
import time

import httpx
import numpy as np
import pytest

from client.rtc_peer import Silence, Tone, VoicePeer
from tests.server.roomkit import close_all, seated

pytestmark = [pytest.mark.slow, pytest.mark.timeout(120)]


def _rms(x) -> float:
    return float(np.sqrt(np.mean(np.square(x)))) if len(x) else 0.0


def _signal(client):
    async def signal(offer: str) -> str:
        mark = client.mark()
        await client.send("rtc_offer", sdp=offer)
        msg = await client.wait_for(lambda m: m["type"] in ("rtc_answer", "error"), 20,
                                    since=mark)
        assert msg["type"] == "rtc_answer", msg
        # SUSSURRO_RTC_ADDRESSES=127.0.0.1 (tests/support): the server offers loopback only.
        candidates = [ln for ln in msg["sdp"].splitlines() if ln.startswith("a=candidate:")]
        assert candidates and all(" 127.0.0.1 " in ln for ln in candidates), candidates
        return msg["sdp"]
    return signal


async def test_offers_are_answered_and_a_speaker_mouth_moves_for_everyone(server):
    clients = await seated(server, 3)
    ada, bob, cy = clients
    peers = {ada.player: VoicePeer(Tone(440.0)), bob.player: VoicePeer(Silence())}
    try:
        await peers[ada.player].connect(_signal(ada))
        await peers[bob.player].connect(_signal(bob))
        # Cy has no voice but still sees Ada's mouth move (lobby: everyone is public).
        moving = await cy.wait_for(
            lambda m: m["type"] == "mouths" and m["levels"].get(ada.player, 0) > 0.05, 20)
        assert moving["levels"].get(bob.player, 0) < moving["levels"][ada.player]
        # In the lobby everyone is public: Bob hears Ada's tone (and Ada not herself).
        since = time.monotonic()
        # Two seconds of audio. (Not counted in mouth messages: a steady tone becomes
        # the meter's background within 1.5 s, and all-quiet mouths are sent only once.)
        await asyncio.sleep(2.0)
        heard = peers[bob.player].recorder.audio(since)
        own = peers[ada.player].recorder.audio(since)
        assert len(heard) > 24000 and _rms(heard[-24000:]) > 0.02, _rms(heard)
        assert _rms(own[-24000:]) < _rms(heard[-24000:]) / 10
        metrics = httpx.get(server.url("/metrics")).text
        assert re.search(r"^sussurro_peers 2$", metrics, re.M), metrics
        assert re.search(r"^sussurro_voice_rooms 1$", metrics, re.M)
        # Ada's tone was decoded and Bob's mix encoded, both in libopus: their CPU time counts.
        for name in ("sussurro_opus_decodes_total", "sussurro_opus_decode_cpu_seconds_total",
                     "sussurro_opus_encode_cpu_seconds_total"):
            found = re.search(rf"^{name} (\S+)$", metrics, re.M)
            assert found and float(found.group(1)) > 0, (name, metrics)
        # A hostile offer is refused with the voice layer's code; the other peers stay.
        mark = cy.mark()
        await cy.send("rtc_offer", sdp="v=0\r\nnonsense", ref="o1")
        err = await cy.wait_for(lambda m: m["type"] == "error", 20, since=mark)
        assert err["ref"] == "o1" and err["code"] not in ("internal", "voice_unavailable")
        assert re.search(r"^sussurro_peers 2$", httpx.get(server.url("/metrics")).text, re.M)
        # A socket that closes drops its peer.
        await bob.close()
        for _ in range(50):
            if re.search(r"^sussurro_peers 1$", httpx.get(server.url("/metrics")).text, re.M):
                break
            await cy.wait_for(lambda m: m["type"] == "mouths", 5, since=cy.mark())
        assert re.search(r"^sussurro_peers 1$", httpx.get(server.url("/metrics")).text, re.M)
    finally:
        for p in peers.values():
            await p.close()
        await close_all(clients)
