"""`sussurro cluster status`: the live nodes, their load and their rooms, read from Redis.

    sussurro cluster status --redis redis://127.0.0.1:6379/0          # a table
    sussurro cluster status --redis redis://127.0.0.1:6379/0 --json   # one JSON object

Read-only: it joins nothing and claims nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from typing import Any

from server.config import load_settings


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register `sussurro cluster ...` on the CLI's subparsers."""
    p = subparsers.add_parser("cluster", help="look at a cluster of nodes (cluster mode)")
    sub = p.add_subparsers(dest="cluster_command", required=True)
    st = sub.add_parser("status", help="list the live nodes, their load and their rooms")
    st.add_argument("--redis", default=None, help="redis://HOST:PORT/N (or SUSSURRO_REDIS)")
    st.add_argument("--prefix", default=None, help="key prefix (or SUSSURRO_REDIS_PREFIX)")
    st.add_argument("--json", action="store_true", help="one JSON object instead of a table")
    st.set_defaults(func=_status_cli)
    return p


async def status(redis_url: str, prefix: str) -> dict[str, Any]:
    """{nodes: [...], rooms: n, unclaimed: [codes]} as the registry and the claims say now."""
    from server.cluster.membership import read_registry
    from server.cluster.node import redis_client
    from server.storage.redis_keys import Keys

    r = redis_client(redis_url)
    keys = Keys(prefix)
    try:
        registry = await read_registry(r, keys)
        codes = list(await r.zrange(keys.rooms(), 0, -1))
        claims = await r.mget([keys.claim(c) for c in codes]) if codes else []
    finally:
        await r.aclose()
    held: dict[str, list[str]] = {}
    unclaimed = []
    for code, raw in zip(codes, claims, strict=True):
        if raw:
            held.setdefault(raw.rpartition(" ")[0], []).append(code)
        else:
            unclaimed.append(code)
    now = time.time()
    nodes = [{"id": n.id, "url": n.url, "cpu": n.cpu, "cores": n.cores, "rooms": n.rooms,
              "peers": n.peers, "draining": n.draining, "age": round(now - n.started, 1),
              "pid": int(raw.get("pid", 0)), "beat_age": round(now - float(raw.get("beat", now)), 2),
              "claims": sorted(held.get(n.id, []))}
             for n, raw in registry]
    return {"nodes": nodes, "rooms": len(codes), "unclaimed": sorted(unclaimed)}


def _table(report: dict[str, Any]) -> str:
    lines = [f"{'node':<28} {'url':<28} {'cpu':>5} {'rooms':>5} {'peers':>5} {'age':>7}  state"]
    for n in report["nodes"]:
        state = "draining" if n["draining"] else "live"
        lines.append(f"{n['id']:<28} {n['url']:<28} {n['cpu']:>5.2f} {n['rooms']:>5} "
                     f"{n['peers']:>5} {n['age']:>6.0f}s  {state}")
        if n["claims"]:
            lines.append(f"{'':<28} rooms: {' '.join(n['claims'])}")
    lines.append(f"{len(report['nodes'])} node(s), {report['rooms']} live room(s)"
                 + (f", unclaimed: {' '.join(report['unclaimed'])}" if report["unclaimed"]
                    else ""))
    return "\n".join(lines)


def _status_cli(args: argparse.Namespace) -> int:
    settings = load_settings({"redis": args.redis, "redis_prefix": args.prefix})
    if not settings.redis:
        print("cluster status needs --redis URL (or SUSSURRO_REDIS)")
        return 2
    report = asyncio.run(status(settings.redis, settings.redis_prefix))
    print(json.dumps(report, sort_keys=True) if args.json else _table(report))
    return 0
