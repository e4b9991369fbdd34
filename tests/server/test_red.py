"""Issue 36, the listener's side: receiver reports read per listener, and RED (RFC 2198)
for a lossy listener (server/media/protect.py)."""

from __future__ import annotations

import asyncio
import types

from server.media.protect import (
    LinkReport,
    RedPacker,
    answer_with_red,
    offered_red,
    unpack,
    watch_reports,
)

CHROME_OFFER = (
    "v=0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111 63 9 0\r\na=rtpmap:111 opus/48000/2\r\n"
    "a=fmtp:111 minptime=10;useinbandfec=1\r\na=rtpmap:63 red/48000/2\r\n"
    "a=fmtp:63 111/111\r\na=rtpmap:9 G722/8000\r\na=rtpmap:0 PCMU/8000\r\n"
)
AIORTC_ANSWER = ("v=0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\na=mid:0\r\n"
                 "a=rtpmap:111 opus/48000/2\r\na=fmtp:111 minptime=10;useinbandfec=1\r\n")


def test_the_answer_accepts_red_after_opus_only_where_the_offer_has_it():
    red = offered_red(CHROME_OFFER)
    assert red == (63, "111/111")
    answer, opus = answer_with_red(AIORTC_ANSWER, red)
    assert opus == 111
    lines = answer.split("\r\n")
    # Opus first: the browser keeps sending plain Opus to the server
    assert "m=audio 9 UDP/TLS/RTP/SAVPF 111 63" in lines
    assert "a=rtpmap:63 red/48000/2" in lines and "a=fmtp:63 111/111" in lines
    assert offered_red(CHROME_OFFER.replace("a=rtpmap:63 red/48000/2\r\n", "")) is None
    assert answer_with_red(AIORTC_ANSWER, None) == (AIORTC_ANSWER, None)


def test_red_carries_the_earlier_payloads_the_same_listener_was_sent():
    packer = RedPacker(pt=63, opus_pt=111)
    assert packer.pack(b"A" * 30, tick=10, distance=1) is not None  # nothing earlier yet
    blocks = unpack(packer.pack(b"B" * 40, tick=11, distance=1))
    assert blocks == [(111, 960, b"A" * 30), (111, 0, b"B" * 40)]
    blocks = unpack(packer.pack(b"C" * 50, tick=12, distance=2))
    assert blocks == [(111, 1920, b"A" * 30), (111, 960, b"B" * 40), (111, 0, b"C" * 50)]
    # a clean link: plain Opus, but the payload is remembered for what follows
    assert packer.pack(b"D", tick=13, distance=0) is None
    assert unpack(packer.pack(b"E", tick=14, distance=1)) == [(111, 960, b"D"), (111, 0, b"E")]


def test_red_leaves_out_what_its_fields_cannot_hold():
    packer = RedPacker(pt=63, opus_pt=111)
    packer.pack(b"x" * 1100, tick=1, distance=1)  # longer than a 10-bit block length
    assert unpack(packer.pack(b"y", tick=2, distance=1)) == [(111, 0, b"y")]
    packer.pack(b"z", tick=3, distance=1)
    # after a DTX pause (one packet per 400 ms): beyond a 14-bit timestamp offset
    assert unpack(packer.pack(b"w", tick=3 + 20, distance=1)) == [(111, 0, b"w")]


def test_a_link_is_protected_from_the_start_until_its_reports_show_it_clean():
    link = LinkReport()
    assert link.distance == 1
    link.note(0, 0, 48 * 5)
    assert link.distance == 1 and link.jitter_ms == 5.0
    link.note(0, 0, 0)
    assert link.distance == 0  # two clean reports: plain Opus
    link.note(8, 3, 0)  # 3 % lost since the last report
    assert link.distance == 1 and link.fraction_lost == 8 / 256
    link.note(26, 10, 0)  # 10 %: two earlier payloads ride along
    assert link.distance == 2
    for _ in range(2):
        link.note(0, 10, 0)
    assert link.distance == 1
    assert link.figures()["packets_lost"] == 10 and link.lossy_reports == 2


def test_reports_about_this_stream_are_read_before_aiortcs_own_handling():
    handled = []

    async def original(packet):
        handled.append(packet)

    sender = types.SimpleNamespace(_ssrc=1234, _handle_rtcp_packet=original)
    link = LinkReport()
    assert watch_reports(sender, link)
    block = types.SimpleNamespace(ssrc=1234, fraction_lost=13, packets_lost=7, jitter=480)
    other = types.SimpleNamespace(ssrc=99, fraction_lost=200, packets_lost=70, jitter=0)
    packet = types.SimpleNamespace(reports=[other, block])
    asyncio.run(sender._handle_rtcp_packet(packet))
    assert handled == [packet]
    assert link.reports == 1 and link.packets_lost == 7 and link.jitter_ms == 10.0
    assert not watch_reports(types.SimpleNamespace(), link)
