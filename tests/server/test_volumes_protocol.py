"""Issue 13 at the protocol's edge: a player's own volumes (`volumes`) and the room's
voice setting `spatial` (`settings {voice}`), checked, and refused with stable codes."""

from __future__ import annotations

from tests.server.roomkit import close_all, fresh_picture, request, seated, started


async def _ask(client, ref, **fields):
    """Send `volumes` with `ref`; the answer that echoes it (an ack or an error)."""
    mark = client.mark()
    await client.send("volumes", ref=ref, **fields)
    return await client.wait_for(lambda m: m.get("ref") == ref, since=mark)


async def _refused(client, code, **fields):
    before = await fresh_picture(client)
    err = await request(client, "volumes", "bad", **fields)
    assert err["type"] == "error" and err["code"] == code, err
    assert await fresh_picture(client) == before
    return err


async def test_volumes_are_acknowledged_as_the_whole_set_for_the_sender(shared_server):
    clients = await started(shared_server, 3)
    me, a, b = (c.player for c in clients)
    try:
        ack = await _ask(clients[0], "v1", gains={a: 0.5, b: 1.5}, muted=[b])
        assert ack == {"type": "volumes", "ref": "v1", "gains": {a: 0.5}, "muted": [b],
                       "mono": False}
        # whole numbers are gains too; an empty message resets every voice to 100 %
        ack = await _ask(clients[0], "v2", gains={a: 1})
        assert ack["gains"] == {a: 1.0} and ack["muted"] == []
        ack = await _ask(clients[0], "v3")
        assert ack["gains"] == {} and ack["muted"] == []
        assert not [m for m in clients[1].messages if m["type"] == "volumes"]  # nobody else told
    finally:
        await close_all(clients)


async def test_bad_volumes_are_refused_and_change_nothing(shared_server):
    clients = await seated(shared_server, 3)
    c = clients[1]
    other = clients[2].player
    try:
        await _refused(c, "bad_message", gains={other: 1.51})
        await _refused(c, "bad_message", gains={other: -0.1})
        await _refused(c, "bad_message", gains={other: "0.5"})
        await _refused(c, "bad_message", gains={other: True})
        await _refused(c, "bad_message", gains={other: [0.5]})
        await _refused(c, "bad_message", muted=other)
        await _refused(c, "bad_message", gains={f"p{i}": 0.5 for i in range(65)})
        await _refused(c, "bad_message", gains={"": 0.5})
        await _refused(c, "bad_message", gains={c.player: 0.5})  # not your own voice
        await _refused(c, "unknown_player", gains={"p99": 0.5})
        await _refused(c, "unknown_player", muted=["p99"])
        await _refused(c, "bad_message", volume=1)
        assert not c.closed
    finally:
        await close_all(clients)


async def test_spatial_is_a_room_voice_setting_off_by_default_the_host_may_change_in_game(
        shared_server):
    clients = await started(shared_server, 3)
    host, guest = clients[0], clients[1]
    try:
        _, room = await fresh_picture(host)
        assert room["settings"]["voice"] == {"spatial": False}
        err = await request(guest, "settings", "s1", voice={"spatial": True})
        assert err["code"] == "not_host"
        err = await request(host, "settings", "s2", voice={"spatial": "yes"})
        assert err["code"] == "bad_message"
        err = await request(host, "settings", "s3", voice={"stereo": True})
        assert err["code"] == "bad_message"
        # a game option stays between games only, even sent with the voice's
        err = await request(host, "settings", "s4", options={"powers": []}, voice={"spatial": True})
        assert err["code"] == "wrong_phase"
        mark = guest.mark()
        await host.send("settings", voice={"spatial": True})
        room = await guest.wait_for(lambda m: m["type"] == "room"
                                    and m["settings"]["voice"]["spatial"], since=mark)
        assert room["phase"] == "playing"
    finally:
        await close_all(clients)


async def test_item9_mono_is_the_senders_own_choice_acknowledged_with_the_volumes(shared_server):
    """Issue 31 item 9: a listener chooses mono for themself (one earbud) in `volumes`."""
    clients = await started(shared_server, 3)
    a = clients[1].player
    try:
        ack = await _ask(clients[0], "m1", gains={a: 0.5}, mono=True)
        assert ack == {"type": "volumes", "ref": "m1", "gains": {a: 0.5}, "muted": [],
                       "mono": True}
        ack = await _ask(clients[0], "m2")  # the whole set each time: mono off again
        assert ack["mono"] is False
        await _refused(clients[0], "bad_message", mono="yes")
        await _refused(clients[0], "bad_message", mono=1)
        assert not [m for m in clients[1].messages if m["type"] == "volumes"]
    finally:
        await close_all(clients)


class _Voice:
    """A stand-in for the room's voice: the last gains and mono choice per listener."""

    def __init__(self):
        self.mono: dict[str, bool] = {}
        self.gains: dict[str, dict] = {}

    def set_routing(self, routing):
        pass

    def set_layout(self, order):
        pass

    def set_volumes(self, pid, gains):
        self.gains[pid] = gains

    def set_mono(self, pid, mono):
        self.mono[pid] = mono


def test_item9_the_voice_link_keeps_each_listeners_mono_for_a_new_voice():
    from audio import Routing
    from server.rooms.voicelink import VoiceLink

    link = VoiceLink("ROOMM", [], lambda text: None, lambda: (), lambda: Routing())
    link.voice = first = _Voice()
    link.set_volumes("p1", {}, mono=True)
    link.set_volumes("p2", {"p1": 0.5})
    assert first.mono == {"p1": True, "p2": False}
    # the voice stops with the last peer and a new one starts: the choice is given again
    link.voice = second = _Voice()
    link.refresh()
    assert second.mono == {"p1": True}
    # a seat freed ({} and no mono) forgets it
    link.set_volumes("p1", {})
    link.voice = third = _Voice()
    link.refresh()
    assert third.mono == {}
