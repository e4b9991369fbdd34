"""A small asyncio client of the Sussurro server (tests, bots, load scripts).

HTTP with httpx, the socket with `websockets`. One `Client` is one player's seat.

    from server.client import Client, autoplay

    host = await Client.create("http://127.0.0.1:8000", "Ada", preset="intruso")
    bob = await Client.join(host.base_url, host.code, "Bob")
    await host.connect(); await bob.connect()          # waits for welcome + room
    await host.send("settings", options={"timers": {"clue": 5}})
    await host.send("start")
    view = await bob.wait_view(lambda v: "clue" in v["me"]["can"])
    await bob.act({"type": "clue", "text": "zorp"})
    err = await bob.wait_for(lambda m: m["type"] == "error")
    await bob.close()

Attributes kept up to date by the receive loop: `messages` (every message
received, in order, as dicts), `view` (the last `view.view`), `room` (the last
`room` message), `welcome`, `errors` (every `error` message), `closed`,
`close_code`. `player`, `token`, `code` identify the seat; `Client(base_url,
code, player, token)` rebuilds a client from them (reconnect after a restart).

Methods:
- `Client.create(base_url, name, *, preset=None, lang=None, color=None)` and
  `Client.join(base_url, code, name, *, color=None)`: HTTP, raise `HttpError`
  (with `.status` and `.code`) on refusal.
- `connect(timeout=10)`: open `/ws?token=...`, wait for `welcome` and `room`.
- `send(type, **fields)` / `send_raw(text)` / `act(action)` (an `action` message).
- `wait_for(pred, timeout=10, since=None)`: the first message (from index
  `since`, default: the start of the history) with `pred(msg)` true; raises
  `TimeoutError`. `mark()` returns the current index, to wait for what comes
  after it. `wait_view(pred)` waits for a view satisfying `pred(view)`
  (the current one counts).
- `close()`: close the socket (the seat stays; `connect()` again to rejoin);
  `leave()` sends `leave` and closes.

`autoplay(view, rng=None) -> dict | None`: one random legal action for the
player whose view this is (or None when there is nothing to do), for any phase
of the undercover engine; other engines' views get their engine's random
player (`game.simulate.random_action`). `play(client, rng)` keeps answering the client's
views with autoplay until the game is over.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
from collections.abc import Callable
from typing import Any

import httpx
import websockets

from game.simulate import nonsense, random_action, random_clue


class HttpError(Exception):
    """The server refused an HTTP request."""

    def __init__(self, status: int, body: Any) -> None:
        self.status = status
        self.body = body
        self.code = body.get("code") if isinstance(body, dict) else None
        super().__init__(f"HTTP {status}: {body}")


async def _post(base_url: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=base_url, timeout=10) as http:
        r = await http.post(path, json=body)
    data = r.json() if r.headers.get("content-type", "").startswith("application/json") else r.text
    if r.status_code != 200:
        raise HttpError(r.status_code, data)
    return data


class Client:
    """One player's seat: the token, the socket, and everything received."""

    def __init__(self, base_url: str, code: str, player: str, token: str) -> None:
        self.base_url = base_url.rstrip("/")
        self.code, self.player, self.token = code, player, token
        self.messages: list[dict[str, Any]] = []
        self.errors: list[dict[str, Any]] = []
        self.view: dict[str, Any] | None = None
        self.room: dict[str, Any] | None = None
        self.welcome: dict[str, Any] | None = None
        self.closed = True
        self.close_code: int | None = None
        self._ws: Any = None
        self._reader: asyncio.Task[None] | None = None
        self._changed = asyncio.Event()

    # HTTP ---------------------------------------------------------------------

    @classmethod
    async def create(cls, base_url: str, name: str, *, preset: str | None = None,
                     lang: str | None = None, color: str | None = None) -> Client:
        """Create a room (the caller becomes its host)."""
        body = {"name": name, "preset": preset, "lang": lang, "color": color}
        data = await _post(base_url, "/api/rooms", {k: v for k, v in body.items() if v})
        return cls(base_url, data["code"], data["player"], data["token"])

    @classmethod
    async def join(cls, base_url: str, code: str, name: str, *, color: str | None = None
                   ) -> Client:
        """Take a seat in an existing room."""
        body = {"name": name, **({"color": color} if color else {})}
        data = await _post(base_url, f"/api/rooms/{code}/join", body)
        return cls(base_url, code, data["player"], data["token"])

    # The socket -----------------------------------------------------------------

    @property
    def ws_url(self) -> str:
        base = self.base_url.replace("https://", "wss://").replace("http://", "ws://")
        return f"{base}/ws?token={self.token}"

    async def connect(self, timeout: float = 10.0) -> None:
        """Open the socket and wait until the server has sent `welcome` and `room`."""
        await self.close()
        mark = self.mark()
        self._ws = await websockets.connect(self.ws_url, max_size=2**22, open_timeout=timeout)
        self.closed, self.close_code = False, None
        self._reader = asyncio.create_task(self._read())
        await self.wait_for(lambda m: m["type"] == "welcome", timeout, since=mark)
        await self.wait_for(lambda m: m["type"] == "room", timeout, since=mark)

    async def _read(self) -> None:
        ws = self._ws
        try:
            async for text in ws:
                try:
                    msg = json.loads(text)
                except ValueError:
                    continue
                self._record(msg)
        except websockets.ConnectionClosed:
            pass
        finally:
            if ws is self._ws:
                self.closed = True
                self.close_code = ws.close_code
            self._wake()

    def _record(self, msg: dict[str, Any]) -> None:
        self.messages.append(msg)
        kind = msg.get("type")
        if kind == "view":
            self.view = msg["view"]
        elif kind == "room":
            self.room = msg
        elif kind == "welcome":
            self.welcome = msg
        elif kind == "error":
            self.errors.append(msg)
        self._wake()

    def _wake(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    async def send(self, type: str, **fields: Any) -> None:
        """Send one message `{"type": type, **fields}`."""
        await self.send_raw(json.dumps({"type": type, **fields}))

    async def send_raw(self, text: str | bytes) -> None:
        """Send a frame as it is (for tests of malformed input)."""
        if self._ws is None:
            raise RuntimeError("not connected")
        await self._ws.send(text)

    async def act(self, action: dict[str, Any]) -> None:
        """Send a game action."""
        await self.send("action", action=action)

    def mark(self) -> int:
        """The index of the next message to arrive (for `wait_for(..., since=mark)`)."""
        return len(self.messages)

    async def wait_for(self, pred: Callable[[dict[str, Any]], bool], timeout: float = 10.0,
                       since: int | None = None) -> dict[str, Any]:
        """The first message from index `since` on for which `pred` holds."""
        i = since or 0
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while True:
            while i < len(self.messages):
                msg = self.messages[i]
                i += 1
                if pred(msg):
                    return msg
            if self.closed and self._reader is not None and self._reader.done():
                raise ConnectionError(f"socket closed ({self.close_code}) while waiting")
            left = end - loop.time()
            if left <= 0:
                raise TimeoutError("no matching message")
            changed = self._changed
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(changed.wait(), left)

    async def wait_view(self, pred: Callable[[dict[str, Any]], bool], timeout: float = 10.0
                        ) -> dict[str, Any]:
        """The current view if `pred(view)`, else the next view that satisfies it."""
        if self.view is not None and pred(self.view):
            return self.view
        msg = await self.wait_for(lambda m: m["type"] == "view" and pred(m["view"]), timeout,
                                  since=self.mark())
        return msg["view"]

    async def wait_closed(self, timeout: float = 10.0) -> int | None:
        """Wait until the server closes the socket; its close code."""
        if self._reader is not None:
            await asyncio.wait_for(asyncio.shield(self._reader), timeout)
        return self.close_code

    async def close(self) -> None:
        """Close the socket (the seat is kept)."""
        ws, self._ws = self._ws, None
        if ws is not None:
            with contextlib.suppress(Exception):
                await ws.close()
        if self._reader is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._reader, 5)
            self._reader = None
        if ws is not None:
            self.close_code = ws.close_code
        self.closed = True

    async def leave(self) -> None:
        """Give the seat up for good, then close."""
        with contextlib.suppress(Exception):
            await self.send("leave")
        await self.close()


# A random legal player ---------------------------------------------------------


def autoplay(view: dict[str, Any], rng: random.Random | None = None) -> dict[str, Any] | None:
    """One legal-looking action for this view's player, or None if nothing is due.

    Follows `view.me.can`: Cupido binds and the Ubriacone intoxicates random
    others; a clue is a made-up word (an emoji for the Muto, a word of the
    previous clue for the Pappagallo); in the debate the Sabotatore may swap
    (rarely) then everyone is ready; votes go to a random candidate other than
    oneself (once); the Giudice and the Vendicatore pick a random candidate;
    a guess is a made-up word.
    """
    rng = rng or random.Random()
    if view.get("game") not in (None, "undercover"):
        # Another engine's game: its own random player (game/<engine>/sim.py).
        return random_action(rng, view, []) if view.get("me") else None
    me = view.get("me") or {}
    can = me.get("can") or []
    myself = me.get("id")
    living = [p["id"] for p in view.get("players", []) if p.get("alive") and p["id"] != myself]
    candidates = [c for c in view.get("candidates") or [] if c != myself]
    if "bind" in can and living:
        return {"type": "bind", "target": rng.choice(living)}
    if "intoxicate" in can:
        others = [p["id"] for p in view.get("players", []) if p["id"] != myself]
        if len(others) >= 2:
            return {"type": "intoxicate", "targets": rng.sample(others, 2)}
    if "clue" in can:
        return {"type": "clue", "text": random_clue(rng, view)}
    if "guess" in can:
        return {"type": "guess", "word": nonsense(rng)}
    if "avenge" in can:
        pool = candidates or living
        return {"type": "avenge", "target": rng.choice(pool)} if pool else None
    if "judge" in can and candidates:
        return {"type": "judge", "target": rng.choice(candidates)}
    if "swap" in can and rng.random() < 0.2:
        if living:
            return {"type": "swap", "target": rng.choice(living)}
    if "ready" in can:
        return {"type": "ready"}
    if "vote" in can and me.get("vote") is None:
        pool = candidates or living
        return {"type": "vote", "target": rng.choice(pool)} if pool else None
    return None


async def play(client: Client, rng: random.Random | None = None, timeout: float = 120.0,
               delay: float = 0.0) -> dict[str, Any]:
    """Answer every view of `client` with `autoplay` until the game is over; the final view.

    An action the server refuses is not retried for the same view (the next
    view, or a deadline, moves the game on).
    """
    rng = rng or random.Random()
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    tried: set[str] = set()
    while True:
        mark = client.mark()
        view = client.view
        if view is not None and view.get("phase") == "over":
            return view
        if view is not None:
            action = autoplay(view, rng)
            key = json.dumps([view.get("phase"), view.get("round"), view.get("turn"),
                              len(view.get("clues") or []), action], sort_keys=True)
            if action is not None and key not in tried:
                tried.add(key)
                if delay:
                    await asyncio.sleep(delay)
                await client.act(action)
        left = end - loop.time()
        if left <= 0:
            raise TimeoutError("the game did not end in time")
        with contextlib.suppress(TimeoutError):
            await client.wait_for(lambda m: m["type"] in ("view", "error"), min(left, 2.0),
                                  since=mark)
