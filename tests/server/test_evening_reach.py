"""Issue 31, section 1: the README's first command gives a room that phones can join.

- `sussurro serve` with no flags runs as `--lan` did (every interface, HTTPS, the join
  address and its QR printed); `--local` keeps plain http on loopback for development; an
  explicit host keeps what it says (the tests' servers, a reverse proxy, the cluster).
- On a machine with no LAN address (a fresh network namespace: loopback alone) the
  terminal says so in words, and GET /api/links tells the lobby (`reachable: false`).
"""

from __future__ import annotations

import argparse
import os
import select
import shutil
import signal
import subprocess
import sys
import time

import pytest
from fastapi.testclient import TestClient

from server.config import Settings
from server.edge.app import create_app
from server.reach.https import prepare_https
from server.reach.lan import LanIdentity
from tests.support.server_proc import ROOT


def settings(monkeypatch, *flags, env=None):
    from server.main import settings_from_args

    for k in ("SUSSURRO_HOST", "SUSSURRO_LAN", "SUSSURRO_REDIS"):
        monkeypatch.delenv(k, raising=False)
    for k, v in (env or {}).items():
        monkeypatch.setenv(k, v)
    ns = argparse.Namespace(host=None, port=None, db=None, log_level=None, ice_servers=None,
                            public_url=None, lan=False, local=False, certfile=None,
                            keyfile=None, redis=None, workers=None)
    for flag in flags:
        key, _, value = flag.partition("=")
        setattr(ns, key, value or True)
    return settings_from_args(ns)


def test_serve_with_no_flag_is_the_evening_server_and_local_is_loopback_http(monkeypatch):
    s = settings(monkeypatch)
    assert s.lan and s.host == "::"                       # phones on the network reach it
    local = settings(monkeypatch, "local")
    assert not local.lan and local.host == "127.0.0.1"    # today's development server
    # An explicit host keeps what it says: plain http there, unless --lan is given too.
    assert not settings(monkeypatch, "host=127.0.0.1").lan
    assert not settings(monkeypatch, env={"SUSSURRO_HOST": "127.0.0.1"}).lan
    assert settings(monkeypatch, "lan", "host=127.0.0.1").lan
    # compose's `SUSSURRO_HOST: ${SUSSURRO_HOST:-}` (empty) is no host: the evening's default.
    s = settings(monkeypatch, env={"SUSSURRO_HOST": ""})
    assert s.lan and s.host == "::"
    assert not settings(monkeypatch, env={"SUSSURRO_LAN": "0"}).lan
    # A cluster node is reached through its public URL, not the LAN banner.
    assert not settings(monkeypatch, "redis=redis://127.0.0.1:6379/0").lan


def test_local_and_lan_cannot_be_given_together():
    out = subprocess.run([sys.executable, "-m", "sussurro.cli", "serve", "--lan", "--local"],
                         cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "not allowed with" in out.stderr


def no_lan_identity() -> LanIdentity:
    return LanIdentity(names=("localhost",), ips=("127.0.0.1", "::1"), main_ip="127.0.0.1")


def test_without_a_lan_address_the_links_say_unreachable(tmp_path, monkeypatch):
    monkeypatch.setattr("server.reach.https.lan_identity", no_lan_identity)
    base = Settings(lan=True, host="::", db=str(tmp_path / "s.db"))
    plan = prepare_https(base, 8123)
    assert plan.no_lan and plan.settings.no_lan_address and plan.settings.public_url == ""
    with TestClient(create_app(plan.settings)) as http:
        assert http.get("/api/links").json() == {"base": "http://testserver",
                                                 "reachable": False}
    # With a LAN address the same call gives the https LAN address, reachable.
    monkeypatch.setattr("server.reach.https.lan_identity", lambda: LanIdentity(
        names=("localhost",), ips=("127.0.0.1", "192.0.2.7"), main_ip="192.0.2.7"))
    plan = prepare_https(base, 8123)
    assert not plan.no_lan
    with TestClient(create_app(plan.settings)) as http:
        assert http.get("/api/links").json() == {"base": "https://192.0.2.7:8123",
                                                 "reachable": True}


def read_until(proc: subprocess.Popen, marker: str, timeout: float = 30.0) -> str:
    """What the process printed up to `marker` (bounded in time). Read from the pipe's
    descriptor itself: a buffered readline would hide lines already read from select."""
    fd, out, end = proc.stdout.fileno(), b"", time.monotonic() + timeout
    while marker.encode() not in out and time.monotonic() < end:
        ready, _, _ = select.select([fd], [], [], 0.5)
        if ready:
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            out += chunk
    # The rest of the marker's line too (the address after "On this computer:").
    if marker.encode() in out:
        while not out.split(marker.encode(), 1)[1].count(b"\n") and time.monotonic() < end:
            if select.select([fd], [], [], 0.5)[0]:
                chunk = os.read(fd, 65536)
                if not chunk:
                    break
                out += chunk
    return out.decode("utf-8", "replace")


@pytest.mark.skipif(shutil.which("unshare") is None, reason="no unshare(1)")
def test_the_terminal_says_in_words_when_the_machine_is_on_no_network(tmp_path):
    """A new network namespace has loopback alone: a machine on no network."""
    if subprocess.run(["unshare", "-n", "true"], capture_output=True).returncode != 0:
        pytest.skip("cannot make a network namespace here")
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        ["unshare", "-n", sys.executable, "-m", "sussurro.cli", "serve", "--port", "0",
         "--db", str(tmp_path / "s.db"), "--log-level", "warning"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        start_new_session=True)
    try:
        out = read_until(proc, "On this computer:")
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(15)
    assert "not connected to a network" in out, out
    assert "Connect this computer to the Wi-Fi the phones use" in out
    assert "Players open:" not in out and "https://" not in out   # no link that cannot work
    assert "On this computer:  http://localhost:" in out
