"""A loopback TCP proxy a test can cut: a network partition between one process and another.

    from tests.support.tcp_proxy import TcpProxy

    with TcpProxy(upstream_port) as proxy:    # listens on a free loopback port
        proxy.port                            # connect here instead of upstream
        proxy.cut()     # every connection through it is reset, new ones are reset at once
        proxy.heal()    # new connections go through again

Threads only (one per direction of each connection), so it runs beside a test's own
event loop; everything is closed at exit.
"""

from __future__ import annotations

import contextlib
import socket
import struct
import threading

from tests.support.server_proc import free_port


def _reset(sock: socket.socket) -> None:
    """Close with a RST (SO_LINGER 0), as a broken network path looks to the client."""
    with contextlib.suppress(OSError):
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)  # wakes the thread reading it
    with contextlib.suppress(OSError):
        sock.close()


class TcpProxy:
    """Forward 127.0.0.1:`port` to 127.0.0.1:`upstream` until cut."""

    def __init__(self, upstream: int | None = None, port: int | None = None) -> None:
        self.upstream = upstream
        self.port = port or free_port()
        self.cut_off = False
        self._lock = threading.Lock()
        self._pairs: list[tuple[socket.socket, socket.socket]] = []
        self._listener: socket.socket | None = None
        self._closed = False

    def start(self) -> TcpProxy:
        assert self.upstream is not None, "the upstream port is set before start()"
        srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        srv.bind(("127.0.0.1", self.port))
        srv.listen(64)
        self._listener = srv
        threading.Thread(target=self._accept, name="tcp-proxy", daemon=True).start()
        return self

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            if self.cut_off:
                _reset(client)
                continue
            try:
                up = socket.create_connection(("127.0.0.1", self.upstream), timeout=5)
                up.settimeout(None)
            except OSError:
                _reset(client)
                continue
            with self._lock:
                self._pairs.append((client, up))
            for a, b in ((client, up), (up, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket) -> None:
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                dst.sendall(data)
        except OSError:
            pass
        _reset(src)
        _reset(dst)

    def cut(self) -> None:
        """Reset every connection through the proxy; refuse (reset) new ones until heal()."""
        self.cut_off = True
        with self._lock:
            pairs, self._pairs = self._pairs, []
        for a, b in pairs:
            _reset(a)
            _reset(b)

    def heal(self) -> None:
        self.cut_off = False

    def stop(self) -> None:
        self._closed = True
        self.cut()
        if self._listener is not None:
            with contextlib.suppress(OSError):
                self._listener.close()

    def __enter__(self) -> TcpProxy:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
