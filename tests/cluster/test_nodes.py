"""Real node processes on a real Redis (issue 12): any node answers any request, sockets
go to the room's node, `/healthz` and `/metrics` per node, `sussurro cluster status`,
`--workers N`."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import time

import httpx
import pytest
import websockets

from client.protocol_client import Client, HttpError
from tests.support.cluster_proc import ClusterProc
from tests.support.redis_proc import RedisProc
from tests.support.server_proc import ROOT, _python, free_port

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180), pytest.mark.xdist_group("cluster")]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    with ClusterProc(tmp_path_factory.mktemp("cl"), nodes=2, log_level="warning") as cl:
        yield cl


def _owner_and_other(cl: ClusterProc, code: str):
    owner = cl.node_by_id(cl.owner_of(code))
    other = next(n for n in cl.nodes if n is not owner)
    return owner, other


async def test_any_node_answers_and_the_socket_goes_to_the_rooms_node(cluster):
    host = await Client.create(cluster.nodes[0].base_url, "Ada")
    owner, other = _owner_and_other(cluster, host.code)
    assert host.node == owner.base_url
    # A join through the other node is answered by the owner: the seat is the owner's.
    bob = await Client.join(other.base_url, host.code, "Bob")
    assert bob.node == owner.base_url and bob.player == "p2"
    info = httpx.get(other.url(f"/api/rooms/{host.code}"), timeout=10)
    assert info.json()["node"] == owner.base_url
    assert [p["name"] for p in info.json()["players"]] == ["Ada", "Bob"]
    assert info.headers["access-control-allow-origin"] == "*"   # pages of other nodes ask
    # Refusals come back unchanged through the forward, and change nothing.
    with pytest.raises(HttpError) as err:
        await Client.join(other.base_url, host.code, "ada")
    assert (err.value.status, err.value.code) == (409, "name_taken")
    with pytest.raises(HttpError) as err:
        await Client.join(other.base_url, "ZZZZZ", "Cy")
    assert (err.value.status, err.value.code) == (404, "unknown_room")
    # A socket opened on the wrong node is told where to go, then closed with 4010.
    async with websockets.connect(f"ws://127.0.0.1:{other.port}/ws?token={bob.token}") as ws:
        moved = json.loads(await asyncio.wait_for(ws.recv(), 10))
        assert moved == {"type": "moved", "room": host.code, "node": owner.base_url}
        with pytest.raises(websockets.ConnectionClosed):
            await asyncio.wait_for(ws.recv(), 10)
        assert ws.close_code == 4010
    # The client follows that by itself.
    lost = Client(other.base_url, host.code, bob.player, bob.token)   # knows no node
    await lost.connect()
    try:
        assert lost.node == owner.base_url and lost.welcome["node"] == owner.base_url
        # It learns every live node: in the welcome, or in a `nodes` message soon after
        # when the owner's last look at the registry (once a beat) came before the other
        # node's entry, or when that entry lapsed for a moment on a loaded machine.
        both = sorted(n.base_url for n in cluster.nodes)
        await lost.wait_for(lambda m: m.get("type") in ("welcome", "nodes")
                            and sorted(m.get("nodes") or []) == both, timeout=10)
        assert sorted(lost.nodes) == both
    finally:
        await lost.close()


async def _settled(read, ok, within: float = 10.0):
    """`read()` once `ok` holds of it, or its last answer after `within` seconds. A node
    whose loop a loaded machine starved for a ttl says not ok on /healthz and drops out of
    the registry, rightly, until its next beat renews; these tests are not about that."""
    deadline = time.monotonic() + within
    while True:
        answer = await asyncio.to_thread(read)
        if ok(answer) or time.monotonic() > deadline:
            return answer
        await asyncio.sleep(0.2)


async def test_each_node_reports_health_metrics_and_the_cluster_status(cluster):
    host = await Client.create(cluster.nodes[1].base_url, "Ada")
    owner_id = cluster.owner_of(host.code)
    for i, node in enumerate(cluster.nodes, start=1):
        health = await _settled(lambda n=node: httpx.get(n.url("/healthz"), timeout=10).json(),
                                lambda h: h["ok"])
        assert health["ok"] and health["node"] == f"node{i}" and not health["draining"]
        text = httpx.get(node.url("/metrics"), timeout=10).text
        assert f'sussurro_cluster_node{{node="node{i}"}} 1' in text
        assert "sussurro_cluster_fenced_writes_refused_total 0" in text
        assert "sussurro_cluster_heartbeats_total" in text
    status = await _settled(cluster.status, lambda st: len(st["nodes"]) == 2)
    nodes = {n["id"]: n for n in status["nodes"]}
    assert set(nodes) == {"node1", "node2"}
    assert host.code in nodes[owner_id]["claims"] and status["unclaimed"] == []
    assert nodes[owner_id]["url"] == cluster.node_by_id(owner_id).base_url
    assert all(n["pid"] == cluster.node_by_id(i).proc.pid for i, n in nodes.items())
    table = subprocess.run([_python(), "-m", "sussurro.cli", "cluster", "status", "--redis",
                            cluster.redis.url], cwd=ROOT, capture_output=True, text=True,
                           timeout=30, check=True).stdout
    assert "node1" in table and "node2" in table and host.code in table


def test_workers_start_n_nodes_on_consecutive_ports_and_drain_on_sigterm(tmp_path):
    with RedisProc(tmp_path / "redis") as redis:
        port = free_port()
        while any(_busy(port + i) for i in range(1, 3)):
            port = free_port()
        env = {**os.environ, "SUSSURRO_RTC_ADDRESSES": "127.0.0.1",
               "SUSSURRO_CLUSTER_TTL": "2", "SUSSURRO_DRAIN_TIMEOUT": "10"}
        proc = subprocess.Popen([_python(), "-m", "sussurro.cli", "serve", "--host", "127.0.0.1",
                                 "--port", str(port), "--redis", redis.url, "--workers", "2",
                                 "--log-level", "warning"], cwd=ROOT, env=env,
                                start_new_session=True, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        try:
            urls = [f"http://127.0.0.1:{port + i}" for i in range(2)]
            end = time.monotonic() + 90
            while time.monotonic() < end:
                if all(_healthy(u) for u in urls):
                    break
                time.sleep(0.2)
            health = [httpx.get(u + "/healthz", timeout=5).json() for u in urls]
            assert len({h["node"] for h in health}) == 2
            assert [h["url"] for h in health] == urls
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(60) == 0
            with redis.client() as r:   # both nodes left the registry
                assert not any(r.exists(f"sussurro:node:{h['node']}") for h in health)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(5)


def _healthy(url: str) -> bool:
    try:
        return httpx.get(url + "/healthz", timeout=1).status_code == 200
    except httpx.HTTPError:
        return False


def _busy(port: int) -> bool:
    import socket

    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def test_a_forwarded_create_counts_against_its_client_on_the_node_that_holds_it(tmp_path):
    """Issue 8 (left alone before): rooms created through one node but made on another
    count against the client's per-address cap there; every node caps what it holds."""
    env = {"SUSSURRO_MAX_ROOMS_PER_ADDRESS": "2"}
    with ClusterProc(tmp_path, nodes=2, env=env, log_level="warning") as cl:
        entry = cl.nodes[0]
        made, refused = [], []
        for i in range(8):  # on past the first refusal: the other node must refuse too
            r = httpx.post(entry.url("/api/rooms"), json={"name": f"Host{i}"}, timeout=10)
            if r.status_code == 200:
                made.append(r.json()["code"])
            else:
                refused.append((r.status_code, r.json()["code"]))
        assert refused and set(refused) == {(429, "too_many_rooms_here")}, refused
        owners = [cl.owner_of(code) for code in made]
        # Both nodes made some (the least-loaded one creates) and neither more than 2.
        assert sorted(set(owners)) == ["node1", "node2"], owners
        assert all(owners.count(n) <= 2 for n in set(owners)), owners
