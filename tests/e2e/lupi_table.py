"""Lupi Mannari tables of bots against a real `sussurro serve`, for the e2e tests."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from client.bot import Bot
from client.rtc_peer import Silence


async def lupi_table(base_url: str, n: int, options: dict[str, Any], voice: bool = True,
                     dtx: bool = False, decode: bool = True) -> list[Bot]:
    """A `lupi` room of `n` silent bots (bots[0] the host) with these options, seated and
    connected; with `voice`, every bot's WebRTC peer is up (`dtx`, `decode`: as for
    client.bot.Bot). Every message a bot receives is also kept with its arrival time
    (`bot.client.arrivals`: [(monotonic, message)])."""
    kw = {"dtx": dtx, "decode": decode}
    bots = [await Bot.create(base_url, "Bot0", Silence(), preset="lupi", **kw)]
    for i in range(1, n):
        bots.append(await Bot.join(base_url, bots[0].client.code, f"Bot{i}", Silence(), **kw))
    for b in bots:
        timed(b)
    mark = bots[0].client.mark()
    await bots[0].client.send("settings", options=options)
    await bots[0].client.wait_for(lambda m: m["type"] in ("room", "error"), since=mark)
    assert not bots[0].client.errors, bots[0].client.errors
    if voice:
        await asyncio.gather(*(b.start_voice() for b in bots))
    return bots


def timed(bot: Bot) -> None:
    """Keep each message's arrival time beside it (the client's own list keeps order only)."""
    client = bot.client
    if hasattr(client, "arrivals"):
        return
    client.arrivals = []
    record = client._record

    def _record(msg: dict[str, Any]) -> None:
        client.arrivals.append((time.monotonic(), msg))
        record(msg)

    client._record = _record


async def start(bots: list[Bot]) -> None:
    """The host starts the game; returns once every bot has its first view."""
    await bots[0].client.send("start")
    await asyncio.gather(*(b.client.wait_view(lambda v: v.get("game") == "werewolf")
                           for b in bots))


def role(bot: Bot) -> str:
    return bot.client.view["me"]["role"]


async def phase(bots: list[Bot], name: str, timeout: float = 30.0, day: int | None = None) -> None:
    """Wait until every bot's view is in phase `name` (of day `day`, if given)."""
    def ok(v: dict) -> bool:
        return v["phase"] == name and (day is None or v["day"] == day)

    await asyncio.gather(*(b.client.wait_view(ok, timeout) for b in bots))


async def rejoin(bot: Bot, voice: bool = True) -> None:
    """Drop the socket and the peer, then come back with the same token (a reload)."""
    await bot.close()
    await bot.client.connect()
    if voice:
        await bot.start_voice()
