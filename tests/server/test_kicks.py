"""Issue 8, "a kicked player rejoins at once under the same name": a kick keeps the token
out and bans the name's folded form for the room's life (across restarts) unless the host
lets them back with `unban`."""

from __future__ import annotations

import httpx
import pytest

from server.client import Client
from tests.server.roomkit import close_all, request, seated


def join(srv, code: str, name: str) -> httpx.Response:
    return httpx.post(srv.url(f"/api/rooms/{code}/join"), json={"name": name})


async def test_a_kicked_name_stays_out_until_the_host_lets_it_back_even_after_a_restart(server):
    clients = await seated(server, 4)
    host, bob, cy = clients[0], clients[1], clients[2]
    try:
        mark = host.mark()
        await host.send("kick", player=bob.player)
        room = await host.wait_for(lambda m: m["type"] == "room" and len(m["players"]) == 3,
                                   since=mark)
        assert room["banned"] == ["Bob"]
        assert await bob.wait_closed() == 4003

        # The same name, in any case or spacing, is refused; another name is not.
        for name in ("Bob", "BOB", " bob "):
            r = join(server, host.code, name)
            assert r.status_code == 403 and r.json()["code"] == "name_banned", (name, r.text)
        assert join(server, host.code, "Bobby").status_code == 200

        # Only the host lets a name back, and only a banned one.
        err = await request(cy, "unban", "u1", name="Bob")
        assert err["code"] == "not_host"
        err = await request(host, "unban", "u2", name="Nobody")
        assert err["code"] == "not_banned"

        # The ban survives a restart.
        mark = cy.mark()
        await host.send("kick", player=cy.player)
        await host.wait_for(lambda m: m["type"] == "room" and m["banned"] == ["Bob", "Cy"],
                            since=mark)
        await close_all(clients)
        server.restart()
        r = join(server, host.code, "Cy")
        assert r.status_code == 403 and r.json()["code"] == "name_banned", r.text
        await host.connect()
        assert host.room["banned"] == ["Bob", "Cy"]

        mark = host.mark()
        await host.send("unban", name="bob")  # matched folded, as the ban is
        room = await host.wait_for(lambda m: m["type"] == "room", since=mark)
        assert room["banned"] == ["Cy"]
        back = join(server, host.code, "Bob")
        assert back.status_code == 200, back.text
        # Let back in means a new seat: the old token stays revoked.
        with pytest.raises(ConnectionError):
            await Client(bob.base_url, bob.code, bob.player, bob.token).connect()
    finally:
        await close_all(clients)
