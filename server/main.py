"""`sussurro serve`: run the app under uvicorn until SIGTERM/SIGINT."""

from __future__ import annotations

import argparse
import logging

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
    server.run()
    return 0
