"""Failover that players do not notice (issue 33): real nodes on a real Redis.

Each test names the item of issue 33 it checks. Timings are not asserted here
(a loaded machine would make them flaky): bench/cluster_bench.py measures them.
"""

from __future__ import annotations

import time

import httpx
import pytest

from client.protocol_client import Client
from tests.support.cluster_proc import ClusterProc

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180), pytest.mark.xdist_group("cluster")]


def _owner_and_other(cl: ClusterProc, code: str):
    owner = cl.node_by_id(cl.owner_of(code))
    other = next(n for n in cl.nodes if n is not owner)
    return owner, other


async def test_issue33_5_a_lookup_while_redis_is_down_is_503_with_retry_after(tmp_path):
    """Item 5: a node that does not hold the room answers 503 + Retry-After (not 500 with a
    traceback) while Redis is unreachable, and logs it once, not once per request."""
    with ClusterProc(tmp_path, nodes=2, log_level="warning") as cl:
        host = await Client.create(cl.nodes[0].base_url, "Ada")
        _, other = _owner_and_other(cl, host.code)
        await host.close()
        cl.redis.stop()
        answers = [httpx.get(other.url(f"/api/rooms/{host.code}"), timeout=10)
                   for _ in range(5)]
        assert [a.status_code for a in answers] == [503] * 5, answers[0].text
        assert all(int(a.headers["retry-after"]) >= 1 for a in answers)
        assert answers[0].json()["code"] == "store_unavailable"
        time.sleep(0.2)
        text = other.log_path.read_text(errors="replace")
        assert "Traceback" not in text
        assert text.count("store unavailable") <= 1
