"""A room's socket broadcast alone: the server's CPU per message, frames written straight
to the socket (server/wire/wsdirect.py) against every message through the writer task.

    .venv/bin/python bench/ws_broadcast.py [--sockets 16] [--rate 16.7] [--seconds 10] [--rounds 3]

The server is this file again (`--serve PORT`) in a subprocess: uvicorn as
`sussurro serve` runs it (its "auto" WebSocket protocol, no per-message deflate),
with the project's `RawSend` and `Connection`, and one task that sends the same
`mouths`-sized text (`send_latest("mouths", ...)`, as the voice does) to every
socket `--rate` times a second. `SUSSURRO_DIRECT_WS=0` turns the direct path off;
the two modes alternate, `--rounds` times each, each with a fresh server.

The clients (`--sockets` of them, websockets in this process) read everything.
Measured over `--seconds` after a settling second: the server process's CPU
(every thread's time on a CPU, /proc/PID/task/*/schedstat) per message received, in microseconds, and
as a share of one core; the messages received per socket (each mode must deliver
them all, in order: the clients check the sequence number). Prints one JSON
object; nothing is asserted, the figures go to bench/ROOM.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.server_proc import free_port  # noqa: E402


def _cpu_seconds(pid: int) -> float:
    """The process's CPU time to the nanosecond: every thread's time on a CPU
    (/proc/PID/task/*/schedstat; /proc/PID/stat counts in 10 ms ticks, too coarse for
    the ~0.1 s a run costs)."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            total += int((task / "schedstat").read_text().split()[0])
        except (FileNotFoundError, ProcessLookupError):
            pass  # a thread that ended meanwhile
    return total / 1e9


def serve(port: int, rate: float) -> None:
    import contextlib

    import uvicorn
    from starlette.applications import Starlette
    from starlette.middleware import Middleware
    from starlette.routing import WebSocketRoute
    from starlette.websockets import WebSocketDisconnect

    from server.wire.connection import Connection
    from server.wire.wsdirect import RawSend

    conns: set[Connection] = set()

    async def broadcast() -> None:
        n = 0
        while True:
            await asyncio.sleep(1 / rate)
            n += 1
            # The size of a three-voice `mouths` message; one text object for all.
            text = json.dumps({"type": "mouths", "n": n,
                               "levels": {"p1": 0.412, "p2": 0.377, "p3": 0.051}},
                              separators=(",", ":"))
            for conn in list(conns):
                conn.send_latest("mouths", text)

    async def ws_endpoint(ws) -> None:
        await ws.accept()
        conn = Connection(ws)
        conn.start()
        conns.add(conn)
        try:
            await ws.send_text(json.dumps({"direct": conn.direct is not None}))
            while True:
                await ws.receive_text()
        except WebSocketDisconnect:
            pass
        finally:
            conns.discard(conn)
            await conn.stop()

    @contextlib.asynccontextmanager
    async def lifespan(app):
        task = asyncio.get_running_loop().create_task(broadcast())
        yield
        task.cancel()

    app = Starlette(routes=[WebSocketRoute("/ws", ws_endpoint)],
                    middleware=[Middleware(RawSend)], lifespan=lifespan)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning",
                ws_per_message_deflate=False)


async def _client(url: str, counts: list[int], i: int, stop: asyncio.Event,
                  modes: list[bool], disorder: list[int]) -> None:
    import websockets

    async with websockets.connect(url, compression=None) as ws:
        modes.append(json.loads(await ws.recv())["direct"])
        last = 0
        while not stop.is_set():
            try:
                text = await asyncio.wait_for(ws.recv(), 0.5)
            except TimeoutError:
                continue
            n = json.loads(text)["n"]
            if n <= last:
                disorder[0] += 1
            last = n
            counts[i] += 1


async def _round(direct: bool, args: argparse.Namespace) -> dict:
    port = free_port()
    env = {**os.environ, "SUSSURRO_DIRECT_WS": "1" if direct else "0"}
    proc = subprocess.Popen([sys.executable, __file__, "--serve", str(port),
                             "--rate", str(args.rate)], env=env)
    try:
        url = f"ws://127.0.0.1:{port}/ws"
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), 0.2).close()
                break
            except OSError:
                await asyncio.sleep(0.1)
        counts = [0] * args.sockets
        stop, modes, disorder = asyncio.Event(), [], [0]
        tasks = [asyncio.create_task(_client(url, counts, i, stop, modes, disorder))
                 for i in range(args.sockets)]
        await asyncio.sleep(1.0)  # every socket open and reading
        c0, n0, t0 = _cpu_seconds(proc.pid), sum(counts), time.monotonic()
        await asyncio.sleep(args.seconds)
        c1, n1, t1 = _cpu_seconds(proc.pid), sum(counts), time.monotonic()
        stop.set()
        await asyncio.gather(*tasks)
        messages = n1 - n0
        return {"direct": direct, "direct_sockets": sum(modes),
                "server_cpu_core_share": round((c1 - c0) / (t1 - t0), 4),
                "server_cpu_us_per_message": round((c1 - c0) / max(messages, 1) * 1e6, 1),
                "messages_per_socket": round(messages / args.sockets, 1),
                "out_of_order": disorder[0]}
    finally:
        proc.terminate()
        proc.wait(10)


async def _main(args: argparse.Namespace) -> None:
    rounds = []
    for _ in range(args.rounds):
        for direct in (False, True):
            rounds.append(await _round(direct, args))
    out = {"sockets": args.sockets, "rate": args.rate, "seconds": args.seconds,
           "rounds": rounds}
    for direct in (False, True):
        per = [r["server_cpu_us_per_message"] for r in rounds if r["direct"] is direct]
        out["direct" if direct else "writer"] = {"us_per_message": per,
                                                 "min": min(per), "max": max(per)}
    print(json.dumps(out, indent=1))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sockets", type=int, default=16)
    p.add_argument("--rate", type=float, default=16.7, help="messages a second to each")
    p.add_argument("--seconds", type=float, default=10.0)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.serve:
        serve(args.serve, args.rate)
    else:
        asyncio.run(_main(args))


if __name__ == "__main__":
    main()
