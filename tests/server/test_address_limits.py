"""Issue 8, "one address can fill the server's global room cap": per-address caps on live
rooms and open sockets, and a per-address connect throttle (settings), on a real server."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from client.protocol_client import Client
from tests.support.server_proc import ServerProc


@pytest.fixture
def capped(tmp_path):
    env = {"SUSSURRO_MAX_ROOMS_PER_ADDRESS": "3", "SUSSURRO_MAX_SOCKETS_PER_ADDRESS": "4",
           "SUSSURRO_WS_ADDRESS_CONNECT_BURST": "8", "SUSSURRO_WS_ADDRESS_CONNECT_RATE": "0.01"}
    with ServerProc(tmp_path / "c.db", env=env) as srv:
        yield srv


async def _refused(client: Client) -> dict:
    with pytest.raises(ConnectionError):
        await client.connect()
    assert client.close_code == 1013  # try again later, not "gone for good"
    return client.errors[-1]


async def _connect_when_counted(client: Client) -> None:
    """Connect once the server has counted a closed socket out: the client sees the
    close handshake a moment before the server's socket handler has returned."""
    for _ in range(50):
        try:
            await client.connect()
            return
        except ConnectionError:
            assert client.errors[-1]["code"] == "too_many_connections", client.errors[-1]
            await asyncio.sleep(0.1)
    raise AssertionError("the closed socket was never counted out")


async def test_one_address_has_a_share_of_rooms_and_sockets_and_its_connects_are_throttled(
        capped):
    # Rooms: three live rooms per address, then 429 (the global cap stays for everyone else).
    codes = []
    for i in range(3):
        r = httpx.post(capped.url("/api/rooms"), json={"name": f"Host{i}"})
        assert r.status_code == 200, r.text
        codes.append(r.json()["code"])
    r = httpx.post(capped.url("/api/rooms"), json={"name": "Greedy"})
    assert r.status_code == 429 and r.json()["code"] == "too_many_rooms_here", r.text
    assert httpx.get(capped.url("/healthz")).json()["rooms"] == 3

    # Sockets: four open at once from this address, then refused until one closes.
    seats = [await Client.join(capped.base_url, codes[0], f"Sock{i}") for i in range(6)]
    try:
        for c in seats[:4]:
            await c.connect()
        err = await _refused(seats[4])
        assert err["code"] == "too_many_connections", err
        await seats[0].close()
        await _connect_when_counted(seats[4])  # a socket closed: room for one more

        # Connects: a burst of eight for the address (five taken so far: the refusal at
        # the cap took none), then throttled, even below the socket cap.
        for c in seats[1:4]:
            await c.close()
            await _connect_when_counted(c)
        await seats[1].close()
        for _ in range(50):
            err = await _refused(seats[1])
            if err["code"] != "too_many_connections":
                break  # (until then the server had not yet counted the closed socket out;
            await asyncio.sleep(0.1)  # a refusal at the cap takes no connect)
        assert err["code"] == "rate_limited" and err["retry_after"] > 0, err
    finally:
        for c in seats:
            await c.close()
