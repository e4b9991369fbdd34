"""`sussurro serve`: run the app under uvicorn until SIGTERM/SIGINT."""

from __future__ import annotations

import argparse
import logging
import re

import uvicorn

from server.app import create_app
from server.config import Settings, load_settings

# Frames above this are refused by the WebSocket layer itself (close 1009);
# frames between Settings.max_frame and this get a `too_large` error reply.
WS_HARD_LIMIT = 64 * 1024


def settings_from_args(args: argparse.Namespace) -> Settings:
    """Defaults < environment < the flags given on the command line."""
    cli = {
        "host": getattr(args, "host", None),
        "port": getattr(args, "port", None),
        "db": getattr(args, "db", None),
        "log_level": getattr(args, "log_level", None),
        "ice_servers": getattr(args, "ice_servers", None),
        "public_url": getattr(args, "public_url", None),
    }
    return load_settings(cli)


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


def serve(args: argparse.Namespace) -> int:
    """Serve until a signal; uvicorn handles SIGTERM/SIGINT and runs the app's shutdown
    (rooms stop, sockets get 1012 "restart", the database is checkpointed and closed)."""
    settings = settings_from_args(args)
    logging.basicConfig(level=settings.log_level.upper(),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    app = create_app(settings)
    config = uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        log_level=settings.log_level.lower(),
        ws_max_size=WS_HARD_LIMIT,
        timeout_graceful_shutdown=5,
        lifespan="on",
    )
    server = uvicorn.Server(config)
    for name in ("uvicorn.access", "uvicorn.error"):
        logging.getLogger(name).addFilter(RedactTokens())
    server.run()
    return 0
