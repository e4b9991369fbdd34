"""A 16-bot voice room against a real `sussurro serve`: server CPU, gaps, mouth-to-ear latency.

    .venv/bin/python bench/room_bench.py [--bots 16] [--procs 4] [--seconds 30] [--talkers 2]

The server runs as a subprocess on 127.0.0.1; the bots run in `--procs`
worker processes (this file again, `--worker`), each an asyncio loop with
its share of real WebRTC bots (client.bot.Bot). The room stays in the lobby,
where everyone is public: the same routing as a debate.

Who says what:
- bot 0 clicks (a 2 ms 3 kHz burst every 0.5 s); bot 1, in the same process,
  times each click in its recording: mouth-to-ear latency;
- bots 2 .. 1+talkers speak a steady low tone (a debate with some voices);
- every other bot is silent with DTX (sends nothing, as a browser does);
- with `--debate`, bots 2 .. bots-1 instead take turns as in a debate (one
  speaker at a time in syllables, 1-5 s turns, backchannels, overlaps and pauses,
  the same schedule in every process), silent with DTX between their words.

Measured over `--seconds` after every bot is connected and settled:
- `server_cpu_core_share`: the server process's CPU time (utime + stime from
  /proc/PID/stat) over wall time, as a share of one core; `server_cpu_split`
  divides it into the kernel's (stime), libopus's encodes and decodes (the
  server's own count, /metrics) and the rest, and gives within it the voice
  tick's packet sends (`sends`, `send_us` per packet: /metrics too, the
  kernel's `sendto` included) and the mic packets' path from the socket to the
  batch (`mic_in`, `mic_in_us`) and on to the mixer at each tick, decodes left
  out (`mic_deliver`, `mic_deliver_us`);
- `rtcp_interval`: how far apart the server and the bots space each stream's RTCP
  reports (`SUSSURRO_RTCP_INTERVAL`; `--bots-rtcp-interval` sets the bots' alone);
- gaps: receive-side inter-arrival intervals over 40 ms at every bot (only the
  click listener decodes; the others time packet arrivals, to spare the cores);
- latency: click "mouth" time (end of its capture frame minus its offset)
  to "ear" time (arrival of the frame it is in plus its offset).

Prints one JSON object. Nothing here is asserted; the figures go to bench/ROOM.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

RELAXED = {  # the room's 16 joins in a few seconds from one address
    "SUSSURRO_JOIN_BURST": "1000", "SUSSURRO_JOIN_RATE": "1000",
    "SUSSURRO_LOOKUP_BURST": "1000", "SUSSURRO_LOOKUP_RATE": "1000",
    "SUSSURRO_CREATE_BURST": "1000", "SUSSURRO_CREATE_RATE": "1000",
    "SUSSURRO_WS_BURST": "1000", "SUSSURRO_WS_RATE": "1000",
    # WebRTC on loopback only (the bots restrict themselves the same way), so the
    # server must be allowed to check loopback candidates.
    "SUSSURRO_RTC_ADDRESSES": "127.0.0.1",
    "SUSSURRO_RTC_ALLOW_LOCAL_CANDIDATES": "1",
}
CLICK_EVERY = 25  # frames: a click every 0.5 s
DEBATE_SEED = 7
TICKS = os.sysconf("SC_CLK_TCK")
LINGER = 5.0  # seconds the bots stay after the window


def debate_schedule(speakers: list[int], frames: int, seed: int = DEBATE_SEED) -> dict[int, list[bool]]:
    """Who speaks in which 20 ms frame of a debate: {bot index: on per frame}. One
    speaker at a time in syllables (80-300 ms, 30-150 ms apart), turns of 1-5 s, a
    backchannel (300 ms) from another in 60 % of turns, the next turn 0.3 s early
    to 0.6 s late. Deterministic: every worker process computes the same."""
    import random

    rng = random.Random(seed)
    on = {i: [False] * frames for i in speakers}
    t, spk = 0, speakers[0]
    while t < frames:
        end = t + int(rng.uniform(50, 250))
        u = t
        while u < min(end, frames):
            n = int(rng.uniform(4, 15))
            for k in range(u, min(u + n, frames)):
                on[spk][k] = True
            u += n + int(rng.uniform(1.5, 7.5))
        other = rng.choice(speakers)
        if other != spk and rng.random() < 0.6:
            b = t + int(rng.uniform(15, max(20, end - t - 15)))
            for k in range(max(0, b), min(b + 15, frames)):
                on[other][k] = True
        t = end + int(rng.uniform(-15, 30))
        spk = rng.choice([s for s in speakers if s != spk])
    return on


# ----------------------------------------------------------------- the server


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(db: str, profile: str | None = None,
                 extra_env: dict[str, str] | None = None) -> tuple[subprocess.Popen, str]:
    """`sussurro serve` on a free 127.0.0.1 port; waits for /healthz.

    `profile`: run it under cProfile and write the stats there at exit (see
    `serve_profiled`). `extra_env`: set in the server's environment only (not the bots').
    """
    import httpx

    port = _free_port()
    env = {**os.environ, **RELAXED, "PYTHONUNBUFFERED": "1", **(extra_env or {})}
    serve = ["serve", "--host", "127.0.0.1", "--port", str(port), "--db", db,
             "--log-level", "warning"]
    if profile:
        cmd = [sys.executable, __file__, "--serve-profiled", profile, *serve]
    else:
        cmd = [sys.executable, "-m", "sussurro.cli", *serve]
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                            stderr=open(db + ".log", "wb"))  # noqa: SIM115
    url = f"http://127.0.0.1:{port}"
    for _ in range(200):
        try:
            if httpx.get(url + "/healthz", timeout=1).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError("server did not start")


def serve_profiled(out: str, argv: list[str]) -> int:
    """`sussurro serve` under cProfile, stats written at exit (SIGINT).

    cProfile times with the wall clock: on a loaded machine it charges the time
    the process waits for a core to whatever call was running (a sendto can
    look 100 us long). A CPU-time timer would be right but costs a system call
    per Python call here. Only the event loop's thread is profiled, not
    aiortc's decoder threads."""
    import cProfile

    from sussurro.cli import main as cli_main

    # BENCH_PROFILE_CPU=1: time with the thread's CPU clock instead (a system
    # call per Python call, ~10 % slower, but preemption is not charged).
    prof = cProfile.Profile(time.thread_time) if os.environ.get("BENCH_PROFILE_CPU") else cProfile.Profile()
    try:
        prof.runcall(cli_main, argv)
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        prof.dump_stats(out)
    return 0


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process, in seconds (/proc/PID/stat fields 14 and 15)."""
    return sum(cpu_split(pid))


def cpu_split(pid: int) -> tuple[float, float]:
    """(utime, stime) of a process in seconds: its own code and the kernel's for it."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) / TICKS, int(fields[12]) / TICKS


# ----------------------------------------------------------------- a worker


def click_latencies(clicker, listener, source, since: float, until: float) -> list[float]:
    """Mouth-to-ear delay of every click sent in [since, until], found in `listener`'s ears."""
    import numpy as np

    from tests.e2e.spectrum import band

    rec = listener.recorder
    x = rec.audio()
    if len(x) == 0:
        return []
    ears = rec.sample_times()
    # a stereo listener (--spatial): the click as loud as in its louder ear
    env = (np.abs(band(x, 3000, 1000)) if x.ndim == 1
           else np.max([np.abs(band(x[:, c], 3000, 1000)) for c in range(x.shape[1])], axis=0))
    hot = np.flatnonzero(env > 0.15)
    out = []
    mic = clicker.voice.mic
    for n in source.click_frames(len(mic.captured)):
        mouth = mic.mouth_time(n * 960)
        if not since <= mouth <= until:
            continue
        # first loud 3 kHz sample heard after the click was spoken, within 400 ms
        i = np.searchsorted(ears[hot], mouth) if len(hot) else 0
        if i < len(hot) and ears[hot[i]] - mouth < 0.4:
            out.append(float(ears[hot[i]] - mouth))
    return out


async def worker(args: argparse.Namespace) -> dict:
    from server.media.rtc import restrict_host_addresses

    restrict_host_addresses(["127.0.0.1"])
    from client.bot import Bot
    from client.protocol_client import Client
    from client.rtc_peer import Clicks, Silence, Source, Tone

    class Turns(Source):
        """A tone spoken when the debate's schedule says so, silence otherwise."""

        def __init__(self, hz: float, on: list[bool]) -> None:
            self.tone, self.quiet, self.on = Tone(hz, 0.08), Silence(), on

        def frame(self, n: int):
            if n < len(self.on) and self.on[n]:
                return self.tone.frame(n)
            return self.quiet.frame(n)

    bots = []
    click_src = None
    frames = int((args.start_at - time.time() + args.seconds + LINGER + 60) * 50)
    schedule = debate_schedule(list(range(2, args.bots)), frames) if args.debate else {}
    for idx in args.indices:
        if idx == 0:
            click_src = Clicks(every=CLICK_EVERY, level=0.8, first=10)
            src, dtx = click_src, False
        elif idx in schedule:
            src, dtx = Turns(200 + 40 * idx, schedule[idx]), True
        elif 2 <= idx < 2 + args.talkers:
            src, dtx = Tone(200 + 40 * idx, 0.08), False
        else:
            src, dtx = Silence(), True
        decode = idx == 1  # the click listener; the others only time packet arrivals
        stereo = args.spatial
        if idx == 0:
            client = Client(args.url, args.room, args.host_player, args.host_token)
            bot = Bot(client, src, dtx=dtx, decode=decode, stereo=stereo)
            await client.connect()
            if args.spatial:
                await client.send("settings", voice={"spatial": True})
        else:
            bot = await Bot.join(args.url, args.room, f"Bot{idx}", src, dtx=dtx, decode=decode,
                                 stereo=stereo)
        bots.append(bot)
    await asyncio.gather(*(b.start_voice(timeout=60) for b in bots))
    # A few players lower one voice each (the next seat's): their own mixes split off
    # when that voice talks.
    await asyncio.sleep(max(0.0, args.start_at - 3 - time.time()))
    for idx, b in zip(args.indices, bots, strict=True):
        if idx < args.volumes and b.client.room:
            seats = [p["id"] for p in b.client.room["players"]]
            other = seats[(seats.index(b.pid) + 1) % len(seats)]
            await b.client.send("volumes", gains={other: 0.5})
    # wait for the common start (wall clock shared by the processes)
    await asyncio.sleep(max(0.0, args.start_at - time.time()))
    t0 = time.monotonic()
    await asyncio.sleep(args.seconds)
    t1 = time.monotonic()
    report: dict = {"bots": {}}
    for idx, b in zip(args.indices, bots, strict=True):
        spans = [(end, dt) for end, dt in b.recorder.gap_times(0.04, since=t0) if end <= t1]
        gaps = [dt for _, dt in spans]
        arrivals = [t for t in b.recorder.arrivals if t0 <= t <= t1]
        report["bots"][idx] = {"frames": len(arrivals), "gaps": len(gaps),
                               "max_gap_ms": round(1000 * max(gaps), 1) if gaps else 0.0,
                               "spans": [(round(e - d, 4), round(e, 4)) for e, d in spans]}
    if 0 in args.indices and 1 in args.indices:
        clicker = bots[args.indices.index(0)]
        listener = bots[args.indices.index(1)]
        report["latencies"] = click_latencies(clicker, listener, click_src, t0, t1 - 0.5)
    # stay connected while the driver reads the server's figures for the window
    await asyncio.sleep(max(0.0, args.start_at + args.seconds + LINGER - time.time()))
    await asyncio.gather(*(b.close() for b in bots), return_exceptions=True)
    return report


# ----------------------------------------------------------------- the driver


def run(args: argparse.Namespace) -> dict:
    import httpx
    import numpy as np

    from client.protocol_client import Client
    from server.media.rtcp import interval_from_env as rtcp_interval_from_env

    tmp = tempfile.mkdtemp(prefix="room_bench_")
    server_env = dict(kv.split("=", 1) for kv in args.server_env)
    proc, url = start_server(os.path.join(tmp, "bench.db"), args.profile, server_env)
    workers: list[subprocess.Popen] = []
    try:
        host = asyncio.run(Client.create(url, "Bot0", preset="intruso"))
        per = -(-args.bots // args.procs)
        start_at = time.time() + args.setup
        for w in range(args.procs):
            idx = list(range(w * per, min(args.bots, (w + 1) * per)))
            if not idx:
                continue
            cmd = [sys.executable, __file__, "--worker", "--url", url, "--room", host.code,
                   # "=": a token may start with "-"
                   f"--host-player={host.player}", f"--host-token={host.token}",
                   "--indices", ",".join(map(str, idx)), "--talkers", str(args.talkers),
                   "--seconds", str(args.seconds), "--start-at", str(start_at),
                   "--volumes", str(args.volumes), "--bots", str(args.bots)]
            cmd += (["--spatial"] if args.spatial else []) + (["--debate"] if args.debate else [])
            env = dict(os.environ)
            if args.bots_rtcp_interval is not None:
                env["SUSSURRO_RTCP_INTERVAL"] = str(args.bots_rtcp_interval)
            # a worker's errors go beside the server's log, to read when one fails
            workers.append(subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE,
                                            stderr=open(os.path.join(tmp, f"worker{w}.log"), "wb"),  # noqa: SIM115
                                            text=True))
        time.sleep(max(0.0, start_at - time.time()))
        (u0, k0), w0 = cpu_split(proc.pid), time.monotonic()
        b0 = sum(cpu_seconds(p.pid) for p in workers)
        m0 = httpx.get(url + "/metrics", timeout=30).text
        windows = tick_windows(url, w0 + args.seconds)
        (u1, k1), w1 = cpu_split(proc.pid), time.monotonic()
        threads = len(os.listdir(f"/proc/{proc.pid}/task"))
        b1 = sum(cpu_seconds(p.pid) for p in workers)
        m1 = httpx.get(url + "/metrics", timeout=30).text
        reports = []
        for p in workers:
            out, _ = p.communicate(timeout=args.seconds + args.setup + 60)
            lines = [ln for ln in out.splitlines() if ln.startswith("{")]
            reports.append(json.loads(lines[-1]) if lines else {"error": p.returncode})
    finally:
        for p in workers:
            if p.poll() is None:
                p.kill()
        # SIGINT: uvicorn shuts down, then re-raises it; as KeyboardInterrupt it
        # still lets cProfile write its file (SIGTERM would end the process first).
        proc.send_signal(signal.SIGINT if args.profile else signal.SIGTERM)
        try:
            proc.wait(60 if args.profile else 10)
        except subprocess.TimeoutExpired:
            proc.kill()

    bots = {int(k): v for r in reports for k, v in r.get("bots", {}).items()}
    shared = shared_gaps([[s for b in r.get("bots", {}).values() for s in b["spans"]]
                          for r in reports if "bots" in r])
    lat = [x for r in reports for x in r.get("latencies", [])]
    counters = ("sussurro_jitter_underruns_total", "sussurro_jitter_overflows_total",
                "sussurro_voice_track_drops", "sussurro_voice_encodes", "sussurro_voice_ticks",
                "sussurro_opus_encode_cpu_seconds_total", "sussurro_opus_decode_cpu_seconds_total",
                "sussurro_opus_decodes_total", "sussurro_voice_send_cpu_s",
                "sussurro_voice_packets_out", "sussurro_voice_mic_in_cpu_s",
                "sussurro_voice_mic_in_packets", "sussurro_voice_mic_flush_cpu_s",
                "sussurro_ws_messages_direct_total", "sussurro_ws_messages_writer_total",
                "sussurro_voice_late_ticks", "sussurro_voice_missed_ticks")
    gauges = ("sussurro_peers", "sussurro_mixer_tick_us_median", "sussurro_distinct_mixes_mean",
              "sussurro_voice_jitter_depth_mean", "sussurro_voice_native_senders",
              "sussurro_voice_native_receivers")
    metrics = {k: _metric(m1, k) - _metric(m0, k) for k in counters}  # during the window
    metrics.update({k: _metric(m1, k) for k in gauges})
    c0, c1, wall = u0 + k0, u1 + k1, w1 - w0
    opus = {op: metrics[f"sussurro_opus_{op}_cpu_seconds_total"] for op in ("encode", "decode")}
    return {
        "bots": args.bots, "procs": args.procs, "clicker": 1,
        "talkers": "debate" if args.debate else args.talkers,
        "spatial": args.spatial, "volumes": args.volumes,
        "seconds": args.seconds,
        # seconds between two RTCP reports of a stream, on average (server/media/rtcp.py)
        "rtcp_interval": {"server": (interval := rtcp_interval_from_env()),
                          "bots": (interval if args.bots_rtcp_interval is None
                                   else args.bots_rtcp_interval)},
        "server_cpu_core_share": round((c1 - c0) / wall, 3),
        # where it goes: the kernel's share (stime: sockets, epoll), libopus's (the
        # server's own count of its encodes and decodes, the thread's CPU clock), and
        # the rest (the interpreter, aiortc, SRTP, numpy, the web server)
        "server_cpu_split": {
            "kernel": round((k1 - k0) / wall, 3),
            "opus_encode": round(opus["encode"] / wall, 3),
            "opus_decode": round(opus["decode"] / wall, 3),
            "rest": round((u1 - u0 - opus["encode"] - opus["decode"]) / wall, 3),
            "encode_us": round(1e6 * opus["encode"] / max(metrics["sussurro_voice_encodes"], 1), 1),
            "decode_us": round(1e6 * opus["decode"] / max(metrics["sussurro_opus_decodes_total"], 1),
                               1),
            # within the rest: the voice tick's packet sends (the kernel's sendto included)
            "sends": round(metrics["sussurro_voice_send_cpu_s"] / wall, 3),
            "send_us": round(1e6 * metrics["sussurro_voice_send_cpu_s"]
                             / max(metrics["sussurro_voice_packets_out"], 1), 2),
            # and the mic packets': socket to batch (`mic_in`), then the tick's flush
            # less the decodes (`mic_deliver`: silence test, jitter queue, playout timing)
            "mic_in": round(metrics["sussurro_voice_mic_in_cpu_s"] / wall, 3),
            "mic_in_us": round(1e6 * metrics["sussurro_voice_mic_in_cpu_s"]
                               / max(metrics["sussurro_voice_mic_in_packets"], 1), 2),
            "mic_deliver": round((metrics["sussurro_voice_mic_flush_cpu_s"] - opus["decode"])
                                 / wall, 3),
            "mic_deliver_us": round(1e6 * (metrics["sussurro_voice_mic_flush_cpu_s"]
                                           - opus["decode"])
                                    / max(metrics["sussurro_opus_decodes_total"], 1), 2),
        },
        # per second of audio actually mixed: the same figure if the loaded machine
        # made the server skip ticks (then the share above under-reports)
        "server_cpu_per_audio_second": round((c1 - c0) / max(metrics["sussurro_voice_ticks"] * 0.02, 1e-9), 3),
        "bots_cpu_core_share": round((b1 - b0) / (w1 - w0), 3),
        "bots_reporting": len(bots),
        "frames_received_per_bot_min": min((b["frames"] for b in bots.values()), default=0),
        "gaps_over_40ms_total": sum(b["gaps"] for b in bots.values()),
        "bots_with_gaps": sum(1 for b in bots.values() if b["gaps"]),
        # gaps heard in every worker process at once: the server (or the host's
        # network stack) stalled, not one starved bot process
        "gaps_in_every_process": shared,
        "max_gap_ms": max((b["max_gap_ms"] for b in bots.values()), default=0.0),
        "mouth_to_ear_ms": {
            "clicks": len(lat),
            "median": round(1000 * float(np.median(lat)), 1) if lat else None,
            "p95": round(1000 * float(np.percentile(lat, 95)), 1) if lat else None,
            "max": round(1000 * max(lat), 1) if lat else None,
        },
        "server": metrics,
        "server_env": server_env,
        "server_threads": threads,
        # the voice loop's own tick cost (mix, encodes, sends), per TICK_WINDOW s window:
        # the median and the worst tick of each; ticks that started over a period late
        "tick_us": {
            "windows": len(windows),
            "median_of_medians": (round(float(np.median([m for m, _ in windows])), 1)
                                  if windows else None),
            "worst_median": round(max(m for m, _ in windows), 1) if windows else None,
            "median_of_maxima": (round(float(np.median([x for _, x in windows])), 1)
                                 if windows else None),
            "max": round(max(x for _, x in windows), 1) if windows else None,
            "late_ticks": metrics["sussurro_voice_late_ticks"],
            "missed_ticks": metrics["sussurro_voice_missed_ticks"],
        },
        "load_avg_1min": os.getloadavg()[0],
        "workers_failed": sum(1 for r in reports if "error" in r),
    }


def breakdown(players: int = 16, ticks: int = 300, spatial: bool = False, volumes: int = 0,
              paced: bool = False) -> dict:
    """CPU time (process clock) of the voice loop's own work per 20 ms tick, in process:
    the mixer, grouping identical mixes, Opus encodes; for 0, 1, 3 and all players
    talking. No network: this is the part of the server's cost that is not aiortc.

    `paced`: one tick every 20 ms as in the server, instead of back to back. The
    caches are then as cold as the server leaves them between ticks, which costs
    the same code several times more (bench/ROOM.md, "Server CPU per room")."""
    import numpy as np

    from audio import Routing
    from server.media.voice import RoomVoice

    class _Track:  # stands in for rtc.MixTrack: the packets go nowhere
        dropped = 0
        native = None

        def push(self, payload, tick):
            pass

    class _Peer:
        track = _Track()
        frames_in = silent_in = 0
        rtp_in = None  # no transport: RoomVoice.stats reads its receive figures from it

    voice = RoomVoice("BENCH")
    pids = [f"p{i}" for i in range(players)]
    for pid in pids:
        voice._peers[pid] = _Peer()
    voice.set_routing(Routing(public=frozenset(pids)))
    if spatial:  # voices around the table, every listener stereo
        voice.set_layout(pids)
        for pid in pids:
            voice.mixer.set_stereo(pid, True)
    for i in range(volumes):  # the last listeners each lower the first talker, each differently
        voice.set_volumes(pids[players - 1 - i], {pids[0]: round(0.5 + 0.1 * i, 2)})
    t = np.arange(960) / 48000
    out = {}
    for talkers in (0, 1, 3, players):
        step_s = 0.0
        enc0 = voice.stats()["encodes"]
        due = time.monotonic()
        for k in range(ticks):
            if paced:
                due += 0.02
                time.sleep(max(0.0, due - time.monotonic()))
            for j in range(talkers):
                f = 0.1 * np.sin(2 * np.pi * (300 + 37 * j) * (t + k * 0.02))
                voice.mixer.push(pids[j], f.astype(np.float32))
            a = time.process_time()
            voice._step()
            step_s += time.process_time() - a
        st = voice.stats()
        out[f"talkers_{talkers}"] = {
            "tick_us": round(step_s / ticks * 1e6),
            "encodes_per_tick": round((st["encodes"] - enc0) / ticks, 2),
            "distinct_mixes": st["distinct_mixes"]["last"],
            "core_share": round(step_s / ticks / 0.02, 3),
        }
    return {"players": players, "ticks": ticks, "spatial": spatial, "volumes": volumes,
            "paced": paced, "per_tick": out}


def shared_gaps(per_process: list[list[tuple[float, float]]]) -> int:
    """How many gap spans of the first process overlap a gap in every other process
    (spans are (start, end) in the monotonic clock all processes share)."""
    if len(per_process) < 2:
        return 0
    first, *others = per_process
    count = 0
    last_end = -1.0
    for start, end in sorted(first):
        if start < last_end:
            continue  # the same stall heard by another bot of this process
        if all(any(s < end and start < e for s, e in spans) for spans in others):
            count += 1
            last_end = end
    return count


TICK_WINDOW = 5.0  # s: the server keeps its last 250 ticks' costs (server/media/voicestats.py)


def tick_windows(url: str, until: float) -> list[tuple[float, float]]:
    """(median, max) of the voice tick's cost over each TICK_WINDOW s until `until`
    (time.monotonic()), read from /metrics: one read per window, so each covers its own
    ticks."""
    import httpx

    out = []
    while (left := until - time.monotonic()) > 0:
        time.sleep(min(TICK_WINDOW, left))
        if left >= TICK_WINDOW - 0.5:
            text = httpx.get(url + "/metrics", timeout=30).text
            out.append((_metric(text, "sussurro_mixer_tick_us_median"),
                        _metric(text, "sussurro_mixer_tick_us_max")))
    return out


def _metric(text: str, name: str) -> float:
    for line in text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    return 0.0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--bots", type=int, default=16)
    p.add_argument("--procs", type=int, default=4)
    p.add_argument("--seconds", type=float, default=30.0)
    p.add_argument("--talkers", type=int, default=2, help="bots speaking a steady tone")
    p.add_argument("--debate", action="store_true",
                   help="bots 2.. take turns as in a debate instead of --talkers tones")
    p.add_argument("--spatial", action="store_true",
                   help="voices placed around the table: every bot takes stereo")
    p.add_argument("--volumes", type=int, default=0,
                   help="bots 0..N-1 each lower the next seat's voice to 50 %%")
    p.add_argument("--setup", type=float, default=25.0, help="seconds allowed to connect")
    p.add_argument("--bots-rtcp-interval", type=float,
                   help="the bots' SUSSURRO_RTCP_INTERVAL (default: the server's, from the "
                        "environment; 1 is aiortc's own pace, as every bot had before 5 s)")
    p.add_argument("--profile", help="write the server's cProfile stats to this file")
    p.add_argument("--server-env", action="append", default=[], metavar="NAME=VALUE",
                   help="set in the server's environment only, e.g. OPENBLAS_NUM_THREADS=1")
    p.add_argument("--breakdown", action="store_true",
                   help="only time the voice loop's own work per tick, in process")
    p.add_argument("--paced", action="store_true",
                   help="with --breakdown: one tick every 20 ms (cold caches, as served)")
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--url", help=argparse.SUPPRESS)
    p.add_argument("--room", help=argparse.SUPPRESS)
    p.add_argument("--host-player", help=argparse.SUPPRESS)
    p.add_argument("--host-token", help=argparse.SUPPRESS)
    p.add_argument("--indices", help=argparse.SUPPRESS)
    p.add_argument("--start-at", type=float, help=argparse.SUPPRESS)
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--serve-profiled"]:
        return serve_profiled(argv[1], argv[2:])
    args = p.parse_args(argv)
    if args.breakdown:
        print(json.dumps(breakdown(args.bots, spatial=args.spatial, volumes=args.volumes,
                                   paced=args.paced),
                         sort_keys=True))
        return 0
    if args.worker:
        args.indices = [int(x) for x in args.indices.split(",")]
        print(json.dumps(asyncio.run(worker(args))), flush=True)
        return 0
    print(json.dumps(run(args), sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
