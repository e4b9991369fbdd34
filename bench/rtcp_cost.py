"""What one RTCP report costs, sent and received: a real server peer and a real client
in one process, over the host, with nothing but RTCP flowing.

    .venv/bin/python bench/rtcp_cost.py [--seconds 5] [--rounds 5]

Both sides are aiortc (server.media.rtc.open_peer and client.rtc_peer.VoicePeer, as in the
room); neither sends audio (the client's mic is DTX silence and the server's mix track
gets nothing), so the only packets are each side's sender reports (aiortc's receivers
report only on streams that sent packets) and ICE consent checks every ~5 s. Each round
runs a window with the reports spaced `--fast` seconds apart on average
(server/media/rtcp.py's interval) and one with them `--slow` apart, alternately (a new
interval holds from each loop's next pause, so both are short); the difference in the
process's CPU (time.process_time) over the two windows, over the difference in reports
handled, gives the CPU of one report: built, SRTCP-protected and
sent by one side, unprotected, parsed and handled by the other. The room's saving is
that figure times the reports a second it no longer sends and receives (bench/ROOM.md).

Prints one JSON object. Nothing here is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time

from aiortc.rtcrtpreceiver import RTCRtpReceiver

from client.rtc_peer import Silence, VoicePeer
from server.media import rtcp
from server.media.rtc import open_peer


async def measure(seconds: float, rounds: int, fast: float, slow: float) -> dict:
    assert rtcp.pace(slow), "aiortc's RTCP loops are not as server/media/rtcp.py expects"
    handled = [0]
    original = RTCRtpReceiver._handle_rtcp_packet

    async def counted(self, packet):
        if type(packet).__name__ == "RtcpSrPacket":
            handled[0] += 1
        return await original(self, packet)

    RTCRtpReceiver._handle_rtcp_packet = counted
    client = VoicePeer(Silence())
    offer = await client.make_offer()
    peer, answer = await open_peer("p1", offer, ice_servers=None, on_pcm=lambda *a: None)
    try:
        await client.accept_answer(answer)
        await asyncio.wait_for(client.connected.wait(), 15)
        await asyncio.sleep(1.0)
        per_report: list[float] = []
        idle: list[float] = []
        rates: list[float] = []
        for _ in range(rounds):
            cpu = {}
            for interval in (fast, slow):
                rtcp.pace(interval)
                await asyncio.sleep(max(1.0, 2 * slow))  # the pauses drawn before it end
                n0, c0, w0 = handled[0], time.process_time(), time.monotonic()
                await asyncio.sleep(seconds)
                cpu[interval] = (handled[0] - n0, time.process_time() - c0, time.monotonic() - w0)
            (n_fast, c_fast, w_fast), (n_slow, c_slow, w_slow) = cpu[fast], cpu[slow]
            extra = c_fast / w_fast - c_slow / w_slow  # CPU share the reports added
            rate = n_fast / w_fast - n_slow / w_slow
            rates.append(rate)
            idle.append(c_slow / w_slow)  # the slow window's CPU share, its reports included
            per_report.append(1e6 * extra / rate)
        return {
            "seconds": seconds, "rounds": rounds, "intervals": [fast, slow],
            "more_reports_a_second": [round(r, 1) for r in rates],
            "slow_core_share": [round(x, 4) for x in idle],
            "us_per_report_sent_and_received": [round(x, 1) for x in per_report],
            "median_us": round(statistics.median(per_report), 1),
        }
    finally:
        RTCRtpReceiver._handle_rtcp_packet = original
        await client.close()
        await peer.close()


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seconds", type=float, default=5.0)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--fast", type=float, default=0.02,
                   help="one window's interval (0.02 s: ~50 reports a second a side)")
    p.add_argument("--slow", type=float, default=0.1,
                   help="the other's (0.1 s: ~10 a second a side)")
    args = p.parse_args()
    print(json.dumps(asyncio.run(measure(args.seconds, args.rounds, args.fast, args.slow)),
                     indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
