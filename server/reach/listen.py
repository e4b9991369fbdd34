"""HTTP and HTTPS on one port: uvicorn behind a listener that looks at the first byte.

With HTTPS on (`--lan`, or `--certfile`), players may type the address
without "https://", and phones open plain http by default: that visit must
reach the first-visit page that explains the certificate warning (served
over http) rather than a connection error. So one port speaks both: a TLS
connection starts with a handshake record (first byte 0x16), an HTTP request
with a letter. The listener peeks at that byte without taking it and hands
the socket to uvicorn's own protocol, wrapped in TLS or not. One port to
remember, one port to open in a firewall.

Only uvicorn's listening part is replaced (its `startup` is given no socket
of its own); its protocols, lifespan, graceful shutdown and connection
bookkeeping are the usual ones.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import ssl
from typing import Any

import uvicorn

log = logging.getLogger(__name__)

TLS_HANDSHAKE = 0x16
# A connection that says nothing this long is closed (the first byte decides its kind);
# with the head guard (server/edge/headguard.py), its `header_timeout` instead.
SNIFF_TIMEOUT = 10.0
HANDSHAKE_TIMEOUT = 10.0
# Connections still waiting for their first byte; beyond this new ones are closed at once.
MAX_PENDING = 512


def bind_sockets(host: str, port: int) -> list[socket.socket]:
    """Listening sockets for `host` ("" or "::": every interface, IPv4 and IPv6)."""
    if host in ("", "::", "0.0.0.0"):
        if host != "0.0.0.0" and socket.has_dualstack_ipv6():
            try:
                return [socket.create_server(("::", port), family=socket.AF_INET6,
                                             dualstack_ipv6=True, reuse_port=False)]
            except OSError:
                pass  # IPv6 disabled: IPv4 alone
        return [socket.create_server(("0.0.0.0", port))]
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    family, *_, addr = infos[0]
    return [socket.create_server(addr[:2], family=family)]


class SniffingServer(uvicorn.Server):
    """uvicorn serving plain HTTP and TLS on the same sockets.

    `tls` is the server-side SSL context; connections whose first byte is a TLS
    handshake get it, the others are plain HTTP.
    """

    def __init__(self, config: uvicorn.Config, sockets: list[socket.socket],
                 tls: ssl.SSLContext) -> None:
        super().__init__(config)
        self.listen_sockets = sockets
        self.tls = tls
        self._accepting: list[asyncio.Task[None]] = []
        self._pending: set[asyncio.Task[None]] = set()

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        # No sockets for uvicorn itself: lifespan start-up and state only.
        await super().startup(sockets=[])
        if self.should_exit:
            return
        for sock in self.listen_sockets:
            sock.setblocking(False)
            self._accepting.append(asyncio.create_task(self._accept(sock)))
            name = sock.getsockname()
            log.info("listening on %s port %d (http and https)", name[0], name[1])

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        for task in self._accepting:
            task.cancel()
        for task in list(self._pending):
            task.cancel()
        for sock in self.listen_sockets:
            sock.close()
        await super().shutdown(sockets=[])

    def _protocol(self) -> asyncio.Protocol:
        # What uvicorn's own create_server would build for each connection.
        return self.config.http_protocol_class(  # type: ignore[call-arg]
            config=self.config, server_state=self.server_state, app_state=self.lifespan.state)

    async def _accept(self, sock: socket.socket) -> None:
        loop = asyncio.get_running_loop()
        while True:
            try:
                conn, _ = await loop.sock_accept(sock)
            except asyncio.CancelledError:
                raise
            except OSError as exc:  # out of file descriptors, for example: breathe
                log.warning("accept failed: %s", exc)
                await asyncio.sleep(0.1)
                continue
            # One address may not take them all (server/edge/headguard.py): its silent
            # connections count with its incomplete requests.
            address = _address(conn)
            if len(self._pending) >= MAX_PENDING or self.should_exit or not self._admit(address):
                conn.close()
                continue
            task = asyncio.create_task(self._hand_over(conn, address))
            self._pending.add(task)
            task.add_done_callback(self._pending.discard)

    def _idle(self) -> Any:
        """The per-address count of the protocol's head guard, if it has one."""
        return getattr(self.config.http_protocol_class, "idle", None)

    def _admit(self, address: str | None) -> bool:
        idle = self._idle()
        return idle is None or idle.admit(address)

    async def _hand_over(self, conn: socket.socket, address: str | None = None) -> None:
        loop = asyncio.get_running_loop()
        conn.setblocking(False)
        try:
            try:
                first = await asyncio.wait_for(_peek(conn), getattr(
                    self.config.http_protocol_class, "header_timeout", SNIFF_TIMEOUT))
            finally:
                # Counted again by the protocol, until its first request head is whole.
                if self._idle() is not None:
                    self._idle().release(address)
        except (TimeoutError, OSError, asyncio.CancelledError):
            conn.close()
            return
        if not first:  # closed before saying anything
            conn.close()
            return
        tls = first[0] == TLS_HANDSHAKE
        try:
            await loop.connect_accepted_socket(
                self._protocol, conn, ssl=self.tls if tls else None,
                ssl_handshake_timeout=HANDSHAKE_TIMEOUT if tls else None)
        except (OSError, ssl.SSLError, TimeoutError, asyncio.CancelledError) as exc:
            # A phone that has not accepted the certificate yet closes here: normal.
            log.debug("connection dropped before it started: %r", exc)
            conn.close()


def _address(conn: socket.socket) -> str | None:
    try:
        return str(conn.getpeername()[0])
    except (OSError, IndexError):
        return None


async def _peek(conn: socket.socket) -> bytes:
    """The connection's first byte, left in the socket for whoever reads next."""
    loop = asyncio.get_running_loop()
    fd = conn.fileno()
    while True:
        ready = loop.create_future()
        loop.add_reader(fd, lambda r=ready: r.done() or r.set_result(None))
        try:
            await ready
        finally:
            with contextlib.suppress(Exception):
                loop.remove_reader(fd)
        try:
            return conn.recv(1, socket.MSG_PEEK)
        except (BlockingIOError, InterruptedError):
            continue  # a spurious wake-up: wait again
