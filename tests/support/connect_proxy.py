"""An HTTP CONNECT proxy on 127.0.0.1 that tunnels to 127.0.0.1 only (anything else is
refused and closed), and remembers each tunnel: what a browser's WebRTC stack uses to
reach a TURN server over loopback (tests/browser/firefox.py, `turn_over_loopback`).

    with ConnectProxy() as proxy:
        proxy.port        # the browser's proxy
        proxy.tunnels     # [("127.0.0.1:PORT", ("127.0.0.1", client_port)), ...]

Threads only (one per direction of each tunnel), closed at exit."""

from __future__ import annotations

import contextlib
import select
import socket
import threading


class ConnectProxy:
    def __init__(self) -> None:
        self.tunnels: list[tuple[str, tuple]] = []
        self.refused: list[str] = []
        self._sock = socket.socket()
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(32)
        self.port = self._sock.getsockname()[1]
        self._open: list[socket.socket] = []
        self._closed = False

    def __enter__(self) -> ConnectProxy:
        threading.Thread(target=self._accept, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self._closed = True
        for s in [self._sock, *self._open]:
            with contextlib.suppress(OSError):
                s.close()

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self._sock.accept()
            except OSError:
                return
            self._open.append(client)
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client: socket.socket) -> None:
        with contextlib.suppress(OSError), client:
            head = b""
            while b"\r\n\r\n" not in head:
                chunk = client.recv(4096)
                if not chunk or len(head) > 16384:
                    return
                head += chunk
            words = head.split(b"\r\n", 1)[0].decode("latin-1").split()
            host, _, port = words[1].rpartition(":") if len(words) == 3 else ("", "", "")
            if words[:1] != ["CONNECT"] or host != "127.0.0.1" or not port.isdigit():
                self.refused.append(" ".join(words[:2]))
                client.sendall(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n")
                return
            upstream = socket.create_connection(("127.0.0.1", int(port)), timeout=5)
            self._open.append(upstream)
            self.tunnels.append((words[1], client.getpeername()))
            client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
            with upstream:
                self._pipe(client, upstream, head.split(b"\r\n\r\n", 1)[1])

    def _pipe(self, a: socket.socket, b: socket.socket, early: bytes) -> None:
        if early:
            b.sendall(early)
        a.settimeout(None)
        b.settimeout(None)
        while not self._closed:
            ready, _, _ = select.select([a, b], [], [], 1.0)
            for s in ready:
                data = s.recv(65536)
                if not data:
                    return
                (b if s is a else a).sendall(data)
