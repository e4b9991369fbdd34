"""Issue 8, "one refused rtc_offer starts the room's 20 ms voice loop": a refused offer
builds nothing, the loop runs only while a peer is connected, and it starts again (with
audio flowing) on the next offer. Read from a real server's /metrics, heard through real
WebRTC."""

from __future__ import annotations

import asyncio
import re

import httpx
import pytest

from client.rtc_peer import Tone
from server.media.rtc import VoiceError
from tests.e2e.bots import close_all, open_bot_room
from tests.e2e.voice_room import TONES, levels, record_all

pytestmark = [pytest.mark.slow, pytest.mark.timeout(120)]

PRESENT = -30.0


def metric(base_url: str, name: str) -> float:
    text = httpx.get(base_url + "/metrics", timeout=5).text
    m = re.search(rf"^{name} ([0-9.e+-]+)$", text, re.M)
    return float(m.group(1)) if m else 0.0


async def until_metric(base_url: str, name: str, value: float, timeout: float = 15.0) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while (now := await asyncio.to_thread(metric, base_url, name)) != value:
        assert loop.time() < end, (name, now, value)
        await asyncio.sleep(0.2)


async def test_refused_offers_start_nothing_and_the_loop_runs_only_while_someone_listens(server):
    url = server.base_url
    a, b = await open_bot_room(url, [Tone(TONES[1]), Tone(TONES[2])], voice=False)
    try:
        for _ in range(3):
            with pytest.raises(VoiceError) as err:
                await a._signal("x")
            assert err.value.code == "bad_sdp"
        assert metric(url, "sussurro_voice_rooms") == 0  # no voice was even built
        assert metric(url, "sussurro_voice_loops") == 0

        await asyncio.gather(a.start_voice(), b.start_voice())
        assert metric(url, "sussurro_voice_loops") == 1
        rec = await record_all({b.pid: b}, 0.5)
        assert levels(rec, TONES[1])[b.pid] > PRESENT

        # The last peer goes (closed from the client's side): the loop stops.
        await asyncio.gather(a.stop_voice(), b.stop_voice())
        await until_metric(url, "sussurro_voice_loops", 0)
        starts = metric(url, "sussurro_voice_loop_starts")

        # The next offer starts it again, and audio flows.
        await asyncio.gather(a.start_voice(), b.start_voice())
        assert metric(url, "sussurro_voice_loops") == 1
        assert metric(url, "sussurro_voice_loop_starts") == starts + 1
        rec = await record_all({a.pid: a, b.pid: b}, 0.5)
        assert levels(rec, TONES[1])[b.pid] > PRESENT
        assert levels(rec, TONES[2])[a.pid] > PRESENT

        # Sockets closing drop their peers: the loop stops too.
        await asyncio.gather(a.client.close(), b.client.close())
        await until_metric(url, "sussurro_voice_loops", 0)
    finally:
        await close_all([a, b])
