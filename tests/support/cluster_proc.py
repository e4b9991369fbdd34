"""A REAL cluster for tests: one redis-server and N `sussurro serve --redis` nodes.

    from tests.support.cluster_proc import ClusterProc

    with ClusterProc(tmp_path, nodes=3) as cl:
        cl.nodes[0].base_url              # each node is a ServerProc on its own port
        cl.redis.cli("KEYS", "*")         # the Redis of the cluster
        cl.nodes[1].kill()                # SIGKILL a node
        cl.pause_redis(); cl.resume_redis()  # SIGSTOP / SIGCONT the Redis server
        cl.status()                       # `sussurro cluster status --json`, parsed

Every node listens on 127.0.0.1 with its public URL http://127.0.0.1:PORT,
a short heartbeat expiry (`ttl`, 2 s by default: a dead node's rooms move
within a few seconds) and no ramp-up, so placement follows load alone. All
processes are killed at teardown.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tests.support.redis_proc import RedisProc
from tests.support.server_proc import ROOT, PortTaken, ServerProc, _python, free_port


class ClusterProc:
    """Redis plus `nodes` server processes joined to it."""

    def __init__(self, folder: str | os.PathLike[str], nodes: int = 3, ttl: float = 2.0,
                 env: dict[str, str] | None = None, log_level: str = "info",
                 redis_urls: dict[int, str] | None = None) -> None:
        self.folder = Path(folder)
        self.log_level = log_level
        self.redis = RedisProc(self.folder / "redis")
        self.ttl = ttl
        self.env = env or {}
        # Node i reaches Redis at redis_urls[i] if given (a proxy a test can cut).
        self.redis_urls = redis_urls or {}
        self.nodes: list[ServerProc] = []
        for i in range(nodes):
            self.nodes.append(self._node(i))

    def _node(self, i: int) -> ServerProc:
        port = free_port()
        env = {"SUSSURRO_REDIS": self.redis_urls.get(i, self.redis.url),
               "SUSSURRO_PUBLIC_URL": f"http://127.0.0.1:{port}",
               "SUSSURRO_CLUSTER_TTL": str(self.ttl),
               "SUSSURRO_CLUSTER_RAMP": "0",
               "SUSSURRO_DRAIN_TIMEOUT": "20",
               "SUSSURRO_NODE_ID": f"node{i + 1}",
               **self.env}
        return ServerProc(self.folder / f"node{i + 1}.db", port=port, env=env,
                          log_level=self.log_level)

    def _start_node(self, i: int) -> ServerProc:
        """Start node i; on a port another process took first, again on a fresh port (its
        public URL names the port, so the node is made anew)."""
        for _ in range(3):
            try:
                return self.nodes[i].start(timeout=60)
            except PortTaken:
                self.nodes[i].kill()
                self.nodes[i] = self._node(i)
        return self.nodes[i].start(timeout=60)

    def start(self) -> ClusterProc:
        self.redis.start()
        # The nodes boot side by side (each takes seconds to import its stack).
        with ThreadPoolExecutor(len(self.nodes) or 1) as pool:
            list(pool.map(self._start_node, range(len(self.nodes))))
        return self

    def add_node(self) -> ServerProc:
        """Start one more node in the cluster."""
        self.nodes.append(self._node(len(self.nodes)))
        return self._start_node(len(self.nodes) - 1)

    def pause(self, node: ServerProc) -> None:
        """SIGSTOP: the node freezes (its sockets stay open, it beats no more)."""
        os.killpg(node.proc.pid, signal.SIGSTOP)

    def resume(self, node: ServerProc) -> None:
        os.killpg(node.proc.pid, signal.SIGCONT)

    def pause_redis(self) -> None:
        """SIGSTOP Redis: its connections stay open, nothing is answered (time-outs)."""
        os.kill(self.redis.proc.pid, signal.SIGSTOP)

    def resume_redis(self) -> None:
        os.kill(self.redis.proc.pid, signal.SIGCONT)

    def status(self) -> dict:
        """`sussurro cluster status --json` run as a command, parsed."""
        out = subprocess.run([_python(), "-m", "sussurro.cli", "cluster", "status", "--json",
                              "--redis", self.redis.url], cwd=ROOT, capture_output=True,
                             text=True, timeout=30, check=True)
        return json.loads(out.stdout)

    def owner_of(self, code: str) -> str | None:
        """The node id holding room `code`'s claim now."""
        raw = self.redis.cli("GET", f"sussurro:room:{code}:claim")
        return raw.rpartition(" ")[0] if raw else None

    def node_by_id(self, node_id: str) -> ServerProc:
        return self.nodes[int(node_id.removeprefix("node")) - 1]

    def wait_owner(self, code: str, pred, timeout: float = 20.0) -> str:
        """Poll until the owner of `code` satisfies `pred(owner)`; that owner."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            owner = self.owner_of(code)
            if pred(owner):
                return owner
            time.sleep(0.05)
        raise TimeoutError(f"room {code}: owner still {self.owner_of(code)}")

    def stop(self) -> None:
        for node in self.nodes:
            if node.proc is not None:
                try:
                    os.killpg(node.proc.pid, signal.SIGCONT)  # a paused node cannot die
                except ProcessLookupError:
                    pass
            node.kill()
        if self.redis.proc is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.redis.proc.pid, signal.SIGCONT)
        self.redis.stop()

    def __enter__(self) -> ClusterProc:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
