"""`sussurro serve`: run the app under uvicorn until SIGTERM/SIGINT.

In cluster mode (`--redis`) the first SIGTERM drains the node before uvicorn
stops it: the node takes no new rooms and hands every room to another node
(clients follow), then exits. `--workers N` runs N such nodes (server/cluster/workers.py).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import re
import signal
import ssl
import sys
from collections.abc import Awaitable, Callable

import uvicorn

from server.config import ENV_PREFIX, Settings, env_values, load_settings
from server.edge.app import create_app

# Frames above this are refused by the WebSocket layer itself (close 1009);
# frames between Settings.max_frame and this get a `too_large` error reply.
WS_HARD_LIMIT = 64 * 1024


def settings_from_args(args: argparse.Namespace) -> Settings:
    """Defaults < environment < the flags given on the command line.

    The evening's server is the default: with no `--local`, no host (flag or a non-empty
    SUSSURRO_HOST), no SUSSURRO_LAN and no cluster (`--redis`), `serve` runs as `--lan`
    does, so that phones on the same network can join. `--lan` binds every interface
    unless a host is given; `--local` keeps plain http on loopback for development.
    An explicit host keeps what it says (plain http unless `--lan`), as tests and
    reverse proxies need.
    """
    env = env_values()
    if not env.get("host", "").strip():
        env.pop("host", None)  # compose's `SUSSURRO_HOST: ${SUSSURRO_HOST:-}` means "not set"
    local = bool(getattr(args, "local", False))
    cli = {
        "host": getattr(args, "host", None),
        "port": getattr(args, "port", None),
        "db": getattr(args, "db", None),
        "log_level": getattr(args, "log_level", None),
        "ice_servers": getattr(args, "ice_servers", None),
        "public_url": getattr(args, "public_url", None),
        "lan": True if getattr(args, "lan", False) else (False if local else None),
        "certfile": getattr(args, "certfile", None),
        "keyfile": getattr(args, "keyfile", None),
        "redis": getattr(args, "redis", None),
        "workers": getattr(args, "workers", None),
    }
    host_given = cli["host"] is not None or "host" in env
    if cli["lan"] is None and "lan" not in env and not host_given \
            and not (cli["redis"] or env.get("redis")):
        cli["lan"] = True
    settings = load_settings(cli, environ={ENV_PREFIX + k.upper(): v for k, v in env.items()})
    if settings.lan and not host_given:
        from server.reach.https import EVERY_INTERFACE

        settings = settings.with_overrides({"host": EVERY_INTERFACE})
    return settings


class RedactTokens(logging.Filter):
    """Seat tokens travel in the socket URL (`/ws?token=...`): keep them out of the logs."""

    PATTERN = re.compile(r"(token=)[^\s&\"']+")

    def filter(self, record: logging.LogRecord) -> bool:
        if record.args:
            record.args = tuple(self.PATTERN.sub(r"\1[redacted]", a) if isinstance(a, str) else a
                                for a in (record.args if isinstance(record.args, tuple)
                                          else (record.args,)))
        if isinstance(record.msg, str):
            record.msg = self.PATTERN.sub(r"\1[redacted]", record.msg)
        return True


class DrainOnTerm:
    """A uvicorn server mixin: SIGTERM first awaits `drain_hook` (cluster mode), then exits.

    Without a hook (the embedded default) SIGTERM is uvicorn's own.
    """

    drain_hook: Callable[[], Awaitable[None]] | None = None
    _draining = False
    _loop: asyncio.AbstractEventLoop | None = None
    _drain_task: asyncio.Task[None] | None = None

    async def serve(self, sockets=None) -> None:
        self._loop = asyncio.get_running_loop()
        await super().serve(sockets)

    def handle_exit(self, sig: int, frame) -> None:
        if (sig == signal.SIGTERM and self.drain_hook is not None and not self._draining
                and not self.should_exit and self._loop is not None and self.started):
            self._draining = True
            self._captured_signals.append(sig)
            self._loop.call_soon_threadsafe(self._start_drain)
            return
        super().handle_exit(sig, frame)

    def _start_drain(self) -> None:
        async def run() -> None:
            try:
                await self.drain_hook()
            except Exception:
                logging.getLogger(__name__).exception("drain failed")
            finally:
                self.should_exit = True

        self._drain_task = asyncio.ensure_future(run())


class NodeServer(DrainOnTerm, uvicorn.Server):
    """uvicorn's server with the cluster drain on SIGTERM."""


def serve(args: argparse.Namespace) -> int:
    """Serve until a signal; uvicorn handles SIGTERM/SIGINT and runs the app's shutdown
    (rooms stop, sockets get 1012 "restart", the database is checkpointed and closed)."""
    settings = settings_from_args(args)
    if settings.workers > 1:
        from server.cluster.workers import supervise

        return supervise(settings)
    logging.basicConfig(level=settings.log_level.upper(),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    from server.edge.forwarded import TrustedProxies
    from server.reach.https import https_enabled

    sockets, plan = [], None
    try:
        TrustedProxies.parse(settings.trusted_proxies)
        if https_enabled(settings):
            from server.reach.https import prepare_https
            from server.reach.listen import bind_sockets

            sockets = bind_sockets(settings.host, settings.port)
            plan = prepare_https(settings, sockets[0].getsockname()[1])
            settings = plan.settings
    except (ValueError, OSError, ssl.SSLError) as exc:
        for sock in sockets:
            sock.close()
        print(f"sussurro serve: {exc}", file=sys.stderr)
        return 2
    app = create_app(settings)
    from server.edge.headguard import guarded_protocol

    config = uvicorn.Config(
        app,
        # uvicorn's httptools protocol with request heads bounded in time, size and
        # per address (uvicorn bounds none of them).
        http=guarded_protocol(settings),
        host=settings.host,
        port=settings.port,
        log_level=settings.log_level.lower(),
        ws_max_size=WS_HARD_LIMIT,
        # No per-message deflate: the messages are small JSON, most of them `mouths`
        # (~16.7 a second to every socket while someone talks, a few dozen bytes), and
        # deflating each cost ~18 us of the ~90 us a message costs the server
        # (bench/ROOM.md, "What the `mouths` broadcast costs"), and each phone an inflate.
        ws_per_message_deflate=False,
        timeout_graceful_shutdown=5,
        lifespan="on",
        # Forwarded headers are read by the app itself, from `trusted_proxies` only
        # (uvicorn would otherwise believe any local client).
        proxy_headers=False,
    )
    for name in ("uvicorn.access", "uvicorn.error"):
        logging.getLogger(name).addFilter(RedactTokens())
    drain = app.state.drain if settings.redis else None
    if plan is None:
        server = NodeServer(config)
        server.drain_hook = drain
        server.run()
        return 0
    from server.reach.banner import lan_banner, no_lan_banner
    from server.reach.listen import SniffingServer

    if plan.no_lan:
        print(no_lan_banner(plan.local_url), flush=True)
    elif settings.lan:
        made = "made now" if plan.created else "kept"
        note = (f"Certificate: {plan.certfile}" if settings.certfile else
                f"Certificate made by this computer ({made}): {plan.certfile}")
        print(lan_banner(plan.join_url, plan.guide_url, plan.local_url, note), flush=True)
    else:
        print(f"Sussurro: {plan.join_url} (http and https on the same port)", flush=True)
    sniffing = type("SniffingNode", (DrainOnTerm, SniffingServer), {})(config, sockets,
                                                                       plan.context)
    sniffing.drain_hook = drain
    sniffing.run()
    return 0
