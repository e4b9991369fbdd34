"""What every HTTP request and response passes through: a body limit and security headers.

Both are plain ASGI middleware, outside FastAPI's routing, so they hold for
every path (pages, static files, the API) and act before any body is read:

- `BodyLimit`: a request announcing more than `max_body` bytes is answered
  413 `too_large` at once, unread; a body without a length (chunked) is read
  up to the limit only. The endpoints then apply their throttles before they
  read the (now bounded) body.
- `SecurityHeaders`: a Content-Security-Policy fitting the web client (its
  own scripts and styles only, no inline script, the WebSocket to this host
  and, in cluster mode, to every live node; the data: favicon), `X-Content-Type-Options: nosniff`, `Referrer-Policy`,
  and no framing (`frame-ancestors 'none'`, `X-Frame-Options: DENY`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

# A Host header fit to be written into the policy (name or address, optional port).
_HOST = re.compile(r"[A-Za-z0-9.\-]+(:\d{1,5})?|\[[0-9A-Fa-f:.]+\](:\d{1,5})?")


_SOURCE = re.compile(r"(https?|wss?)://(\*\.)?[A-Za-z0-9.\-]+(:(\d{1,5}|\*))?|"
                     r"(https?|wss?)://\[[0-9A-Fa-f:.]+\](:(\d{1,5}|\*))?")


def node_sources(url: str) -> str:
    """A cluster node's URL as the sources a page may connect to: its scheme and the
    matching socket scheme, on any port of its host (so that a node added later on a
    host already known is reachable from pages loaded before it existed)."""
    m = re.fullmatch(r"(https?)://([^/\s;,']+?)(:\d{1,5})?/?", url.strip())
    if m is None or not _HOST.fullmatch(m.group(2)):
        return ""
    socket = "wss" if m.group(1) == "https" else "ws"
    return f" {m.group(1)}://{m.group(2)}:* {socket}://{m.group(2)}:*"


def extra_sources(text: str) -> str:
    """The `csp_connect` setting's sources, each checked (anything else is left out)."""
    return "".join(f" {src}" for src in text.split() if _SOURCE.fullmatch(src))


def content_security_policy(host: str | None, nodes: Iterable[str] = (), extra: str = "") -> str:
    """The page's policy; `host` (the request's Host) names the WebSocket's origin, since
    older browsers do not count ws:/wss: to the page's own host as 'self'. `nodes`: in
    cluster mode, every live node's URL (a page's socket goes to its room's node, and
    it asks the others where its room went); `extra`: checked sources (`extra_sources`)."""
    sockets = f" ws://{host} wss://{host}" if host and _HOST.fullmatch(host) else ""
    sockets += "".join(node_sources(url) for url in nodes) + extra
    return "; ".join((
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "media-src 'self' blob: mediastream:",
        f"connect-src 'self'{sockets}",
        "font-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ))


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return value.decode("latin-1")
    return None


async def _json_error(send: Send, status: int, code: str, message: str) -> None:
    body = json.dumps({"code": code, "message": message}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})


class BodyLimit:
    """Refuse request bodies over `max_body` bytes before the app reads them."""

    def __init__(self, app: ASGIApp, max_body: int) -> None:
        self.app, self.max_body = app, max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = _header(scope, b"content-length")
        if length is not None:
            if not length.isdigit() or int(length) > self.max_body:
                await _json_error(send, 413, "too_large",
                                  f"request body over {self.max_body} bytes")
                return
            await self.app(scope, receive, send)
            return
        if _header(scope, b"transfer-encoding") is None:
            await self.app(scope, receive, send)
            return
        # A body of unknown length: read it here, up to the limit, and replay it.
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body:
                await _json_error(send, 413, "too_large",
                                  f"request body over {self.max_body} bytes")
                return
            chunks.append(chunk)
            if not message.get("more_body"):
                break
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": b"".join(chunks), "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


class SecurityHeaders:
    """Add the security headers to every HTTP response (paths in `exempt` skip the CSP)."""

    def __init__(self, app: ASGIApp, exempt: Iterable[str] = (),
                 nodes: Callable[[], Iterable[str]] | None = None, extra: str = "") -> None:
        self.app = app
        self.exempt = frozenset(exempt)
        self.nodes = nodes  # cluster mode: the live nodes' URLs, for connect-src
        self.extra = extra_sources(extra)  # the csp_connect setting

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        extra = [(b"x-content-type-options", b"nosniff"),
                 (b"referrer-policy", b"no-referrer"),
                 (b"x-frame-options", b"DENY")]
        if scope.get("path") not in self.exempt:
            nodes = self.nodes() if self.nodes is not None else ()
            csp = content_security_policy(_header(scope, b"host"), nodes, self.extra)
            extra.append((b"content-security-policy", csp.encode("latin-1")))

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                names = {k.lower() for k, _ in message.get("headers", ())}
                headers = list(message.get("headers", ()))
                headers += [(k, v) for k, v in extra if k not in names]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)
