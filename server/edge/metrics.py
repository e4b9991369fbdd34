"""Prometheus text exposition of the server's figures (rooms, players, voice).

Voice figures come from each room's `RoomVoice.stats()`: numbers are summed
over rooms (peers, underruns, ...), tick costs take the worst room, a dict of
summary statistics (`{"last", "median", "max", ...}`) becomes one metric per
statistic, and any other dict (per-player counters) is summed.
"""

from __future__ import annotations

import ctypes
import math
from typing import Any

_SUMMARY_KEYS = {"last", "mean", "median", "min", "max", "p50", "p90", "p95", "p99"}

# Stable names for the figures dashboards care about; other stats keep their own name.
_NAMES = {
    "peers": ("sussurro_peers", "WebRTC peers connected", "gauge"),
    "loop_running": ("sussurro_voice_loops", "rooms whose 20 ms voice loop runs (a peer is"
                     " connected)", "gauge"),
    "underruns": ("sussurro_jitter_underruns_total", "jitter buffer underruns", "counter"),
    "overflows": ("sussurro_jitter_overflows_total", "jitter buffer overflows", "counter"),
    "tick_us_median": ("sussurro_mixer_tick_us_median", "median mixer tick cost (us), worst room",
                       "gauge"),
    "tick_us_max": ("sussurro_mixer_tick_us_max", "worst mixer tick cost (us)", "gauge"),
    "tick_us_last": ("sussurro_mixer_tick_us_last", "last mixer tick cost (us), worst room",
                     "gauge"),
    "distinct_mixes_last": ("sussurro_distinct_mixes", "distinct mixes in the last tick, all rooms",
                            "gauge"),
    "opus_encode_cpu_s": ("sussurro_opus_encode_cpu_seconds_total", "CPU time in Opus encodes"
                          " of the rooms' mixes", "counter"),
    "opus_decode_cpu_s": ("sussurro_opus_decode_cpu_seconds_total", "CPU time in Opus decodes"
                          " of the players' mics (libopus called directly)", "counter"),
    "decodes": ("sussurro_opus_decodes_total", "mic packets decoded (libopus called directly)",
                "counter"),
    "mic_recovered": ("sussurro_mic_frames_recovered_total", "lost mic frames rebuilt from the"
                      " next packet's in-band FEC", "counter"),
    "mic_concealed": ("sussurro_mic_frames_concealed_total", "lost mic frames concealed by"
                      " libopus (nothing to rebuild them from in time)", "counter"),
    "mic_reordered": ("sussurro_mic_packets_reordered_total", "mic packets that came after a"
                      " later one and were still played", "counter"),
    "mic_late": ("sussurro_mic_packets_late_total", "mic packets dropped: repeats, or too late"
                 " for their frame", "counter"),
    "distinct_mixes_mean": ("sussurro_distinct_mixes_mean", "mean distinct mixes per tick, summed"
                            " over rooms", "gauge"),
}


# What OpenBLAS builds call "how many threads may one product use": numpy's and scipy's
# wheels prefix and suffix the name (scipy-openblas, 64-bit integers).
_BLAS_GETTERS = ("openblas_get_num_threads", "openblas_get_num_threads64_",
                 "scipy_openblas_get_num_threads64_", "scipy_openblas_get_num_threads")


def blas_threads() -> int:
    """The most threads any OpenBLAS loaded in this process may use for one matrix product
    (numpy's, scipy's); 0 if none is loaded or it does not say. The server limits them to
    one unless the operator set OPENBLAS_NUM_THREADS or OMP_NUM_THREADS (sussurro/cli.py)."""
    try:
        with open("/proc/self/maps") as f:
            paths = {fields[5].rstrip() for fields in (line.split(maxsplit=5) for line in f)
                     if len(fields) == 6 and "openblas" in fields[5].lower()
                     and ".so" in fields[5]}
    except OSError:
        return 0
    most = 0
    for path in paths:
        try:
            lib = ctypes.CDLL(path)  # already loaded: the same handle, nothing run
        except OSError:
            continue
        for name in _BLAS_GETTERS:
            getter = getattr(lib, name, None)
            if getter is not None:
                most = max(most, int(getter()))
                break
    return most


def _number(value: Any) -> float | None:
    """A stat as one number: numbers as they are, containers summed (per-player counters)."""
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, dict):
        parts = [_number(v) for v in value.values()]
    elif isinstance(value, list | tuple):
        parts = [_number(v) for v in value]
    else:
        return None
    return sum(p for p in parts if p is not None)


def _flatten(stats: dict[str, Any]) -> dict[str, float]:
    out: dict[str, float] = {}
    for key, raw in stats.items():
        if isinstance(raw, dict) and raw and set(raw) <= _SUMMARY_KEYS:
            for sub, value in raw.items():
                number = _number(value)
                if number is not None:
                    out[f"{key}_{sub}"] = number
        else:
            number = _number(raw)
            if number is not None:
                out[key] = number
    return out


def _fmt(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c == "_" else "_" for c in name).lower()


def render_metrics(stats: dict[str, Any]) -> str:
    """The Prometheus 0.0.4 text format for `Rooms.stats()`."""
    lines: list[str] = []

    def metric(name: str, help_: str, kind: str, value: float) -> None:
        lines.append(f"# HELP {name} {help_}")
        lines.append(f"# TYPE {name} {kind}")
        lines.append(f"{name} {_fmt(value)}")

    metric("sussurro_rooms", "rooms loaded", "gauge", stats["rooms"])
    metric("sussurro_rooms_playing", "rooms with a game running", "gauge", stats["rooms_playing"])
    metric("sussurro_players", "players seated in loaded rooms", "gauge", stats["players"])
    metric("sussurro_players_online", "players with a socket open", "gauge",
           stats["players_online"])
    metric("sussurro_db_changes_total", "rows written to the database since start",
           "counter", stats.get("db_changes", 0))
    metric("sussurro_ice_candidates_refused_total", "remote ICE candidates ignored: loopback,"
           " link-local, the server's own or unroutable addresses", "counter",
           stats.get("ice_refused", 0))
    ws = stats.get("ws_messages", {})
    metric("sussurro_ws_messages_direct_total", "WebSocket messages written straight to the"
           " socket (nothing waited before them)", "counter", ws.get("direct", 0))
    metric("sussurro_ws_messages_writer_total", "WebSocket messages sent by the socket's writer"
           " task (a backlog, or a socket the direct path does not fit)", "counter",
           ws.get("writer", 0))
    if "blas_threads" in stats:
        metric("sussurro_blas_threads", "threads numpy's BLAS may use for one matrix product"
               " (1 unless OPENBLAS_NUM_THREADS or OMP_NUM_THREADS says otherwise)", "gauge",
               stats["blas_threads"])
    metric("sussurro_lemma_dictionaries", "languages whose lemma dictionary this process has"
           " read (each when a game in it first starts or is replayed)", "gauge",
           stats.get("lemma_languages", 0))
    metric("sussurro_voice_rooms", "rooms with a voice (built at their first accepted offer)",
           "gauge",
           len(stats["voices"]))

    totals: dict[str, float] = {}
    for voice in stats["voices"]:
        for key, value in _flatten(voice).items():
            if "tick_us" in key:  # a cost: the worst room matters, not the sum
                totals[key] = max(totals.get(key, 0.0), value)
            else:
                totals[key] = totals.get(key, 0.0) + value
    for key in _NAMES:
        totals.setdefault(key, 0.0)
    for key in sorted(totals):
        name, help_, kind = _NAMES.get(
            key, (f"sussurro_voice_{_safe(key)}", f"voice stat {key}, summed over rooms", "gauge"))
        metric(name, help_, kind, totals[key])
    if stats.get("cluster"):
        lines.extend(_cluster_lines(stats["cluster"]))
    return "\n".join(lines) + "\n"


# Cluster mode (server/cluster/node.py's stats): name, help, kind.
_CLUSTER = {
    "claims": ("sussurro_cluster_claims", "rooms this node holds a claim on", "gauge"),
    "cpu": ("sussurro_cluster_cpu", "CPU of this process per second (1 = one core), as published",
            "gauge"),
    "draining": ("sussurro_cluster_draining", "1 while the node hands its rooms over", "gauge"),
    "adopted": ("sussurro_cluster_rooms_adopted_total", "rooms claimed and rebuilt here",
                "counter"),
    "lost": ("sussurro_cluster_rooms_lost_total", "rooms found owned by another node",
             "counter"),
    "handed_over": ("sussurro_cluster_rooms_handed_over_total", "rooms moved away by a drain",
                    "counter"),
    "refused_writes": ("sussurro_cluster_fenced_writes_refused_total",
                       "writes refused because another node owned the room", "counter"),
    "unreplicated_writes": ("sussurro_cluster_unreplicated_writes_total",
                            "writes not acknowledged by redis_wait_replicas in time", "counter"),
    "beats": ("sussurro_cluster_heartbeats_total", "heartbeats sent", "counter"),
    "beat_failures": ("sussurro_cluster_heartbeat_failures_total", "heartbeats that failed",
                      "counter"),
    "since_renewal": ("sussurro_cluster_seconds_since_renewal",
                      "seconds since the claims were last renewed", "gauge"),
    "sleeps": ("sussurro_cluster_sleeps_total",
               "times this process did not run for half a claim's life (its voice waits "
               "for a renewal)", "counter"),
    "forwarded": ("sussurro_cluster_forwarded_total", "requests answered by another node",
                  "counter"),
    "forward_failures": ("sussurro_cluster_forward_failures_total",
                         "requests that could not be forwarded", "counter"),
}


def _cluster_lines(c: dict[str, Any]) -> list[str]:
    node = str(c.get("node", "")).replace("\\", "").replace('"', "")
    lines = ["# HELP sussurro_cluster_node this node's id (label) in the registry",
             "# TYPE sussurro_cluster_node gauge", f'sussurro_cluster_node{{node="{node}"}} 1']
    for key, (name, help_, kind) in _CLUSTER.items():
        value = _number(c.get(key, 0))
        if value is None:
            continue
        lines += [f"# HELP {name} {help_}", f"# TYPE {name} {kind}", f"{name} {_fmt(value)}"]
    return lines
