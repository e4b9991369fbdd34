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
- `CrossSite`: what another site's page could make a player's browser do is
  refused. A request that changes something (any method but GET, HEAD and
  OPTIONS) and every WebSocket upgrade must come from a page of this server
  (`Origin` naming its own host, or one `also` allows), or carry no `Origin`
  (not a browser); and a request body is JSON only as `application/json`,
  which a cross-site page cannot send without a CORS preflight (a `text/plain`
  body needs none).
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


_SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}
_ORIGIN = re.compile(r"(https?|wss?)://(\*\.)?([A-Za-z0-9.\-]+|\[[0-9A-Fa-f:.]+\])"
                     r"(?::(\d{1,5}|\*))?(?:/\S*)?")


def origin_place(url: str) -> tuple[str, str | None] | None:
    """An origin or URL's (host, port) as the browser means it; the port is None for its
    scheme's default or "*" for any. None when it is not one ("null", a path, garbage)."""
    m = _ORIGIN.fullmatch(url.strip().lower())
    if m is None:
        return None
    scheme, wildcard, host, port = m.groups()
    if port is not None and port != "*" and int(port) == _DEFAULT_PORTS[scheme]:
        port = None
    return (wildcard or "") + host, port


def host_place(host: str) -> tuple[str, str | None] | None:
    """A Host header's (host, port); the usual web ports count as no port."""
    host = host.strip().lower()
    if not _HOST.fullmatch(host):
        return None
    cut = host.rindex("]") + 1 if host.startswith("[") else host.find(":")
    name, port = (host, "") if cut < 0 else (host[:cut], host[cut + 1:])
    return name, (None if port in ("", "80", "443") else port)


def _matches(place: tuple[str, str | None], allowed: tuple[str, str | None]) -> bool:
    (host, port), (want, want_port) = place, allowed
    if want.startswith("*."):
        if not host.endswith(want[1:]):
            return False
    elif host != want:
        return False
    return want_port == "*" or want_port == port


class CrossSite:
    """Refuse changes asked for by another site's page, and JSON bodies not sent as JSON.

    `also(scope)`: more origins allowed beside the request's own Host, as URLs or
    CSP-like sources (`https://*.example.org:*`): the public URL, the cluster's nodes.
    """

    def __init__(self, app: ASGIApp,
                 also: Callable[[Scope], Iterable[str]] = lambda scope: ()) -> None:
        self.app, self.also = app, also

    def _same_site(self, scope: Scope) -> bool:
        origin = _header(scope, b"origin")
        if origin is None:
            return True  # not a browser (a browser names the page on every such request)
        place = origin_place(origin)
        if place is None:
            return False  # "null": a sandboxed frame, a file, a redirect across sites
        own = host_place(_header(scope, b"host") or "")
        if own is not None and _matches(place, own):
            return True
        for url in self.also(scope):
            allowed = origin_place(url)
            if allowed is not None and _matches(place, allowed):
                return True
        return False

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            if not self._same_site(scope):
                await send({"type": "websocket.close", "code": 1008})  # answered 403
                return
        elif scope["type"] == "http" and scope.get("method") not in _SAFE_METHODS:
            if not self._same_site(scope):
                await _json_error(send, 403, "cross_origin",
                                  "a page of another site may not ask this server for that")
                return
            length = _header(scope, b"content-length")
            has_body = (length is not None and length.strip() not in ("", "0")) or (
                _header(scope, b"transfer-encoding") is not None)
            kind = (_header(scope, b"content-type") or "").split(";")[0].strip().lower()
            if has_body and kind != "application/json":
                await _json_error(send, 415, "unsupported_media_type",
                                  "request bodies are JSON sent as application/json")
                return
        await self.app(scope, receive, send)
