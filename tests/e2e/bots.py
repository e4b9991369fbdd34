"""Rooms of bots against a real `sussurro serve` subprocess, for the e2e tests.

A bot is `client.bot.Bot`: the protocol client plus a real WebRTC voice.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
from collections.abc import Callable

import httpx
import numpy as np

from client.autoplay import autoplay
from client.bot import Bot
from client.rtc_peer import Source
from tests.e2e.voice_room import record_all


async def open_bot_room(base_url: str, sources: list[Source], options: dict | None = None,
                        voice: bool = True) -> list[Bot]:
    """A room whose host is bots[0]; every bot seated, connected and (by default) talking."""
    bots = [await Bot.create(base_url, "Bot0", sources[0], preset="intruso")]
    for i, src in enumerate(sources[1:], start=1):
        bots.append(await Bot.join(base_url, bots[0].client.code, f"Bot{i}", src))
    if options is not None:
        mark = bots[0].client.mark()
        await bots[0].client.send("settings", options=options)
        await bots[0].client.wait_for(lambda m: m["type"] == "room", since=mark)
        assert not bots[0].client.errors, bots[0].client.errors
    if voice:
        await asyncio.gather(*(b.start_voice() for b in bots))
    return bots


async def start_game(bots: list[Bot]) -> None:
    """The host starts the game; returns once every bot has a game view."""
    await bots[0].client.send("start")
    await asyncio.gather(*(b.client.wait_view(lambda v: v.get("phase") is not None) for b in bots))


async def drive(bots: list[Bot], until: Callable[[dict], bool], skip: tuple[str, ...] = (),
                rng: random.Random | None = None, timeout: float = 60.0) -> None:
    """Answer every bot's views with `autoplay` (never the `skip` actions) until `until(view)`
    holds for every bot."""
    rng = rng or random.Random(1)
    tried: set[str] = set()
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while True:
        views = [b.client.view for b in bots]
        if all(v is not None and until(v) for v in views):
            return
        if loop.time() > end:
            raise TimeoutError(f"phase now {[v and v.get('phase') for v in views]}")
        for b, v in zip(bots, views, strict=True):
            if v is None:
                continue
            action = autoplay(v, rng)
            if action is None or action["type"] in skip:
                continue
            key = json.dumps([b.pid, v.get("phase"), v.get("round"), v.get("turn"),
                              len(v.get("clues") or []), action["type"]])
            if key not in tried:
                tried.add(key)
                await b.client.act(action)
        await asyncio.sleep(0.05)


def server_glitches(base_url: str) -> int:
    """Jitter-queue holes and overflows, dropped packets, and mic frames concealed or
    packets too late (a late packet is concealed now, not a hole), from /metrics."""
    text = httpx.get(base_url + "/metrics", timeout=5).text
    total = 0.0
    for name in ("sussurro_jitter_underruns_total", "sussurro_jitter_overflows_total",
                 "sussurro_voice_track_drops", "sussurro_mic_frames_concealed_total",
                 "sussurro_mic_packets_late_total"):
        m = re.search(rf"^{name} ([0-9.e+-]+)$", text, re.M)
        total += float(m.group(1)) if m else 0.0
    return int(total)


async def listen(base_url: str, bots: list[Bot], seconds: float, settle: float = 0.6,
                 tries: int = 4) -> dict[str, np.ndarray]:
    """What each bot hears next, keyed by player id: a window free of server-side glitches
    if one comes within `tries` (see voice_room.VoiceRoom.listen for why)."""
    peers = {b.pid: b for b in bots}
    best = None
    for _ in range(tries):
        before = await asyncio.to_thread(server_glitches, base_url)
        rec = await record_all(peers, seconds, settle)
        bad = await asyncio.to_thread(server_glitches, base_url) - before
        if best is None or bad < best[0]:
            best = (bad, rec)
        if bad == 0:
            break
        settle = 0.1
    return best[1]


async def close_all(bots: list[Bot]) -> None:
    await asyncio.gather(*(b.close() for b in bots), return_exceptions=True)
