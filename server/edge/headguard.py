"""Every connection's request heads are bounded: in time, in size, and per address.

uvicorn (with httptools) starts no timer before a request's head is complete
and puts no limit on its size: a client sending its headers one byte every
two seconds, or nothing but blank lines, held a connection for as long as it
liked, and a never-ending header grew in memory without end. And the --lan
listener (server/reach/listen.py) takes at most `MAX_PENDING` connections that have
not spoken yet, so one device opening that many locked everyone else out.

`guarded_protocol(settings)` is uvicorn's own HTTP protocol with:

- a deadline (`header_timeout`): from the connection's start, and from the end
  of each response on a kept-alive connection, the next request's whole head
  must have arrived in time, or the connection is dropped. Blank lines and
  trickled bytes do not extend it.
- a size cap (`max_header`): a head (request line and headers) larger than that
  is answered 431 and the connection closed; what came beyond it is not kept.
  The head is measured in the bytes received, before the parser is given them
  (issue 37 item 3: measured after, a whole oversized head arriving in one read
  had already been parsed and its request started): its end (an empty line) must
  come within `max_header` bytes of its start, blank lines before the request line
  included. A head that starts after another request in the same read (pipelined)
  is measured by the parser's callbacks (its request line and headers as parsed)
  before its request starts.
- a bound per client address (`max_idle_per_address`) on connections whose
  first request head is not complete yet (the listener's sniffing stage
  included): beyond it a new connection from that address is closed at once.
  Trusted proxies are exempt (all their clients share their address).

Both serve paths use it: plain uvicorn (the default) and the sniffing listener.
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from server.config import Settings
from server.edge.forwarded import TrustedProxies

_TOO_LARGE = (b"HTTP/1.1 431 Request Header Fields Too Large\r\n"
              b"content-type: text/plain; charset=utf-8\r\ncontent-length: 30\r\n"
              b"connection: close\r\n\r\nrequest head over the limit.\r\n")


class _HeadTooLarge(Exception):
    """Raised in a parser callback to stop parsing a refused head."""


class IdleConnections:
    """Connections per client address that have not completed a request head yet."""

    def __init__(self, per_address: int, exempt: TrustedProxies) -> None:
        self.per_address, self.exempt = per_address, exempt
        self.counts: dict[str, int] = {}

    def admit(self, address: str | None) -> bool:
        """Count one more for `address`; False (nothing counted) when it has its bound."""
        key = address or "?"
        if self.exempt.trusts(address):
            return True
        held = self.counts.get(key, 0)
        if held >= self.per_address:
            return False
        self.counts[key] = held + 1
        return True

    def release(self, address: str | None) -> None:
        key = address or "?"
        if self.exempt.trusts(address):
            return
        held = self.counts.get(key, 0) - 1
        if held > 0:
            self.counts[key] = held
        else:
            self.counts.pop(key, None)


class GuardedHttpTools(HttpToolsProtocol):
    """uvicorn's httptools protocol with a head deadline, a head size cap and the
    per-address bound (see the module's docstring). `guarded_protocol` subclasses
    it with the settings' values."""

    idle: IdleConnections
    header_timeout: float
    max_header: int

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._address = self.client[0] if self.client else None
        self._counted = self.idle.admit(self._address)
        self._in_head = True  # the bytes now coming belong to a request head
        self._new_head()
        self._parsed = 0  # the head being parsed, as the callbacks see it
        self._refused = False
        self._deadline: asyncio.TimerHandle | None = None
        if not self._counted:
            transport.abort()  # this address has its bound of silent connections
            return
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        self._uncount()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._refused:
            return
        if self._in_head:
            self._count_head(data)
        if self._in_head and self._head_bytes > self.max_header:
            self._refuse()  # before the parser sees any of it
            return
        super().data_received(data)

    def _new_head(self) -> None:
        self._head_bytes = 0  # bytes of the head in progress received so far
        self._head_started = False  # its request line has begun (past any blank lines)
        self._tail = b""  # its last two bytes, for an empty line split across reads

    def _count_head(self, data: bytes) -> None:
        """Count in `_head_bytes` the bytes of `data` that belong to the head in
        progress: up to its end (the empty line after the request line and headers),
        or all of them."""
        buf, held = self._tail + data, len(self._tail)
        since = 0  # where an end may start: after the request line's first byte
        if not self._head_started:
            since = len(buf) - len(buf.lstrip(b"\r\n"))  # blank lines first: no end
            self._head_started = since < len(buf)
        ends = [i + len(mark) for mark in (b"\n\r\n", b"\n\n")
                if self._head_started and (i := buf.find(mark, since)) >= 0]
        self._head_bytes += min(ends) - held if ends else len(data)
        self._tail = buf[-2:]

    def _refuse(self) -> None:
        self.logger.info("request head over %d bytes from %s: 431", self.max_header,
                         self._address)
        self._refused = True
        self._disarm()
        self.transport.write(_TOO_LARGE)
        self.transport.close()  # nothing more is read (nor kept) of it

    def send_400_response(self, msg: str) -> None:
        if not self._refused:  # a refused head stops the parser: its 431 is the answer
            super().send_400_response(msg)

    # httptools' callbacks: where each request's head ends and its message ends, and
    # the head as parsed (for a head that began inside an already measured read).
    def on_message_begin(self) -> None:
        self._parsed = 0
        super().on_message_begin()

    def on_url(self, url: bytes) -> None:
        self._parsed += len(url)
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._parsed += len(name) + len(value) + 4  # "name: value\r\n"
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        # The request line's method, spaces, version and line ends, and the empty line.
        line = len(self.parser.get_method()) + len(" HTTP/1.1\r\n") + 1 + 2
        if self._parsed + line > self.max_header:
            self._refuse()
            raise _HeadTooLarge  # stops the parser: this request never starts
        self._in_head = False
        self._disarm()
        self._uncount()
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self._in_head = True
        self._new_head()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        # Kept alive: the next head has its deadline too (uvicorn's keep-alive timer
        # stops at the first byte, blank lines included).
        if self._in_head and not self.transport.is_closing():
            self._arm()

    def _arm(self) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(self.header_timeout, self._too_slow)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _uncount(self) -> None:
        if self._counted:
            self._counted = False
            self.idle.release(self._address)

    def _too_slow(self) -> None:
        self._deadline = None
        if self._in_head and not self.transport.is_closing():
            self.logger.debug("request head from %s not complete in %.1f s: closed",
                              self._address, self.header_timeout)
            self.transport.abort()


def guarded_protocol(settings: Settings) -> type[GuardedHttpTools]:
    """The HTTP protocol class for uvicorn's `http` option, bound to `settings`' limits;
    its `idle` is shared by every connection (and the --lan listener)."""
    attrs: dict[str, Any] = {
        "idle": IdleConnections(settings.max_idle_per_address,
                                TrustedProxies.parse(settings.trusted_proxies)),
        "header_timeout": settings.header_timeout,
        "max_header": settings.max_header,
    }
    return type("SussurroHttp", (GuardedHttpTools,), attrs)
