"""Frames written straight to the socket (server/wire/wsdirect.py), and the writer where not.

A message sent while a socket's queue is empty and its writer idle is framed here and
written at once; anything else takes the writer task. Both paths run against a real
uvicorn (in this process, so the test can hold the `Connection`) and real WebSocket
clients: the bytes must be the ones websockets itself frames, every message must
arrive whole and in the order sent, a reader that stops reading must get its backlog
through the writer (or be closed as too slow), and every socket the direct path does
not fit (the switch off, another uvicorn protocol, deflate negotiated, a closed peer)
must get everything through the writer.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import json
import logging
import socket
import ssl
import types
import warnings
from typing import Any

import httpx
import pytest
import uvicorn
import websockets
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.routing import WebSocketRoute
from uvicorn.config import UvicornDeprecationWarning
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.client import ClientProtocol
from websockets.frames import Close, Frame, Opcode
from websockets.uri import parse_uri

from client.protocol_client import Client
from server.reach.lan import LanIdentity
from server.reach.tls import make_certificate
from server.wire import connection
from server.wire.connection import Connection
from server.wire.protocol import CLOSE_SLOW
from server.wire.wsdirect import SCOPE_KEY, DirectFrames, RawSend, frame_of, text_frame
from tests.server.roomkit import close_all, seated


@contextlib.asynccontextmanager
async def serving(max_queue: int = 512, **config: Any):
    """A uvicorn on a free loopback port whose /ws hands each accepted socket's
    `Connection` to the test (through the yielded queue); the endpoint reads until the
    peer goes."""
    conns: asyncio.Queue[Connection] = asyncio.Queue()

    async def endpoint(ws) -> None:
        await ws.accept()
        conn = Connection(ws, max_queue)
        conn.start()
        await conns.put(conn)
        try:
            while (await ws.receive())["type"] != "websocket.disconnect":
                pass
        finally:
            await conn.stop()

    app = Starlette(routes=[WebSocketRoute("/ws", endpoint)], middleware=[Middleware(RawSend)])
    options = {"ws_per_message_deflate": False, "log_level": "warning", **config}
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, lifespan="off",
                                           **options))
    task = asyncio.create_task(server.serve())
    while not server.started:
        assert not task.done(), task.exception()
        await asyncio.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"ws://127.0.0.1:{port}/ws", conns
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, 15)


def counts() -> dict[str, int]:
    return dict(connection.MESSAGES)


def numbered(n: int, pad: int = 0) -> str:
    return json.dumps({"type": "n", "n": n, "pad": "x" * pad})


# What each test sends: every kind of send, a frame of each length form, non-ASCII.
SENT = [
    ("send", {"type": "welcome", "n": 0}),
    ("send_text", json.dumps({"type": "cue", "n": 1, "name": "è già notte"})),
    ("send_latest", json.dumps({"type": "mouths", "n": 2, "levels": {"p1": 0.5}})),
    ("send_room", json.dumps({"type": "room", "n": 3})),
    ("send_text", json.dumps({"type": "view", "n": 4, "pad": "y" * 200})),
    ("send_text", json.dumps({"type": "view", "n": 5, "pad": "z" * 70_000})),
    ("send_latest", json.dumps({"type": "mouths", "n": 6, "levels": {}})),
]


def send_all(conn: Connection) -> None:
    for how, message in SENT:
        if how == "send_latest":
            conn.send_latest("mouths", message)
        else:
            getattr(conn, how)(message)


def expected() -> list[Any]:
    return [m if isinstance(m, dict) else json.loads(m) for _, m in SENT]


# -- the frame ---------------------------------------------------------------------------

@pytest.mark.parametrize("size", [0, 1, 125, 126, 127, 65_535, 65_536, 70_000])
def test_a_text_frame_is_byte_for_byte_the_one_websockets_writes(size):
    text = ("è" * size)[: size // 2] + "a" * (size - size // 2)  # two-byte characters too
    ours = text_frame(text)
    theirs = Frame(Opcode.TEXT, text.encode()).serialize(mask=False, extensions=[])
    assert ours == theirs


def test_a_text_sent_to_many_sockets_is_framed_once_and_another_text_gets_its_own_frame():
    shared = json.dumps({"type": "mouths", "levels": {"p1": 0.25}})
    first = frame_of(shared)
    assert frame_of(shared) is first  # the same object for the next socket
    other = json.dumps({"type": "mouths", "levels": {"p1": 0.75}})
    assert frame_of(other) == text_frame(other) != first
    equal_but_new = "".join([shared[:5], shared[5:]])  # equal text, another object
    assert frame_of(equal_but_new) == first


# -- the direct path ---------------------------------------------------------------------

async def test_messages_sent_while_the_writer_idles_go_straight_to_the_socket_in_order():
    async with serving() as (url, conns):
        async with websockets.connect(url, max_size=None) as client:
            conn = await asyncio.wait_for(conns.get(), 5)
            assert conn.direct is not None
            before = counts()
            send_all(conn)
            after = counts()
            # Every one written during the call, the writer never woken.
            assert after["direct"] - before["direct"] == len(SENT)
            assert after["writer"] == before["writer"]
            got = [json.loads(await asyncio.wait_for(client.recv(), 5)) for _ in SENT]
            assert got == expected()


async def test_over_tls_the_frames_go_straight_into_the_encrypted_socket(tmp_path):
    """`--lan` serves HTTPS: the transport is asyncio's TLS one, which the frames go
    into the same way (it encrypts what it is given, in order)."""
    cert, key = make_certificate(LanIdentity(("localhost",), ("127.0.0.1",), "127.0.0.1"),
                                 dt.datetime.now(dt.UTC))
    (tmp_path / "c.pem").write_bytes(cert)
    (tmp_path / "k.pem").write_bytes(key)
    tls = ssl.create_default_context(cafile=tmp_path / "c.pem")
    async with serving(ssl_certfile=tmp_path / "c.pem", ssl_keyfile=tmp_path / "k.pem") \
            as (url, conns):
        async with websockets.connect(url.replace("ws://", "wss://"), ssl=tls,
                                      max_size=None) as client:
            conn = await asyncio.wait_for(conns.get(), 5)
            assert conn.direct is not None
            before = counts()
            send_all(conn)
            assert counts()["direct"] - before["direct"] == len(SENT)
            got = [json.loads(await asyncio.wait_for(client.recv(), 5)) for _ in SENT]
            assert got == expected()


async def test_a_room_socket_of_the_real_server_takes_the_direct_path(shared_server):
    """`sussurro serve` (uvicorn's own choice of protocol, the app's middleware): the
    messages a player gets on joining are written straight to the socket."""
    async def direct() -> float:
        async with httpx.AsyncClient() as http:
            text = (await http.get(shared_server.base_url + "/metrics")).text
        line = next(x for x in text.splitlines()
                    if x.startswith("sussurro_ws_messages_direct_total "))
        return float(line.split()[1])

    before = await direct()
    clients: list[Client] = await seated(shared_server, 2)
    try:
        assert await direct() > before
    finally:
        await close_all(clients)


class RawReader:
    """A WebSocket client that reads only when told to (websockets' sans-I/O protocol on
    a plain socket with a small receive buffer): a phone that stopped reading."""

    def __init__(self, url: str) -> None:
        self.proto = ClientProtocol(parse_uri(url), max_size=None)
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        self.url = url
        self.messages: list[str] = []
        self.close_code: int | None = None

    async def open(self) -> None:
        loop = asyncio.get_running_loop()
        self.sock.setblocking(False)
        uri = parse_uri(self.url)
        await loop.sock_connect(self.sock, (uri.host, uri.port))
        self.proto.send_request(self.proto.connect())
        await loop.sock_sendall(self.sock, b"".join(self.proto.data_to_send()))
        while self.proto.handshake_exc is None and not self._handshaken():
            self.proto.receive_data(await loop.sock_recv(self.sock, 65536))
        assert self.proto.handshake_exc is None

    def _handshaken(self) -> bool:
        return self.proto.state.name == "OPEN"

    async def read(self, count: int, timeout: float = 20.0) -> None:
        """Read until `count` messages (or the close) have come."""
        loop = asyncio.get_running_loop()
        async with asyncio.timeout(timeout):
            while len(self.messages) < count and self.close_code is None:
                data = await loop.sock_recv(self.sock, 1 << 20)
                if not data:
                    break
                self.proto.receive_data(data)
                for event in self.proto.events_received():
                    if isinstance(event, Frame) and event.opcode is Opcode.TEXT:
                        self.messages.append(event.data.decode())
                    elif isinstance(event, Frame) and event.opcode is Opcode.CLOSE:
                        self.close_code = Close.parse(event.data).code
                        break
                await loop.sock_sendall(self.sock, b"".join(self.proto.data_to_send()))

    def close(self) -> None:
        self.sock.close()


async def test_a_reader_that_stops_reading_gets_its_backlog_through_the_writer_in_order():
    count, pad = 400, 32_000  # ~12.8 MB: far more than both sockets' buffers
    async with serving() as (url, conns):
        reader = RawReader(url)
        try:
            await reader.open()
            conn = await asyncio.wait_for(conns.get(), 5)
            assert conn.direct is not None
            before = counts()
            for n in range(count):
                conn.send_text(numbered(n, pad))
                if n % 20 == 0:
                    await asyncio.sleep(0)  # the loop runs: the transport can fill up
            written_now = counts()["direct"] - before["direct"]
            # The first ones went straight out; once the socket backed up, the queue.
            assert 0 < written_now < count
            assert not conn.closed
            await reader.read(count)
            assert [json.loads(m)["n"] for m in reader.messages] == list(range(count))
            after = counts()
            assert after["direct"] - before["direct"] + after["writer"] - before["writer"] \
                == count
        finally:
            reader.close()


async def test_a_reader_that_never_reads_is_still_closed_as_too_slow():
    async with serving(max_queue=8) as (url, conns):
        reader = RawReader(url)
        try:
            await reader.open()
            conn = await asyncio.wait_for(conns.get(), 5)
            assert conn.direct is not None
            for n in range(300):
                conn.send_text(numbered(n, 64_000))
                await asyncio.sleep(0)
            assert conn.closed
            # What it then reads came in the order sent (the queue's oldest may have made
            # room for the close), far from all of it, then the close.
            await reader.read(10_000)
            got = [json.loads(m)["n"] for m in reader.messages]
            assert got == sorted(set(got)) and 0 < len(got) < 300
            assert reader.close_code == CLOSE_SLOW
        finally:
            reader.close()


# -- where it does not apply: the writer sends everything ------------------------------

@pytest.mark.parametrize("where", ["switched off", "uvicorn's older websockets protocol",
                                   "deflate negotiated"])
async def test_where_the_direct_path_does_not_fit_the_writer_sends_everything(where,
                                                                              monkeypatch):
    config: dict[str, Any] = {}
    compression: str | None = None
    if where == "switched off":
        monkeypatch.setenv("SUSSURRO_DIRECT_WS", "0")
    elif where == "uvicorn's older websockets protocol":
        config["ws"] = "websockets"
    else:
        config["ws_per_message_deflate"] = True
        compression = "deflate"
    with warnings.catch_warnings():
        # The older protocol and websockets' legacy module say they are deprecated: true,
        # and the reason the direct path leaves them to the writer.
        warnings.simplefilter("ignore", UvicornDeprecationWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        async with serving(**config) as (url, conns):
            async with websockets.connect(url, max_size=None, compression=compression) as client:
                conn = await asyncio.wait_for(conns.get(), 5)
                assert conn.direct is None
                before = counts()
                send_all(conn)
                # All queued before the writer ran: the second `mouths` replaced the first.
                want = [m for m in expected() if m["n"] != 2]
                got = [json.loads(await asyncio.wait_for(client.recv(), 5)) for _ in want]
                assert got == want
                after = counts()
                assert after["direct"] == before["direct"]
                assert after["writer"] - before["writer"] == len(want)


def test_a_protocol_without_what_the_direct_path_reads_gets_the_writer(caplog):
    """A later uvicorn whose sans-I/O protocol lacks an attribute `write` reads (here:
    all of them, the object never initialised): no direct path, and the log says why."""
    proto = object.__new__(WebSocketsSansIOProtocol)
    ws = types.SimpleNamespace(scope={SCOPE_KEY: proto.send})
    with caplog.at_level(logging.INFO, logger="server.wire.wsdirect"):
        assert DirectFrames.of(ws) is None
    assert "uvicorn's protocol changed" in caplog.text


async def test_a_socket_whose_peer_left_takes_no_direct_write():
    async with serving() as (url, conns):
        client = await websockets.connect(url)
        conn = await asyncio.wait_for(conns.get(), 5)
        assert conn.direct is not None and conn.direct.open()
        await client.close()
        async with asyncio.timeout(5):
            while conn.direct.open():
                await asyncio.sleep(0.01)
        before = counts()
        conn.send({"type": "cue", "name": "too late"})  # no error, nothing written direct
        assert counts()["direct"] == before["direct"]
