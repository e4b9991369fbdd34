"""The `sussurro` command line."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import MutableMapping

# Knobs OpenBLAS (numpy's and scipy's BLAS) reads for its thread count, in its order.
BLAS_THREAD_KNOBS = ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS")


def limit_blas_threads(environ: MutableMapping[str, str] = os.environ) -> None:
    """One BLAS thread unless the operator chose: the mixer's products are small (a few
    hundred microseconds a tick) and OpenBLAS's workers spin on a core beside the voice
    loop, which on a busy laptop made ticks wait for a core (bench/README.md, "numpy's
    BLAS threads"). OpenBLAS reads this once, when numpy is first imported: call it first."""
    if not any(environ.get(knob, "").strip() for knob in BLAS_THREAD_KNOBS):
        environ["OPENBLAS_NUM_THREADS"] = "1"


def _simulate(args: argparse.Namespace) -> int:
    from game.simulate import run

    report = run(preset=args.preset, players=args.players, games=args.games, seed=args.seed)
    print(json.dumps(report, sort_keys=True))
    return 0 if not report.get("invariants_broken") else 1


def _serve(args: argparse.Namespace) -> int:
    from server.main import serve

    return serve(args)


def main(argv: list[str] | None = None) -> int:
    limit_blas_threads()  # before anything below imports numpy
    parser = argparse.ArgumentParser(prog="sussurro", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    sim = sub.add_parser("simulate", help="play random legal games and print one JSON report")
    sim.add_argument("--preset", default="intruso")
    sim.add_argument("--players", type=int, default=8)
    sim.add_argument("--games", type=int, default=200)
    sim.add_argument("--seed", type=int, default=1)
    sim.set_defaults(func=_simulate)

    srv = sub.add_parser("serve", help="run the server")
    srv.add_argument("--host", default=None,
                     help="listen there, plain http (with --lan: HTTPS beside it)")
    srv.add_argument("--port", type=int, default=None)
    srv.add_argument("--db", default=None)
    srv.add_argument("--log-level", default=None)
    srv.add_argument("--ice-servers", default=None,
                     help='JSON list, e.g. \'[{"urls": "stun:stun.example.org:3478"}]\'')
    srv.add_argument("--public-url", default=None,
                     help="base URL put in QR codes (default: the request's own); in cluster "
                          "mode how clients reach this node ({port}, {worker} are filled in)")
    srv.add_argument("--redis", default=None,
                     help="redis://HOST:PORT/N: join a cluster of nodes (docs/cluster.md)")
    srv.add_argument("--workers", type=int, default=None,
                     help="with --redis: run N node processes on consecutive ports")
    reach = srv.add_mutually_exclusive_group()
    reach.add_argument("--lan", action="store_true",
                       help="play on the home network (the default without --host or --redis): "
                            "every interface, HTTPS with a certificate made for this machine, "
                            "the join address and its QR code printed")
    reach.add_argument("--local", action="store_true",
                       help="for development: plain http on 127.0.0.1 only (no phone reaches it)")
    srv.add_argument("--certfile", default=None,
                     help="a real certificate (PEM) for HTTPS instead of a self-made one")
    srv.add_argument("--keyfile", default=None, help="the key of --certfile (PEM)")
    srv.set_defaults(func=_serve)

    from server.cluster.cli import add_parser as add_cluster_parser

    add_cluster_parser(sub)

    try:  # the voice layer's bot command, when that layer is installed
        from client.bot_cli import add_parser as add_bot_parser
    except ImportError:
        add_bot_parser = None
    if add_bot_parser is not None:
        add_bot_parser(sub)

    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
