"""Bots for the rest of a browser test's table: real protocol clients with real WebRTC voices
(client.bot.Bot), run on their own asyncio loop in a thread beside Playwright's sync API."""

from __future__ import annotations

import asyncio
import io
import random
import threading
from collections.abc import Callable
from typing import Any

from client.bot import Bot
from client.rtc_peer import Source

Policy = Callable[[dict[str, Any], random.Random], dict[str, Any] | None]


class BotThread:
    """An event loop in a thread; bots join rooms and play with a policy until stopped."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.bots: list[Bot] = []
        self._tasks: list[asyncio.Task] = []

    def run(self, coro, timeout: float = 60.0) -> Any:
        """Run `coro` on the bots' loop and wait for its result."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def join(self, base_url: str, code: str, seats: list[tuple[str, Source]],
             voice: bool = True) -> list[Bot]:
        """Seat one bot per (name, mic source) in room `code`; their voices connect together."""
        async def _join() -> list[Bot]:
            bots = [await Bot.join(base_url, code, name, source) for name, source in seats]
            self.bots += bots
            if voice:
                await asyncio.gather(*(b.start_voice(timeout=60) for b in bots))
            return bots

        return self.run(_join(), timeout=150)

    def play(self, bot: Bot, policy: Policy, seed: int = 1, delay: float = 0.3) -> None:
        """Answer each of `bot`'s views with `policy` (once per view) in the background."""
        async def _play() -> None:
            rng = random.Random(seed)
            done: set[str] = set()
            while True:
                mark = bot.client.mark()
                v = bot.client.view
                if v is not None and v.get("phase") != "over":
                    action = policy(v, rng)
                    # The round too: the same action is due again in a later round
                    # (ready in each debate), once per round and phase.
                    key = repr((v.get("day"), v.get("round"), v.get("phase"), v.get("defender"), action))
                    if action is not None and key not in done:
                        done.add(key)
                        await asyncio.sleep(delay)
                        await bot.client.act(action)
                try:
                    await bot.client.wait_for(lambda m: m["type"] == "view", 2.0, since=mark)
                except (TimeoutError, ConnectionError):
                    await asyncio.sleep(0.2)

        async def _start() -> asyncio.Task:
            return asyncio.ensure_future(_play())

        self._tasks.append(self.run(_start()))

    def wait_view(self, bot: Bot, pred: Callable[[dict[str, Any]], bool], timeout: float = 20.0
                  ) -> dict[str, Any]:
        """`bot`'s current or next view that satisfies `pred`."""
        return self.run(bot.client.wait_view(pred, timeout), timeout + 5)

    def _stacks(self) -> str:
        """Where every task on the bots' loop is waiting (for a close that hangs)."""
        async def _dump() -> str:
            out = io.StringIO()
            for task in asyncio.all_tasks():
                if task is not asyncio.current_task():
                    task.print_stack(limit=12, file=out)
            return out.getvalue()

        try:
            return self.run(_dump(), timeout=10)
        except TimeoutError:
            return "(the loop itself is blocked)"

    def stop(self) -> None:
        """Stop playing, close every bot, stop the loop."""
        async def _close() -> None:
            for task in self._tasks:
                task.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)
            await asyncio.gather(*(b.close() for b in self.bots), return_exceptions=True)

        try:
            self.run(_close(), timeout=30)
        except TimeoutError:
            raise AssertionError("the bots did not close in 30 s; their loop's tasks:\n"
                                 + self._stacks()) from None
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(timeout=10)


def lupi_policy(v: dict[str, Any], rng: random.Random) -> dict[str, Any] | None:
    """A quick werewolf player: looks and bites at random, is ready at once, names and
    lynches at random, yields the floor at once."""
    me = v.get("me") or {}
    can = me.get("can") or []
    others = [p["id"] for p in v["players"] if p["alive"] and p["id"] != me.get("id")]
    if "peek" in can and others:
        return {"type": "peek", "target": rng.choice(others)}
    if "bite" in can and me.get("bite") is None:
        prey = [p for p in others if p not in me.get("pack", [])]
        return {"type": "bite", "target": rng.choice(prey)} if prey else None
    if "ready" in can:
        return {"type": "ready"}
    if "vote" in can and me.get("vote") is None:
        choices = [c for c in v.get("candidates") or [] if c != me.get("id")]
        return {"type": "vote", "target": rng.choice(choices)} if choices else None
    return None
