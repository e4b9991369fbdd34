"""/healthz for load balancers and /metrics for the operator, and who counts as one."""

from __future__ import annotations

import hmac
import ipaddress
import time
from typing import TYPE_CHECKING

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, PlainTextResponse

from server.edge.metrics import blas_threads, render_metrics
from server.edge.replies import error

if TYPE_CHECKING:
    from server.edge.context import Edge

# Headers a proxy adds; from a peer that is not a trusted proxy they say only that the
# real client is someone else, somewhere.
_FORWARDING = ("x-forwarded-for", "forwarded", "x-real-ip")


def _loopback_ip(text: str) -> bool:
    try:
        ip = ipaddress.ip_address(text)
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_loopback


def operator(edge: Edge, request: Request) -> bool:
    """May read the operational figures: this machine itself (a loopback peer, or the
    loopback client a trusted proxy names), or whoever holds `metrics_token`. Their
    counts move with a game's secret actions (a seer's look, the wolves' pick)."""
    token = edge.settings.metrics_token
    given = request.headers.get("authorization", "")
    if token and given[:7].lower() == "bearer " and hmac.compare_digest(
            given[7:].strip().encode(), token.encode()):
        return True
    peer = request.client.host if request.client else None
    if not edge.proxies.trusts(peer) and any(h in request.headers for h in _FORWARDING):
        return False  # an unconfigured proxy on this machine: its client is anyone
    return _loopback_ip(edge.client_ip(request))


def add_health_routes(app: FastAPI, edge: Edge) -> None:
    """Add /healthz and /metrics."""
    cluster = edge.cluster

    @app.get("/healthz")
    async def healthz(request: Request):
        ok, body = True, {}
        if cluster is not None:
            # A draining node, or one cut off from Redis, asks load balancers to look
            # elsewhere.
            c = cluster.stats()
            ok = not c["draining"] and c["since_renewal"] <= cluster.ttl
            body = dict(node=c["node"], url=c["url"], draining=c["draining"],
                        claims=c["claims"])
        # To anyone else: up or not, and no figure a game could move.
        body = ({"ok": ok, "rooms": len(edge.rooms.rooms),
                 "uptime": round(time.time() - edge.started, 3), **body}
                if operator(edge, request) else {"ok": ok})
        return JSONResponse(body, status_code=200 if ok else 503)

    @app.get("/metrics")
    async def metrics(request: Request):
        if not operator(edge, request):
            return error(403, "forbidden", "the figures are for this machine, or for a"
                         " bearer token (the metrics_token setting)")
        stats = {**edge.rooms.stats(), "blas_threads": blas_threads()}
        if cluster is not None:
            stats["cluster"] = {**cluster.stats(), "forwarded": edge.forward.count,
                                "forward_failures": edge.forward.failures}
        return PlainTextResponse(render_metrics(stats), media_type="text/plain; version=0.0.4")
