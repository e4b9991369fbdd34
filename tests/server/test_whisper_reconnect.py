"""Issue 29 item 1, "a whisperer goes public after a socket blip": a whisperer's hush
survives a socket change. Whoever whispered (or was hushed) when their socket closed is
still hushed on the new socket, until their own new gesture (`whisper_stop` or a new
`whisper_start`), and the new socket's `welcome` says so, so the page can show it.

Through a real server and real sockets. `whisper_stop` answering `hushed: false` proves
the hush was still held by the room (a seat that is not hushed gets no answer at all);
tests/e2e/test_whisper_drops.py checks the same with real voices in the mix.
"""

from __future__ import annotations

from client.protocol_client import Client
from tests.server.roomkit import close_all, next_clue, started


async def _debate(srv, n: int = 3) -> list[Client]:
    clients = await started(srv, n)
    while clients[0].view["phase"] == "clues":
        await next_clue(clients)
    for c in clients:
        await c.wait_view(lambda v: v["phase"] == "debate")
    return clients


async def _whisper(a: Client, b: Client) -> None:
    await a.send("whisper_start", to=b.player)
    await b.wait_for(lambda m: m["type"] == "whisper" and m["active"])


def _welcome(c: Client, since: int) -> dict:
    return next(m for m in c.messages[since:] if m["type"] == "welcome")


async def _stop_answer(a: Client) -> dict:
    mark = a.mark()
    await a.send("whisper_stop")
    return await a.wait_for(lambda m: m["type"] == "whisper", since=mark)


async def test_issue29_a_whisperer_whose_socket_blips_is_still_hushed_on_the_new_socket(
        shared_server):
    clients = await _debate(shared_server)
    a, b, _ = clients
    try:
        assert _welcome(a, 0)["whisper"] is None  # nothing to reconcile on a fresh socket
        await _whisper(a, b)
        mark_b = b.mark()
        await a.close()
        off = await b.wait_for(lambda m: m["type"] == "whisper" and not m["active"], since=mark_b)
        assert off["reason"] == "whisperer_left" and "hushed" not in off

        mark = a.mark()
        await a.connect()
        # The old target may still be whispered to: the page may resume with a new
        # whisper_start while the finger is still down.
        assert _welcome(a, mark)["whisper"] == {"to": b.player, "hushed": True,
                                               "resumable": True}
        # No whisper note is sent on connect: the welcome says it all.
        assert not [m for m in a.messages[mark:] if m["type"] == "whisper"]
        done = await _stop_answer(a)
        assert done == {"type": "whisper", "from": a.player, "to": b.player, "active": False,
                        "reason": "stopped", "hushed": False}
        # Let go: the next socket has nothing to reconcile.
        mark = a.mark()
        await a.connect()
        assert _welcome(a, mark)["whisper"] is None
    finally:
        await close_all(clients)


async def test_issue29_a_hushed_whisperer_whose_socket_blips_stays_hushed(shared_server):
    clients = await _debate(shared_server)
    a, b, _ = clients
    try:
        await _whisper(a, b)
        mark = a.mark()
        await b.close()  # the target goes: the whisperer is hushed
        note = await a.wait_for(lambda m: m["type"] == "whisper" and not m["active"], since=mark)
        assert note["hushed"] is True

        mark = a.mark()
        await a.connect()
        assert _welcome(a, mark)["whisper"] == {"to": b.player, "hushed": True,
                                               "resumable": True}
        # Letting go ends the hush, as before the blip.
        done = await _stop_answer(a)
        assert done["hushed"] is False
    finally:
        await close_all(clients)


async def test_issue29_a_second_tab_ends_the_whisper_and_keeps_the_seat_hushed(shared_server):
    clients = await _debate(shared_server)
    a, b, _ = clients
    tab = Client(a.base_url, a.code, a.player, a.token)
    try:
        await _whisper(a, b)
        mark_b = b.mark()
        # The seat opened in another tab: nobody holds a whisper there, so the whisper
        # ends, and the seat stays heard by nobody until that tab's own gesture.
        await tab.connect()
        assert _welcome(tab, 0)["whisper"] == {"to": b.player, "hushed": True,
                                              "resumable": True}
        off = await b.wait_for(lambda m: m["type"] == "whisper" and not m["active"], since=mark_b)
        assert off["reason"] == "whisperer_left"
        done = await _stop_answer(tab)
        assert done["hushed"] is False
    finally:
        await close_all([tab, *clients])


async def test_issue29_the_welcome_says_when_the_old_whisper_may_not_resume(shared_server):
    clients = await _debate(shared_server, 4)
    a, b = clients[:2]
    try:
        await _whisper(a, b)
        await a.close()
        await b.leave()  # the game goes on with three; nobody may whisper to b now
        mark = a.mark()
        await a.connect()
        assert _welcome(a, mark)["whisper"] == {"to": b.player, "hushed": True,
                                               "resumable": False}
        mark = a.mark()
        await a.send("whisper_start", to=b.player)
        err = await a.wait_for(lambda m: m["type"] == "error", since=mark)
        assert err["code"] == "whisper_not_allowed"
        # Refused: still hushed (the answer to letting go says so).
        assert (await _stop_answer(a))["hushed"] is False
    finally:
        await close_all(clients)
