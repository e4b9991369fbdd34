"""Issue 8, ICE: what a client can make the server send STUN checks to is bounded. A
candidate on the server's loopback is ignored unless the server allows it (the tests'
servers do), an offer may name at most `rtc_max_candidates` candidates, and a seat may
make `rtc_offers_per_minute` offers. Checked with a real server and a UDP socket playing
a local service the client points the server at."""

from __future__ import annotations

import asyncio
import re
import socket

import httpx
import pytest

from client.bot import Bot
from client.rtc_peer import VoicePeer
from server.media.rtc import VoiceError
from tests.support.server_proc import ServerProc

pytestmark = [pytest.mark.slow, pytest.mark.timeout(120)]


def metric(base_url: str, name: str) -> float:
    text = httpx.get(base_url + "/metrics", timeout=5).text
    return float(re.search(rf"^{name} (\S+)$", text, re.M).group(1))


async def checks_received(srv: ServerProc, extra_candidates: int = 1) -> int:
    """Offer with a candidate pointing at a local UDP 'service'; the STUN packets it gets."""
    service = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    service.bind(("127.0.0.1", 0))
    service.setblocking(False)
    port = service.getsockname()[1]
    bot = await Bot.create(srv.base_url, "Ada")
    peer = VoicePeer()
    try:
        offer = await peer.make_offer()
        lines = "".join(f"a=candidate:9{i} 1 udp 2130706431 127.0.0.1 {port} typ host\r\n"
                        for i in range(extra_candidates))
        offer = offer.replace("a=end-of-candidates", lines + "a=end-of-candidates") \
            if "a=end-of-candidates" in offer else offer + lines
        await bot._signal(offer)  # answered: the offer itself is fine
        await asyncio.sleep(2.5)  # ICE checks start at once, paced every 20 ms
        got = 0
        while True:
            try:
                data = service.recv(2048)
            except BlockingIOError:
                break
            got += data[:2] == b"\x00\x01"  # a STUN Binding request
        return got
    finally:
        await peer.close()
        await bot.close()
        service.close()


async def test_loopback_candidates_are_not_checked_unless_the_server_allows_them(tmp_path):
    strict = {"SUSSURRO_RTC_ALLOW_LOCAL_CANDIDATES": "0"}
    with ServerProc(tmp_path / "strict.db", env=strict) as srv:
        assert await checks_received(srv) == 0
        # The offer's own loopback candidate and the one added: both ignored, and counted.
        assert metric(srv.base_url, "sussurro_ice_candidates_refused_total") >= 2
    with ServerProc(tmp_path / "relaxed.db") as srv:  # the tests' setting: allowed
        assert await checks_received(srv) > 0


async def test_candidates_per_offer_and_offers_per_minute_are_capped(tmp_path):
    env = {"SUSSURRO_RTC_MAX_CANDIDATES": "4", "SUSSURRO_RTC_OFFERS_PER_MINUTE": "3"}
    with ServerProc(tmp_path / "caps.db", env=env) as srv:
        bot = await Bot.create(srv.base_url, "Ada")
        peer = VoicePeer()
        try:
            offer = await peer.make_offer()
            many = offer + "".join(f"a=candidate:8{i} 1 udp 2130706431 10.0.0.{i} 5000 typ host"
                                   "\r\n" for i in range(5))
            with pytest.raises(VoiceError) as err:
                await bot._signal(many)
            assert err.value.code == "too_many_candidates"
            for _ in range(2):  # the seat's other two offers of the minute
                with pytest.raises(VoiceError) as err:
                    await bot._signal("x")
                assert err.value.code == "bad_sdp"
            with pytest.raises(VoiceError) as err:
                await bot._signal(offer)  # even a good one, now
            assert err.value.code == "rate_limited"
        finally:
            await peer.close()
            await bot.close()
