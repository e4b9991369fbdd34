"""Cluster mode on this machine: rooms of 16 bots on 1 node vs 2 nodes; failover seconds.

    .venv/bin/python bench/cluster_bench.py [--rooms 2] [--bots 16] [--seconds 20]
                                            [--procs 4] [--failovers 3] [--ttl 5]
                                            [--no-load] [--claim-rooms 20]

For each of 1 and 2 nodes: a real redis-server and `sussurro serve --redis`
node processes on 127.0.0.1 (tests/support/cluster_proc.py), `--rooms` rooms
created through the first node (placement spreads them), `--bots` real
WebRTC bots per room run by `--procs` worker processes (this file again,
`--worker`): two bots per room speak a tone, the others are silent with DTX,
as in bench/room_bench.py. Over `--seconds` once every bot is connected:

- `server_cpu_core_share`: the nodes' CPU time (/proc/PID/stat utime+stime)
  over wall time, summed over the nodes, as a share of one core;
  `cpu_per_room` is that over the rooms;
- `rooms_at_zero_gaps`: rooms in which no bot had a receive gap over 40 ms,
  and `zero_gap_ratio` that over the rooms.

Then `--failovers` times, on two nodes: a 4-bot room (all talking, following
their room) whose node is SIGKILLed: `claim_moved_s` (kill to the room's
claim held by the other node), `reconnected_s` (kill to every bot's socket and
voice back), `silence_s` (per bot: the longest silence in the other bots'
tones that it heard around the kill: its recording's gap); the killed node is
started again for the next round. `--ttl` is the nodes' `cluster_ttl`, the
default setting unless told.

Last, `claim_cost`: what claims cost Redis. Two idle nodes, then
`--claim-rooms` idle rooms on them; over `--seconds` each, the commands Redis
ran per second (`INFO commandstats`, which counts the commands scripts run
too), and the difference over the rooms: `per_room_per_s`, by command.

Prints one JSON object. Nothing here is asserted; figures go to bench/README.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from server.config import Settings  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process, in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


# ----------------------------------------------------------------- a worker (bots)


async def worker(args: argparse.Namespace) -> dict:
    from server.media.rtc import restrict_host_addresses

    restrict_host_addresses(["127.0.0.1"])
    from client.bot import Bot
    from client.protocol_client import Client
    from client.rtc_peer import Silence, Tone

    bots = []
    for spec in args.spec.split(";"):
        room, idx = spec.split(":")
        code, host_player, host_token = room.split(",")
        idx = int(idx)
        src, dtx = (Tone(200 + 40 * idx, 0.08), False) if idx in (1, 2) else (Silence(), True)
        if idx == 0:
            bot = Bot(Client(args.url, code, host_player, host_token), src, dtx=dtx,
                      decode=False)
            await bot.client.connect()
        else:
            bot = await Bot.join(args.url, code, f"Bot{idx}", src, dtx=dtx, decode=False)
        bots.append((code, bot))
    await asyncio.gather(*(b.start_voice(timeout=120) for _, b in bots))
    # Ready; the driver starts the window (a wall time in the `go` file) once all are.
    Path(args.sync, f"ready-{os.getpid()}").touch()
    go = Path(args.sync, "go")
    while not go.exists():
        await asyncio.sleep(0.1)
    await asyncio.sleep(max(0.0, float(go.read_text() or 0) - time.time()))
    t0 = time.monotonic()
    await asyncio.sleep(args.seconds)
    t1 = time.monotonic()
    out: dict = {}
    for code, b in bots:
        gaps = [dt for end, dt in b.recorder.gap_times(0.04, since=t0) if end <= t1]
        room = out.setdefault(code, {"bots": 0, "gaps": 0, "frames_min": 10**9})
        room["bots"] += 1
        room["gaps"] += len(gaps)
        room["frames_min"] = min(room["frames_min"],
                                 sum(1 for t in b.recorder.arrivals if t0 <= t <= t1))
    await asyncio.sleep(3.0)  # stay while the driver reads the nodes' figures
    await asyncio.gather(*(b.close() for _, b in bots), return_exceptions=True)
    return out


# ----------------------------------------------------------------- load: 1 vs 2 nodes


def load_run(nodes: int, args: argparse.Namespace) -> dict:
    from client.protocol_client import Client
    from tests.support.cluster_proc import ClusterProc

    tmp = tempfile.mkdtemp(prefix=f"cluster_bench_{nodes}_")
    workers: list[subprocess.Popen] = []
    with ClusterProc(tmp, nodes=nodes, ttl=5.0, log_level="warning") as cl:
        url = cl.nodes[0].base_url
        hosts = [asyncio.run(Client.create(url, "Bot0")) for _ in range(args.rooms)]
        owners = {h.code: cl.owner_of(h.code) for h in hosts}
        specs = [f"{h.code},{h.player},{h.token}:{i}" for h in hosts for i in range(args.bots)]
        sync = Path(tmp, "sync")
        sync.mkdir()
        for w in range(args.procs):
            mine = specs[w::args.procs]
            if not mine:
                continue
            cmd = [sys.executable, __file__, "--worker", "--url", url, "--spec", ";".join(mine),
                   "--seconds", str(args.seconds), "--sync", str(sync)]
            workers.append(subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE,
                                            stderr=subprocess.DEVNULL, text=True))
        try:
            # Every bot connected (or the setup time is up), then a common window.
            end = time.monotonic() + args.setup
            while (len(list(sync.glob("ready-*"))) < len(workers)
                   and time.monotonic() < end and all(p.poll() is None for p in workers)):
                time.sleep(0.2)
            start_at = time.time() + 2.0
            (sync / "go.tmp").write_text(repr(start_at))
            (sync / "go.tmp").rename(sync / "go")
            time.sleep(max(0.0, start_at - time.time()))
            per_node = {n.env["SUSSURRO_NODE_ID"]: n.proc.pid for n in cl.nodes}
            n0, w0 = {k: cpu_seconds(p) for k, p in per_node.items()}, time.monotonic()
            time.sleep(args.seconds)
            n1, w1 = {k: cpu_seconds(p) for k, p in per_node.items()}, time.monotonic()
            c0, c1 = sum(n0.values()), sum(n1.values())
            reports = []
            for p in workers:
                out, _ = p.communicate(timeout=args.seconds + 120)
                lines = [ln for ln in out.splitlines() if ln.startswith("{")]
                reports.append(json.loads(lines[-1]) if lines else {})
        finally:
            for p in workers:
                if p.poll() is None:
                    p.kill()
    rooms: dict[str, dict] = {}
    for r in reports:
        for code, fig in r.items():
            room = rooms.setdefault(code, {"bots": 0, "gaps": 0, "frames_min": 10**9})
            room["bots"] += fig["bots"]
            room["gaps"] += fig["gaps"]
            room["frames_min"] = min(room["frames_min"], fig["frames_min"])
    served = [c for c, fig in rooms.items() if fig["bots"] == args.bots and fig["gaps"] == 0]
    share = (c1 - c0) / (w1 - w0)
    return {"nodes": nodes, "rooms": args.rooms, "bots_per_room": args.bots,
            "rooms_per_node": {n: sum(1 for o in owners.values() if o == n) for n in per_node},
            "server_cpu_core_share": round(share, 3),
            "node_cpu_core_share": {k: round((n1[k] - n0[k]) / (w1 - w0), 3) for k in n0},
            # rooms whose every bot received audio in the window (connected in time)
            "rooms_connected": sum(1 for f in rooms.values()
                                   if f["bots"] == args.bots and f["frames_min"] > 0),
            "cpu_per_room": round(share / args.rooms, 3),
            "rooms_at_zero_gaps": len(served),
            "zero_gap_ratio": round(len(served) / args.rooms, 2),
            "gaps_per_room": {c: f["gaps"] for c, f in rooms.items()},
            "frames_min_per_room": {c: f["frames_min"] for c, f in rooms.items()},
            "load_avg_1min": round(os.getloadavg()[0], 2)}


# ----------------------------------------------------------------- failover


async def failover_runs(args: argparse.Namespace) -> list[dict]:
    from server.media.rtc import restrict_host_addresses

    restrict_host_addresses(["127.0.0.1"])
    from client.rtc_peer import Tone
    from tests.e2e.cluster_bots import silence_around
    from tests.support.cluster_proc import ClusterProc

    out = []
    tmp = tempfile.mkdtemp(prefix="cluster_bench_failover_")
    with ClusterProc(tmp, nodes=2, ttl=args.ttl, log_level="warning") as cl:
        for _ in range(args.failovers):
            # The two nodes have beaten each other's entries in (registry up to date).
            await asyncio.sleep(1.0)
            bots = await _room(cl.nodes[0].base_url, [Tone(300 + 100 * i, 0.1) for i in range(4)])
            try:
                await asyncio.gather(*(b.start_voice(timeout=60) for b in bots))
                await asyncio.sleep(2.0)
                code = bots[0].client.code
                victim = cl.node_by_id(cl.owner_of(code))
                before = {b.pid: b.client.reconnects for b in bots}
                t0 = time.monotonic()
                gone = victim.env["SUSSURRO_NODE_ID"]
                victim.kill()
                await asyncio.to_thread(cl.wait_owner, code,
                                        lambda o, gone=gone: o is not None and o != gone, 60)
                moved = time.monotonic() - t0
                while not all(b.client.reconnects > before[b.pid] and not b.client.closed
                              and (b.client._follower is None or b.client._follower.done())
                              for b in bots):
                    if time.monotonic() - t0 > 60:
                        break
                    await asyncio.sleep(0.05)
                back = time.monotonic() - t0
                await asyncio.sleep(2.0)
                silence = [silence_around(b, t0) for b in bots]
                out.append({"claim_moved_s": round(moved, 2), "reconnected_s": round(back, 2),
                            "silence_s": [round(s, 2) if s else None for s in silence]})
            finally:
                await asyncio.gather(*(b.close() for b in bots), return_exceptions=True)
            await asyncio.to_thread(victim.start, 60)
    return out


# ----------------------------------------------------------------- what claims cost Redis


def _commands(cl) -> dict[str, int]:
    """Commands Redis has run so far, by name, those run inside scripts included."""
    stats = cl.redis.client().info("commandstats")
    return {k.removeprefix("cmdstat_"): int(v["calls"]) for k, v in stats.items()
            if k != "cmdstat_info"}


def _rates(cl, seconds: float) -> dict[str, float]:
    c0, t0 = _commands(cl), time.monotonic()
    time.sleep(seconds)
    c1, dt = _commands(cl), time.monotonic() - t0
    return {k: (v - c0.get(k, 0)) / dt for k, v in c1.items() if v - c0.get(k, 0)}


def claim_cost(args: argparse.Namespace) -> dict:
    from client.protocol_client import Client
    from tests.support.cluster_proc import ClusterProc

    tmp = tempfile.mkdtemp(prefix="cluster_bench_claims_")
    with ClusterProc(tmp, nodes=2, ttl=args.ttl, log_level="warning") as cl:
        time.sleep(2.0)
        idle = _rates(cl, args.seconds)
        url = cl.nodes[0].base_url
        for _ in range(args.claim_rooms):
            asyncio.run(Client.create(url, "Host"))
        time.sleep(2.0)
        busy = _rates(cl, args.seconds)
    n = max(1, args.claim_rooms)
    per_room = {k: round((busy.get(k, 0) - idle.get(k, 0)) / n, 3) for k in busy | idle}
    return {"ttl": args.ttl, "rooms": args.claim_rooms, "nodes": 2,
            "idle_commands_per_s": round(sum(idle.values()), 2),
            "commands_per_s": round(sum(busy.values()), 2),
            "per_room_per_s": round(sum(per_room.values()), 3),
            "per_room_per_s_by_command": {k: v for k, v in sorted(per_room.items())
                                          if abs(v) >= 0.01}}


async def _room(url: str, sources) -> list:
    from client.bot import Bot

    bots = [await Bot.create(url, "Bot0", sources[0], follow=True)]
    for i, src in enumerate(sources[1:], start=1):
        bots.append(await Bot.join(url, bots[0].client.code, f"Bot{i}", src, follow=True))
    return bots


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rooms", type=int, default=2)
    p.add_argument("--bots", type=int, default=16)
    p.add_argument("--procs", type=int, default=4)
    p.add_argument("--seconds", type=float, default=20.0)
    p.add_argument("--setup", type=float, default=120.0, help="seconds allowed to connect")
    p.add_argument("--failovers", type=int, default=3)
    p.add_argument("--ttl", type=float, default=Settings().cluster_ttl,
                   help="cluster_ttl of the nodes in the failover and claim runs")
    p.add_argument("--no-load", action="store_true", help="skip the 1-vs-2-node load runs")
    p.add_argument("--claim-rooms", type=int, default=20,
                   help="rooms of the claim-cost run (0: skip it)")
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--url", help=argparse.SUPPRESS)
    p.add_argument("--spec", help=argparse.SUPPRESS)
    p.add_argument("--sync", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.worker:
        print(json.dumps(asyncio.run(worker(args))), flush=True)
        return 0
    report: dict = {}
    if not args.no_load:
        report["load"] = [load_run(n, args) for n in (1, 2)]
        one, two = report["load"]
        report["cpu_per_room_ratio_2_over_1"] = \
            round(two["cpu_per_room"] / one["cpu_per_room"], 2) if one["cpu_per_room"] else None
    report["failover_ttl"] = args.ttl
    report["failover"] = asyncio.run(failover_runs(args)) if args.failovers else []
    if args.claim_rooms:
        report["claim_cost"] = claim_cost(args)
    report["load_avg_1min"] = round(os.getloadavg()[0], 2)
    report["cores"] = os.cpu_count()
    print(json.dumps(report, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
