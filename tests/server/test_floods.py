"""Issue 8, "reconnect floods": one seat opening and closing its socket over and over is
throttled, the other players get a bounded number of `room` messages (broadcasts are
coalesced), presence is written to the database only when it changes, and a slow reader
in the room is not disconnected for the flood."""

from __future__ import annotations

import asyncio
import json
import re
import socket

import httpx
import pytest
import websockets

from client.protocol_client import Client
from tests.server.roomkit import close_all, seated
from tests.support.server_proc import ServerProc

CYCLES = 150
BURST = 10


def db_changes(base_url: str) -> int:
    text = httpx.get(base_url + "/metrics", timeout=5).text
    return int(float(re.search(r"^sussurro_db_changes_total (\S+)$", text, re.M).group(1)))


async def cycle(url: str) -> tuple[dict, int | None]:
    """Open the seat's socket and close it at once: its first message and close code."""
    async with websockets.connect(url) as ws:
        first = json.loads(await ws.recv())
        if first["type"] == "error":
            with pytest.raises(websockets.ConnectionClosed):
                await asyncio.wait_for(ws.recv(), 5)
            return first, ws.close_code
    return first, None


async def flood(url: str, n: int) -> list[tuple[dict, int | None]]:
    """`n` open/close cycles of one seat, ten at a time."""
    out: list[tuple[dict, int | None]] = []
    for i in range(0, n, 10):
        out += await asyncio.gather(*(cycle(url) for _ in range(min(10, n - i))))
    return out


class SlowReader:
    """A seat's socket that stops reading: a tiny receive buffer, then reading paused."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.ws = None
        self.messages: list[dict] = []

    async def open(self) -> None:
        host, port = re.match(r"ws://([^:/]+):(\d+)/", self.url).groups()
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.setblocking(False)
        await asyncio.get_running_loop().sock_connect(sock, (host, int(port)))
        self.ws = await websockets.connect(self.url, sock=sock, max_queue=None)
        while not any(m["type"] == "room" for m in self.messages):
            self.messages.append(json.loads(await self.ws.recv()))
        self.ws.transport.pause_reading()

    async def catch_up(self, until, timeout: float = 10.0) -> dict:
        """Read again, up to the first message with `until(msg)`."""
        self.ws.transport.resume_reading()
        async with asyncio.timeout(timeout):
            while True:
                msg = json.loads(await self.ws.recv())
                self.messages.append(msg)
                if until(msg):
                    return msg


@pytest.fixture
def flood_server(tmp_path):
    env = {"SUSSURRO_WS_CONNECT_BURST": str(BURST), "SUSSURRO_WS_CONNECT_RATE": "0.5",
           "SUSSURRO_SEND_QUEUE": "32"}
    with ServerProc(tmp_path / "flood.db", env=env) as srv:
        yield srv


def online(pid: str, yes: bool = True):
    return lambda m: m["type"] == "room" and next(
        p for p in m["players"] if p["id"] == pid)["online"] is yes


async def test_a_reconnect_flood_is_throttled_coalesced_written_once_and_spares_slow_readers(
        flood_server):
    # A full table: each `room` message is about 2 KB, as in a real evening.
    host = await Client.create(flood_server.base_url, "Host")
    clients = [host] + [await Client.join(flood_server.base_url, host.code, f"Player {i}")
                        for i in range(1, 16)]
    bob, slow, dee = clients[1:4]
    await host.connect()
    reader = SlowReader(slow.ws_url)
    await reader.open()
    try:
        mark = host.mark()
        writes = db_changes(flood_server.base_url)
        results = await flood(bob.ws_url, CYCLES)

        accepted = [f for f, _ in results if f["type"] == "welcome"]
        refused = [(f, c) for f, c in results if f["type"] == "error"]
        assert len(accepted) + len(refused) == CYCLES
        # Past the seat's burst (plus what refills meanwhile), every connect is refused,
        # with a code the client understands and "try again later".
        assert len(accepted) <= BURST + 3, len(accepted)
        assert all(f["code"] == "rate_limited" and f["retry_after"] > 0 and c == 1013
                   for f, c in refused), refused[:3]

        assert db_changes(flood_server.base_url) - writes == 0  # the host stayed online
        # Then one real change: everyone hears of it, after a bounded number of rooms.
        await dee.connect()
        await host.wait_for(online(dee.player), since=mark)
        rooms = [m for m in host.messages[mark:] if m["type"] == "room"]
        assert len(rooms) <= 12, len(rooms)

        # The slow reader is still there and gets the latest roster, once: what waited
        # for it was the newest state, not every step (its queue stays small).
        before = len(reader.messages)
        final = await reader.catch_up(online(dee.player))
        assert not next(p for p in final["players"] if p["id"] == bob.player)["online"]
        assert reader.ws.close_code is None
        waited = [m for m in reader.messages[before:] if m["type"] == "room"]
        assert len(waited) <= 3, len(waited)
    finally:
        await reader.ws.close()
        await close_all(clients)


async def test_room_broadcasts_are_coalesced_when_the_throttle_lets_a_flood_through(server):
    # The default server of the tests has its throttles wide open: every connect is
    # accepted, and the other players still get a handful of `room` messages, not 200.
    clients = await seated(server, 3)
    host, bob, cy = clients
    try:
        # Everyone seen online first: coalescing may fold a quick online-offline into nothing.
        await host.wait_for(lambda m: m["type"] == "room" and all(p["online"] for p in m["players"]))
        seen = host.mark()
        await bob.close()
        await host.wait_for(online(bob.player, False), since=seen)
        mark = host.mark()
        writes = db_changes(server.base_url)
        loop = asyncio.get_running_loop()
        t0 = loop.time()
        results = await flood(bob.ws_url, 60)
        took = loop.time() - t0
        assert all(f["type"] == "welcome" for f, _ in results)
        await cy.close()  # a last change, after the flood
        await host.wait_for(online(cy.player, False), since=mark)
        rooms = [m for m in host.messages[mark:] if m["type"] == "room"]
        # at most one per 0.2 s window while it lasts (and the last state once)
        assert len(rooms) <= took / 0.2 + 3, (len(rooms), took)
        # presence did not change for the room (the host stayed online): nothing written
        assert db_changes(server.base_url) - writes == 0
        assert not online(bob.player)(rooms[-1])
    finally:
        await close_all(clients)
