"""The browser tests' bots (tests/browser/bot_thread.py) act again in every round: issue 32
follow-up. Before, a bot's "once per view" memory had no round in it, so in an Intruso
game's second debate it never said ready again (nor cast the same vote again), and the
game waited for the debate's 180 s timer: most of the WebKit game test's four minutes."""

from __future__ import annotations

import asyncio
import time

from tests.browser.bot_thread import BotThread


class FakeClient:
    def __init__(self) -> None:
        self.view = None
        self.acted: list[tuple[int, dict]] = []

    def mark(self) -> int:
        return 0

    async def act(self, action: dict) -> None:
        self.acted.append((self.view["round"], action))

    async def wait_for(self, pred, timeout: float, since: int = 0):
        await asyncio.sleep(0.02)
        raise TimeoutError


class FakeBot:
    def __init__(self) -> None:
        self.client = FakeClient()


def debate(rnd: int) -> dict:
    return {"game": "undercover", "phase": "debate", "round": rnd, "players": [],
            "me": {"id": "p2", "can": ["ready"]}}


def test_bot_says_ready_in_the_second_rounds_debate_too():
    bots = BotThread()
    bot = FakeBot()
    try:
        bot.client.view = debate(1)
        bots.play(bot, lambda v, rng: {"type": "ready"} if "ready" in v["me"]["can"] else None,
                  delay=0.0)
        deadline = time.monotonic() + 5
        while not bot.client.acted and time.monotonic() < deadline:
            time.sleep(0.02)
        bot.client.view = debate(2)
        while len(bot.client.acted) < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
    finally:
        bots.stop()
    assert bot.client.acted == [(1, {"type": "ready"}), (2, {"type": "ready"})]
