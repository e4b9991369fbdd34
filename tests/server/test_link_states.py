"""Everyone sees the connection (issue 36, item 6): each player's voice link state on their
avatar, from the listener's RTCP receiver reports and the peer's connection state, sent to
every socket as `links` when a state changes, never from anyone's mic."""

from __future__ import annotations

import json
import types

import pytest

from client.rtc_peer import Silence, Tone, VoicePeer
from server.media import rtcp
from server.media.linkstate import GONE, GOOD, POOR, LinkWatch, link_state
from server.media.protect import LinkReport
from server.rooms.links import LinkBoard
from tests.server.roomkit import close_all, seated

STATES = {GOOD, POOR, GONE}


def _peer(connection: str = "connected") -> types.SimpleNamespace:
    # Only what the state may read: the connection's state and the listener's reports
    # (no mic figures at all: reading one would raise AttributeError).
    return types.SimpleNamespace(pc=types.SimpleNamespace(connectionState=connection),
                                 track=types.SimpleNamespace(link=LinkReport()))


def test_the_state_of_one_link():
    link = LinkReport()
    assert link_state("connected", link, 0.0) == GOOD  # no report yet: not judged
    assert link_state("connecting", link, 0.0) is None
    assert link_state("new", link, 0.0) is None
    assert link_state("failed", link, 0.0) == GONE
    assert link_state("closed", link, 0.0) == GONE
    link.note(8, 8, 48 * 5)  # 3.1 % lost since the last report
    assert link_state("connected", link, 1.0) == POOR
    link.note(7, 15, 48 * 5)  # 2.7 %: under the threshold
    assert link_state("connected", link, 1.0) == GOOD
    link.note(0, 15, 48 * 40)  # 40 ms of jitter
    assert link_state("connected", link, 1.0) == POOR
    link.note(0, 15, 48 * 5)
    assert link_state("connected", link, 1.0) == GOOD
    assert link_state("connected", link, 12.0) == GONE  # no report for 12 s


def test_a_watch_says_what_changed_and_nothing_else():
    watch = LinkWatch()
    ada, bob, spy = _peer(), _peer("connecting"), _peer()
    peers = {"ada": ada, "bob": bob, "screen": spy}
    # a listen-only peer (a spectator's screen) has no avatar; bob is still connecting
    assert watch.sample(peers, 0.0, skip={"screen"}) == {"ada": GOOD}
    assert watch.sample(peers, 2.0, skip={"screen"}) == {}
    bob.pc.connectionState = "connected"
    ada.track.link.note(26, 10, 0)  # 10 % lost
    assert watch.sample(peers, 4.0, skip={"screen"}) == {"ada": POOR, "bob": GOOD}
    ada.track.link.note(0, 10, 0)
    assert watch.sample(peers, 6.0, skip={"screen"}) == {"ada": GOOD}
    # bob connected at 4 s and no report came while his connection says connected: gone
    # 12 s later
    for t in range(8, 16, 2):
        ada.track.link.note(0, 10, 0)
        changes = watch.sample(peers, float(t), skip={"screen"})
        assert changes == {}, (t, changes)
    ada.track.link.note(0, 10, 0)
    assert watch.sample(peers, 16.0, skip={"screen"}) == {"bob": GONE}
    bob.track.link.note(0, 0, 0)  # a report again
    assert watch.sample(peers, 22.0, skip={"screen"}) == {"bob": GOOD}
    # ada's peer is lost (failed): gone while she has none, and while a new one connects
    del peers["ada"]
    watch.lose("ada")
    assert watch.sample(peers, 24.0, skip={"screen"}) == {"ada": GONE}
    peers["ada"] = _peer("connecting")
    assert watch.sample(peers, 26.0, skip={"screen"}) == {}
    peers["ada"].pc.connectionState = "connected"
    assert watch.sample(peers, 28.0, skip={"screen"}) == {"ada": GOOD}
    # bob's voice is dropped on purpose (his socket left, text only): no state at all
    del peers["bob"]
    watch.forget("bob")
    assert watch.sample(peers, 30.0, skip={"screen"}) == {"bob": None}
    assert watch.states == {"ada": GOOD}


def test_silence_says_nothing_where_the_reports_cannot_be_read():
    watch = LinkWatch()
    peer = _peer()
    peer.track.link_watched = False  # aiortc changed: watch_reports read nothing
    assert watch.sample({"ada": peer}, 0.0) == {"ada": GOOD}
    assert watch.sample({"ada": peer}, 60.0) == {}
    peer.track.link_watched = True
    assert watch.sample({"ada": peer}, 72.0) == {"ada": GONE}


def test_the_board_sends_every_state_when_one_changes():
    sent: list[str] = []
    board = LinkBoard(sent.append)
    board.update({})
    assert sent == []
    board.update({"p2": POOR, "p1": GOOD})
    board.update({"p1": None})
    assert [json.loads(t) for t in sent] == [
        {"type": "links", "links": {"p1": GOOD, "p2": POOR}},
        {"type": "links", "links": {"p2": POOR}}]
    assert board.message() == {"type": "links", "links": {"p2": POOR}}
    board.clear()  # the voice stopped with the room: nothing more is sent
    assert len(sent) == 2 and board.message() == {"type": "links", "links": {}}


# Through a real server: bots whose receiver reports say what their side lost ----------

def _signal(client):
    async def signal(offer: str) -> str:
        mark = client.mark()
        await client.send("rtc_offer", sdp=offer)
        msg = await client.wait_for(lambda m: m["type"] in ("rtc_answer", "error"), 20,
                                    since=mark)
        assert msg["type"] == "rtc_answer", msg
        return msg["sdp"]
    return signal


def _lose_every(peer: VoicePeer, n: list[int]) -> None:
    """Make the bot's receiver drop one incoming RTP packet in `n[0]` (0: none), before
    aiortc counts it: its receiver reports then say so, as a lossy Wi-Fi's would."""
    receiver = peer.pc.getTransceivers()[0].receiver
    handle = receiver._handle_rtp_packet
    count = [0]

    async def lossy(packet, arrival_time_ms):
        count[0] += 1
        if n[0] and count[0] % n[0] == 0:
            return
        await handle(packet, arrival_time_ms)

    receiver._handle_rtp_packet = lossy


def _links_since(client, mark: int) -> list[dict]:
    return [m for m in client.messages[mark:] if m["type"] == "links"]


@pytest.mark.slow
@pytest.mark.timeout(120)
async def test_every_client_sees_a_lossy_listener_poor_then_good_then_gone(server):
    clients = await seated(server, 3)
    ada, bob, cy = clients  # cy plays without voice (text only): no state
    talker, lossy = VoicePeer(Tone(440.0)), VoicePeer(Silence())
    drop = [0]
    spacing = rtcp.SPACING.interval if rtcp.SPACING else None
    try:
        await talker.connect(_signal(ada))
        await lossy.connect(_signal(bob))
        if rtcp.SPACING is not None:
            rtcp.SPACING.interval = 1.0  # the bots report every 0.5-1.5 s (5 s as browsers)
        _lose_every(lossy, drop)
        for c in clients:  # both connected and reporting: both good, cy not listed
            await c.wait_for(lambda m: m["type"] == "links"
                             and m["links"] == {ada.player: GOOD, bob.player: GOOD}, 20)
        marks = [c.mark() for c in clients]
        drop[0] = 5  # 20 % of the server's packets to bob lost on his side
        for c, mark in zip(clients, marks, strict=True):
            msg = await c.wait_for(lambda m: m["type"] == "links"
                                   and m["links"].get(bob.player) == POOR, 20, since=mark)
            assert msg["links"] == {ada.player: GOOD, bob.player: POOR}, msg
        marks = [c.mark() for c in clients]
        drop[0] = 0  # clean again: the next report says so
        for c, mark in zip(clients, marks, strict=True):
            msg = await c.wait_for(lambda m: m["type"] == "links"
                                   and m["links"].get(bob.player) == GOOD, 20, since=mark)
            assert msg["links"] == {ada.player: GOOD, bob.player: GOOD}, msg
        # a new socket gets every state after its welcome
        await cy.close()
        cy2 = await type(cy).join(server.base_url, ada.code, "Ed")
        await cy2.connect()
        clients.append(cy2)
        first = await cy2.wait_for(lambda m: m["type"] == "links", 10)
        assert first["links"] == {ada.player: GOOD, bob.player: GOOD}, first
        # bob's connection ends from his side: gone for everyone, at once
        marks = [c.mark() for c in clients]
        await lossy.close()
        for c, mark in zip(clients, marks, strict=True):
            if c is cy:
                continue
            msg = await c.wait_for(lambda m: m["type"] == "links"
                                   and m["links"].get(bob.player) == GONE, 15, since=mark)
            assert msg["links"][ada.player] == GOOD
        # Nobody is told anything of anyone's mic: a `links` message holds the states only.
        for c in clients:
            for m in _links_since(c, 0):
                assert set(m) == {"type", "links"}, m
                assert set(m["links"].values()) <= STATES, m
            for m in c.messages:
                text = json.dumps(m)
                for word in ("recovered", "concealed", "fraction_lost", "jitter"):
                    assert word not in text, m
    finally:
        if spacing is not None:
            rtcp.SPACING.interval = spacing
        await talker.close()
        await lossy.close()
        await close_all(clients)
