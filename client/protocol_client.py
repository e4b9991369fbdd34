"""A small asyncio client of the Sussurro server (tests, bots, load scripts).

HTTP with httpx, the socket with `websockets`. One `Client` is one player's seat.

    from client.protocol_client import Client
    from client.autoplay import autoplay

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
`close_code`. `headers` (empty) are sent with the socket's opening request (a
browser's cookie, in tests). `player`, `token`, `code` identify the seat; `Client(base_url,
code, player, token)` rebuilds a client from them (reconnect after a restart).

Cluster mode (docs/cluster.md): HTTP goes to `base_url` (any node answers),
the socket to `node`, the URL of the node serving the room, taken from the
create/join answer and from `moved` messages; `connect()` follows a `moved`
by itself. With `follow=True` the client also reconnects on its own whenever
the socket drops without a final close code: to the node a `moved` names,
else to wherever `locate()` finds the room (asking `base_url`, then every
node the welcome listed), retrying until `follow_timeout`. Each reconnection
runs the `on_reconnect` callbacks (the bots restart their voice there) and
counts in `reconnects`.

Methods:
- `Client.create(base_url, name, *, preset=None, lang=None, color=None)`,
  `Client.join(base_url, code, name, *, color=None)` and `Client.watch(base_url,
  code)` (a spectator pass; `player` is then the pass id): HTTP, raise
  `HttpError` (with `.status` and `.code`) on refusal.
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

The parts: HTTP in client/http_api.py, the received messages and the waits
on them in client/received.py, the random player in client/autoplay.py; this
module keeps the socket (open, read, follow the room, send, close).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable
from typing import Any

import websockets

from client.http_api import HttpError, locate, post
from client.received import Received

__all__ = ["Client", "HttpError"]


class Client(Received):
    """One player's seat: the token, the socket, and everything received."""

    def __init__(self, base_url: str, code: str, player: str, token: str,
                 node: str | None = None, *, follow: bool = False,
                 follow_timeout: float = 60.0) -> None:
        super().__init__()
        self.base_url = base_url.rstrip("/")
        self.code, self.player, self.token = code, player, token
        # Cluster mode: the node serving the room, and every live node the welcome named.
        self.node = node.rstrip("/") if node else None
        self.nodes: list[str] = []
        self.follow = follow
        self.follow_timeout = follow_timeout
        self.reconnects = 0
        self.on_reconnect: list[Callable[[], Any]] = []
        self._moved_to: str | None = None
        self._stopping = False
        self._opening = False
        self._follower: asyncio.Task[None] | None = None
        self.closed = True
        self.close_code: int | None = None
        self._ws: Any = None
        self._reader: asyncio.Task[None] | None = None
        # Extra headers of the socket's opening request (a test's browser cookie).
        self.headers: dict[str, str] = {}

    # HTTP ---------------------------------------------------------------------

    @classmethod
    async def create(cls, base_url: str, name: str, *, preset: str | None = None,
                     lang: str | None = None, color: str | None = None) -> Client:
        """Create a room (the caller becomes its host)."""
        body = {"name": name, "preset": preset, "lang": lang, "color": color}
        data = await post(base_url, "/api/rooms", {k: v for k, v in body.items() if v})
        return cls(base_url, data["code"], data["player"], data["token"], data.get("node"))

    @classmethod
    async def join(cls, base_url: str, code: str, name: str, *, color: str | None = None
                   ) -> Client:
        """Take a seat in an existing room."""
        body = {"name": name, **({"color": color} if color else {})}
        data = await post(base_url, f"/api/rooms/{code}/join", body)
        return cls(base_url, code, data["player"], data["token"], data.get("node"))

    @classmethod
    async def watch(cls, base_url: str, code: str) -> Client:
        """Take a spectator pass (a shared screen): `player` is the pass id (s1, ...)."""
        data = await post(base_url, f"/api/rooms/{code}/watch", {})
        return cls(base_url, code, data["spectator"], data["token"], data.get("node"))

    async def locate(self, timeout: float = 10.0) -> str:
        """The URL of the node serving the room now, asked of any node that answers."""
        return await locate(lambda: [self.base_url, *self.nodes, self.node], self.code,
                            timeout)

    # The socket -----------------------------------------------------------------

    @property
    def ws_url(self) -> str:
        base = (self.node or self.base_url).replace("https://", "wss://")
        base = base.replace("http://", "ws://")
        return f"{base}/ws?token={self.token}"

    async def connect(self, timeout: float = 10.0) -> None:
        """Open the socket and wait until the server has sent `welcome` and `room`.

        A node that does not serve the room answers `moved`: the socket is
        opened again where it says (a few hops at most)."""
        await self.close()
        self._stopping = False
        await self._open(timeout)

    async def _open(self, timeout: float, hops: int = 3) -> None:
        self._opening = True
        try:
            for _ in range(hops):
                mark = self.mark()
                self._moved_to = None
                self._ws = await websockets.connect(self.ws_url, max_size=2**22,
                                                    open_timeout=timeout,
                                                    additional_headers=self.headers or None)
                self.closed, self.close_code = False, None
                self._reader = asyncio.create_task(self._read())
                first = await self.wait_for(lambda m: m["type"] in ("welcome", "moved"),
                                            timeout, since=mark, _opening=True)
                if first["type"] == "welcome":
                    await self.wait_for(lambda m: m["type"] == "room", timeout, since=mark,
                                        _opening=True)
                    return
                moved_to = self._moved_to
                await self._drop_socket()
                self.node = moved_to or await self.locate(timeout)
            raise ConnectionError(f"room {self.code}: still moving after {hops} hops")
        finally:
            self._opening = False

    async def _drop_socket(self) -> Any:
        """Close the socket and let its reader end (5 s at most); the socket closed."""
        ws, self._ws = self._ws, None
        if ws is not None:
            with contextlib.suppress(Exception):
                await ws.close()
        if self._reader is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._reader, 5)
            self._reader = None
        return ws

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
                if self._should_follow():
                    self._follower = asyncio.create_task(self._follow())
            self._wake()

    def _should_follow(self) -> bool:
        # Final closes (>= 4000 but 4010, "moved") mean the seat is gone: do not come back.
        code = self.close_code or 1006
        final = 4000 <= code < 5000 and code != 4010
        return (self.follow and not self._stopping and not final and not self._opening
                and (self._follower is None or self._follower.done()))

    async def _follow(self) -> None:
        """The socket dropped: find the room's node again and reconnect, until it works."""
        loop = asyncio.get_running_loop()
        end = loop.time() + self.follow_timeout
        delay = 0.1
        while not self._stopping and loop.time() < end:
            try:
                self.node = self._moved_to or await self.locate(min(5.0, end - loop.time()))
                await self._open(10.0)
            except (OSError, ConnectionError, TimeoutError,
                    websockets.WebSocketException) as exc:
                self._moved_to = None
                if isinstance(exc, ConnectionError) and "is gone" in str(exc):
                    return
                await asyncio.sleep(delay)
                delay = min(delay * 2, 1.0)
                continue
            self.reconnects += 1
            for hook in list(self.on_reconnect):
                result = hook()
                if asyncio.iscoroutine(result):
                    await result
            return

    def _noted(self, msg: dict[str, Any]) -> None:
        # Where the room is: the welcome's node and nodes, a `nodes` update, a `moved`.
        kind = msg.get("type")
        if kind == "welcome":
            if msg.get("nodes"):
                self.nodes = [u.rstrip("/") for u in msg["nodes"]]
            if msg.get("node"):
                self.node = msg["node"].rstrip("/")
        elif kind == "nodes":
            self.nodes = [u.rstrip("/") for u in msg.get("nodes") or []]
        elif kind == "moved":
            self._moved_to = (msg.get("node") or "").rstrip("/") or None

    def _check_socket(self, opening: bool) -> None:
        following = (not opening and self._follower is not None
                     and not self._follower.done())
        if (self.closed and self._reader is not None and self._reader.done()
                and not following):
            raise ConnectionError(f"socket closed ({self.close_code}) while waiting")

    async def send(self, type: str, **fields: Any) -> None:
        """Send one message `{"type": type, **fields}`."""
        await self.send_raw(json.dumps({"type": type, **fields}))

    async def send_raw(self, text: str | bytes) -> None:
        """Send a frame as it is (for tests of malformed input)."""
        follower = self._follower
        if (follower is not None and not follower.done()
                and follower is not asyncio.current_task()):  # (its hooks send too)
            # Following the room to its new node: send once the socket is back.
            await asyncio.wait_for(asyncio.shield(follower), self.follow_timeout)
        if self._ws is None:
            raise RuntimeError("not connected")
        try:
            await self._ws.send(text)
        except websockets.ConnectionClosed:
            if not self.follow or self._stopping:
                raise
            # Dropped under our feet: the reader starts following; send after it.
            for _ in range(100):
                if self._follower is not None:
                    break
                await asyncio.sleep(0.01)
            follower = self._follower
            if follower is None or follower is asyncio.current_task():
                raise
            await asyncio.wait_for(asyncio.shield(follower), self.follow_timeout)
            await self._ws.send(text)

    async def act(self, action: dict[str, Any]) -> None:
        """Send a game action."""
        await self.send("action", action=action)

    async def wait_closed(self, timeout: float = 10.0) -> int | None:
        """Wait until the server closes the socket; its close code."""
        if self._reader is not None:
            await asyncio.wait_for(asyncio.shield(self._reader), timeout)
        return self.close_code

    async def close(self) -> None:
        """Close the socket (the seat is kept) and stop following the room."""
        self._stopping = True
        follower, self._follower = self._follower, None
        if follower is not None and follower is not asyncio.current_task():
            follower.cancel()
            with contextlib.suppress(BaseException):
                await follower
        ws = await self._drop_socket()
        if ws is not None:
            self.close_code = ws.close_code
        self.closed = True

    async def leave(self) -> None:
        """Give the seat up for good, then close."""
        with contextlib.suppress(Exception):
            await self.send("leave")
        await self.close()
