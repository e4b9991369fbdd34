"""Issue 12: "Keep the embedded default exactly as it is (one process, SQLite, nothing else
to install)": without --redis nothing of cluster mode is imported, and its settings are off."""

from __future__ import annotations

import subprocess
import sys

from server.config import Settings
from tests.support.server_proc import ROOT

PROBE = """
import sys
sys.modules["redis"] = None          # as if the cluster extra were not installed
sys.modules["httpx"] = None
import asyncio, tempfile, os
from server.edge.app import create_app
from server.config import Settings

async def main():
    app = create_app(Settings(db=os.path.join(tempfile.mkdtemp(), "e.db")))
    async with app.router.lifespan_context(app):
        assert app.state.cluster is None
    cluster = {"server.cluster.node", "server.storage.redis_store", "server.storage.redis_scripts",
               "server.cluster.forward", "server.cluster.placement", "server.cluster.workers"}
    print("ok", sorted(cluster & set(sys.modules)))

asyncio.run(main())
"""


def test_the_embedded_default_needs_neither_redis_nor_the_cluster_modules():
    out = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "ok []"


def test_cluster_settings_are_off_by_default():
    s = Settings()
    assert (s.redis, s.workers) == ("", 1)
