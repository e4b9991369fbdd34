"""Issue 8, "a kicked player rejoins at once under the same name": a kick keeps the token
out and bans the name's folded form for the room's life (across restarts) unless the host
lets them back with `unban`."""

from __future__ import annotations

import httpx
import pytest

from client.protocol_client import Client
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


def watch(srv, code: str, device: str | None = None) -> httpx.Response:
    cookies = {"sussurro_device": device} if device else None
    return httpx.post(srv.url(f"/api/rooms/{code}/watch"), cookies=cookies)


async def test_issue29_7_a_ban_keeps_the_person_out_of_every_door_of_the_room(server):
    """Issue 29 item 7: a kicked person's name was refused but `POST /watch` gave them a
    pass, with the room's views and voice. The ban now also names the devices (the
    browser's `sussurro_device` cookie) of the kicked seat: that browser gets no pass and
    no seat under another name, every pass it held is closed at the kick, and letting the
    name back in lets the device back too."""
    bob_device = "bobs-browser-" + "x" * 20
    tv_device = "the-real-tv-" + "y" * 20
    host = await Client.create(server.base_url, "Ada")
    r = httpx.post(server.url(f"/api/rooms/{host.code}/join"), json={"name": "Bob"},
                   cookies={"sussurro_device": bob_device})
    assert r.status_code == 200, r.text
    bob = Client(server.base_url, host.code, r.json()["player"], r.json()["token"])
    # Bob's browser also opened the room's shared screen; the real TV has its own.
    r = watch(server, host.code, bob_device)
    bobs_pass = Client(server.base_url, host.code, r.json()["spectator"], r.json()["token"])
    r = watch(server, host.code, tv_device)
    tv = Client(server.base_url, host.code, r.json()["spectator"], r.json()["token"])
    clients = [host, bob, bobs_pass, tv]
    try:
        for c in clients:
            await c.connect()
        mark = host.mark()
        await host.send("kick", player=bob.player)
        room = await host.wait_for(lambda m: m["type"] == "room" and len(m["players"]) == 1
                                   and len(m["passes"]) == 1, since=mark)
        assert room["banned"] == ["Bob"]
        assert room["passes"] == [{"id": tv.player, "online": True}]
        # Bob's seat and Bob's pass are closed; the real TV still watches.
        assert await bob.wait_closed() == 4003
        assert await bobs_pass.wait_closed() == 4003
        assert bobs_pass.errors[-1]["code"] == "kicked"
        assert not tv.closed
        # The pass's token no longer opens anything (so no voice offer is ever answered).
        with pytest.raises(ConnectionError):
            await Client(server.base_url, host.code, bobs_pass.player,
                         bobs_pass.token).connect(timeout=3)
        # Bob's browser gets no new pass, and no seat under another name.
        r = watch(server, host.code, bob_device)
        assert (r.status_code, r.json()["code"]) == (403, "banned"), r.text
        r = httpx.post(server.url(f"/api/rooms/{host.code}/join"), json={"name": "Roberto"},
                       cookies={"sussurro_device": bob_device})
        assert (r.status_code, r.json()["code"]) == (403, "banned"), r.text
        # Another browser still does (a ban is no lock on the room).
        assert watch(server, host.code, "someone-else-" + "z" * 20).status_code == 200
        # The ban survives a restart, devices included.
        await close_all(clients)
        server.restart()
        r = watch(server, host.code, bob_device)
        assert (r.status_code, r.json()["code"]) == (403, "banned"), r.text
        # Let back in: the name and the device.
        await host.connect()
        mark = host.mark()
        await host.send("unban", name="Bob")
        await host.wait_for(lambda m: m["type"] == "room" and m["banned"] == [], since=mark)
        assert watch(server, host.code, bob_device).status_code == 200
    finally:
        await close_all(clients)


async def test_issue29_7_the_server_gives_each_browser_a_device_cookie_once(server):
    """The device cookie is set (HttpOnly, SameSite) on a create, join or watch that
    came without one, and kept when the browser sends a well-formed one."""
    with httpx.Client(base_url=server.base_url) as browser:
        r = browser.post("/api/rooms", json={"name": "Ada"})
        assert r.status_code == 200
        cookie = r.headers["set-cookie"]
        assert cookie.startswith("sussurro_device=") and "HttpOnly" in cookie
        assert "samesite=lax" in cookie.lower()
        first = browser.cookies["sussurro_device"]
        code = r.json()["code"]
        r = browser.post(f"/api/rooms/{code}/watch")
        assert r.status_code == 200 and "set-cookie" not in r.headers
        assert browser.cookies["sussurro_device"] == first


def in_browser(client: Client, device: str) -> Client:
    """`client`'s socket opened in the browser whose device cookie is `device`."""
    client.headers = {"Cookie": f"sussurro_device={device}"}
    return client


async def still_open_or_closed(client: Client) -> int | str | None:
    """`client`'s close code, or "open" (and what it received) if it is open 2 s on."""
    try:
        return await client.wait_closed(timeout=2)
    except TimeoutError:
        return f"open, received {[m['type'] for m in client.messages[-4:]]}"


async def test_issue37_2_a_kick_closes_every_socket_of_the_banned_browser(server):
    """Issue 37 item 2: a pass taken by another device (no cookie: a `curl`, a link
    shared by a friend) and open in the kicked player's browser stayed open after the
    kick and kept receiving `room` and `view`: the kick ended passes by the device that
    took them, not by the device of the socket holding them. Every socket of the banned
    browser now ends with the kick (4003): its passes, and any other seat open there;
    the host's seat and other browsers' screens stay."""
    bob_device = "bobs-browser-" + "x" * 20
    tv_device = "the-real-tv-" + "y" * 20
    host = await Client.create(server.base_url, "Ada")
    r = httpx.post(server.url(f"/api/rooms/{host.code}/join"), json={"name": "Bob"},
                   cookies={"sussurro_device": bob_device})
    bob = in_browser(Client(server.base_url, host.code, r.json()["player"], r.json()["token"]),
                     bob_device)
    # A pass and a seat taken by no browser of Bob's, both opened in Bob's browser.
    r = watch(server, host.code)
    bobs_pass = in_browser(Client(server.base_url, host.code, r.json()["spectator"],
                                  r.json()["token"]), bob_device)
    r = httpx.post(server.url(f"/api/rooms/{host.code}/join"), json={"name": "Roberto"})
    roberto = in_browser(Client(server.base_url, host.code, r.json()["player"],
                                r.json()["token"]), bob_device)
    r = watch(server, host.code, tv_device)
    tv = in_browser(Client(server.base_url, host.code, r.json()["spectator"],
                           r.json()["token"]), tv_device)
    clients = [host, bob, bobs_pass, roberto, tv]
    try:
        for c in clients:
            await c.connect()
        mark = host.mark()
        await host.send("kick", player=bob.player)
        room = await host.wait_for(lambda m: m["type"] == "room" and m["banned"] == ["Bob"],
                                   since=mark)
        await bob.wait_closed(timeout=3)
        kicked = [(c.player, await still_open_or_closed(c)) for c in (bob, bobs_pass, roberto)]
        assert kicked == [(c.player, 4003) for c in (bob, bobs_pass, roberto)]
        assert all(c.errors[-1]["code"] == "kicked" for c in (bob, bobs_pass, roberto))
        room = await host.wait_for(lambda m: m["type"] == "room" and len(m["players"]) == 1
                                   and len(m["passes"]) == 1, since=mark)
        assert room["passes"] == [{"id": tv.player, "online": True}]
        assert [p["id"] for p in room["players"]] == [host.player]
        assert not tv.closed and not host.closed
        # Nothing of the room reaches that browser any more, and its tokens open nothing.
        for c in (bobs_pass, roberto):
            with pytest.raises(ConnectionError):
                await Client(server.base_url, host.code, c.player, c.token).connect(timeout=3)
    finally:
        await close_all(clients)
