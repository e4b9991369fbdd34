"""`sussurro bot`'s command line: its arguments cost nothing to register, the voice
stack (aiortc, PyAV, the protocol client) is imported only when a bot runs, so that
`sussurro serve` does not load it."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
from typing import Any


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register `sussurro bot` on the CLI's subparsers."""
    p = subparsers.add_parser("bot", help="join a room as a bot that speaks, records and plays")
    p.add_argument("--url", default="http://127.0.0.1:8000", help="the server's base URL")
    p.add_argument("--room", help="room code to join (omit to create a room)")
    p.add_argument("--name", default="Bot")
    src = p.add_mutually_exclusive_group()
    src.add_argument("--tone", type=float, help="speak a sine of this frequency (Hz)")
    src.add_argument("--wav", help="speak this WAV file, looped")
    p.add_argument("--level", type=float, default=0.25, help="tone amplitude, 0..1")
    p.add_argument("--record", help="write what the bot hears to this WAV file")
    p.add_argument("--autoplay", action="store_true", help="take random legal game actions")
    p.add_argument("--seconds", type=float, default=30.0, help="stay this long (or until the game ends with --autoplay)")
    p.add_argument("--dtx", action="store_true", help="send nothing while the mic is silent")
    p.set_defaults(func=_run_cli)
    return p


def _run_cli(args: argparse.Namespace) -> int:
    return asyncio.run(_main(args))


async def _main(args: argparse.Namespace) -> int:
    from client.bot import Bot
    from client.rtc_peer import Silence, Source, Tone, WavSource
    from server.media.rtc import VoiceError

    if args.wav:
        source: Source = WavSource(args.wav)
    elif args.tone:
        source = Tone(args.tone, args.level)
    else:
        source = Silence()
    # Follow the room: in cluster mode it may move to another node (its node is lost or
    # drained); the bot reconnects there, voice included.
    if args.room:
        bot = await Bot.join(args.url, args.room, args.name, source, dtx=args.dtx, follow=True)
    else:
        bot = await Bot.create(args.url, args.name, source, dtx=args.dtx, follow=True)
    report: dict[str, Any] = {"room": bot.client.code, "player": bot.pid}
    try:
        await bot.start_voice()
        if args.autoplay:
            with contextlib.suppress(TimeoutError):
                final = await bot.play(timeout=args.seconds)
                report["result"] = final.get("result")
        else:
            await asyncio.sleep(args.seconds)
    except VoiceError as exc:
        report["error"] = exc.code
    finally:
        rec = bot.recorder
        report.update(frames=len(rec.frames), seconds=round(len(rec.frames) * 0.02, 2),
                      gaps_over_40ms=len(rec.gaps(0.04)))
        if args.record:
            rec.save_wav(args.record)
            report["record"] = args.record
        await bot.close()
    print(json.dumps(report, sort_keys=True))
    return 1 if "error" in report else 0
