"""A small asyncio client of the Sussurro server (tests, bots, load scripts).

HTTP with httpx, the socket with `websockets`. One `Client` is one player's seat.

    from client.protocol_client import Client, autoplay

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

    def __init__(self, base_url: str, code: str, player: str, token: str,
                 node: str | None = None, *, follow: bool = False,
                 follow_timeout: float = 60.0) -> None:
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
        return cls(base_url, data["code"], data["player"], data["token"], data.get("node"))

    @classmethod
    async def join(cls, base_url: str, code: str, name: str, *, color: str | None = None
                   ) -> Client:
        """Take a seat in an existing room."""
        body = {"name": name, **({"color": color} if color else {})}
        data = await _post(base_url, f"/api/rooms/{code}/join", body)
        return cls(base_url, code, data["player"], data["token"], data.get("node"))

    @classmethod
    async def watch(cls, base_url: str, code: str) -> Client:
        """Take a spectator pass (a shared screen): `player` is the pass id (s1, ...)."""
        data = await _post(base_url, f"/api/rooms/{code}/watch", {})
        return cls(base_url, code, data["spectator"], data["token"], data.get("node"))

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
                                                    open_timeout=timeout)
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

    async def locate(self, timeout: float = 10.0) -> str:
        """The URL of the node serving the room now, asked of any node that answers."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while True:
            for base in dict.fromkeys([self.base_url, *self.nodes, self.node]):
                if not base:
                    continue
                try:
                    async with httpx.AsyncClient(timeout=3) as http:
                        r = await http.get(f"{base}/api/rooms/{self.code}")
                except httpx.HTTPError:
                    continue
                if r.status_code == 200:
                    return (r.json().get("node") or base).rstrip("/")
                if r.status_code == 404:
                    raise ConnectionError(f"room {self.code} is gone")
            if loop.time() > end:
                raise TimeoutError(f"room {self.code}: no node answers for it")
            await asyncio.sleep(0.25)

    async def _drop_socket(self) -> None:
        ws, self._ws = self._ws, None
        if ws is not None:
            with contextlib.suppress(Exception):
                await ws.close()
        if self._reader is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._reader, 5)
            self._reader = None

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

    def _record(self, msg: dict[str, Any]) -> None:
        self.messages.append(msg)
        kind = msg.get("type")
        if kind == "view":
            self.view = msg["view"]
        elif kind == "room":
            self.room = msg
        elif kind == "welcome":
            self.welcome = msg
            if msg.get("nodes"):
                self.nodes = [u.rstrip("/") for u in msg["nodes"]]
            if msg.get("node"):
                self.node = msg["node"].rstrip("/")
        elif kind == "nodes":
            self.nodes = [u.rstrip("/") for u in msg.get("nodes") or []]
        elif kind == "moved":
            self._moved_to = (msg.get("node") or "").rstrip("/") or None
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

    def mark(self) -> int:
        """The index of the next message to arrive (for `wait_for(..., since=mark)`)."""
        return len(self.messages)

    async def wait_for(self, pred: Callable[[dict[str, Any]], bool], timeout: float = 10.0,
                       since: int | None = None, _opening: bool = False) -> dict[str, Any]:
        """The first message from index `since` on for which `pred` holds.

        A closed socket ends the wait (ConnectionError), unless the client is
        following the room (`follow`): then it waits through the reconnection."""
        i = since or 0
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while True:
            while i < len(self.messages):
                msg = self.messages[i]
                i += 1
                if pred(msg):
                    return msg
            following = (not _opening and self._follower is not None
                         and not self._follower.done())
            if (self.closed and self._reader is not None and self._reader.done()
                    and not following):
                raise ConnectionError(f"socket closed ({self.close_code}) while waiting")
            left = end - loop.time()
            if left <= 0:
                raise TimeoutError("no matching message")
            changed = self._changed
            # asyncio.timeout, not asyncio.wait_for: on Python 3.11, wait_for returns the
            # result when a cancellation comes as the message does, so a cancelled waiter
            # would loop on as if nothing had happened (and whoever awaits it hangs).
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(left):
                    await changed.wait()

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
        """Close the socket (the seat is kept) and stop following the room."""
        self._stopping = True
        follower, self._follower = self._follower, None
        if follower is not None and follower is not asyncio.current_task():
            follower.cancel()
            with contextlib.suppress(BaseException):
                await follower
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
    a guess is a made-up word. The views of another engine are answered by that
    engine's random player (`game.simulate.random_action`), one vote per ballot.
    """
    rng = rng or random.Random()
    if view.get("game") not in (None, "undercover"):
        # Another engine's game: its own random player (game/<engine>/sim.py).
        # (A made-up word to guess with: an empty pool would fail the impostor's guess.)
        return random_action(rng, view, [nonsense(rng)]) if view.get("me") else None
    me = view.get("me") or {}
    can = me.get("can") or []
    myself = me.get("id")
    if view.get("game") not in (None, "undercover"):
        # Another engine: its own random player (game.simulate), voting once per ballot.
        if ("vote" in can and me.get("vote") is not None) or (
                "word_vote" in can and me.get("word_vote") is not None):
            return None
        return random_action(rng, view, [nonsense(rng)])
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
            # Not again for the same view: any progress of the game changes the view.
            key = json.dumps([view, action], sort_keys=True)
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
