"""Issue 14, at home: `sussurro serve --lan` serves HTTPS and HTTP on one port with a
certificate it makes once for the machine's addresses and names (kept beside the
database, made again when they change), prints the https join address and its QR code,
and puts the same address in the rooms' QR codes; over plain http from another device
the pages are the first-visit guide. `--certfile/--keyfile` take a real certificate.

Every server here listens on 127.0.0.1 only (`--host`), as tests must.
"""

from __future__ import annotations

import datetime as dt
import functools
import io
import re
import ssl
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
import segno
from cryptography import x509

from server.reach.lan import LanIdentity, lan_identity
from server.reach.tls import (
    CERT_NAME,
    KEY_NAME,
    covered,
    ensure_lan_certificate,
    make_certificate,
)
from tests.support.server_proc import ROOT, ServerProc

HOME = LanIdentity(names=("localhost", "salotto", "salotto.local"),
                   ips=("127.0.0.1", "192.168.1.23", "::1"), main_ip="192.168.1.23")
NOW = dt.datetime(2026, 3, 1, 20, 0, tzinfo=dt.UTC)


def load(folder: Path) -> x509.Certificate:
    return x509.load_pem_x509_certificate((folder / CERT_NAME).read_bytes())


# ---- the certificate -----------------------------------------------------------------


def test_the_certificate_covers_exactly_the_machines_names_and_addresses(tmp_path):
    made = ensure_lan_certificate(tmp_path, HOME, NOW)
    assert made.created
    cert = load(tmp_path)
    assert covered(cert) == ({"localhost", "salotto", "salotto.local"},
                             {"127.0.0.1", "192.168.1.23", "::1"})
    usage = cert.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value
    assert x509.oid.ExtendedKeyUsageOID.SERVER_AUTH in usage
    assert not cert.extensions.get_extension_for_class(x509.BasicConstraints).value.ca
    # Browsers refuse server certificates valid for more than 398 days.
    assert (cert.not_valid_after_utc - cert.not_valid_before_utc).days <= 398
    # The key is the owner's alone.
    assert (tmp_path / KEY_NAME).stat().st_mode & 0o077 == 0


def test_it_is_made_once_and_kept_while_nothing_changes(tmp_path):
    ensure_lan_certificate(tmp_path, HOME, NOW)
    first = (tmp_path / CERT_NAME).read_bytes()
    again = ensure_lan_certificate(tmp_path, HOME, NOW + dt.timedelta(days=100))
    assert not again.created and (tmp_path / CERT_NAME).read_bytes() == first


def test_it_is_made_again_when_an_address_or_name_changes_or_it_nears_its_end(tmp_path):
    ensure_lan_certificate(tmp_path, HOME, NOW)
    moved = LanIdentity(names=HOME.names, ips=("127.0.0.1", "192.168.1.40", "::1"),
                        main_ip="192.168.1.40")
    assert ensure_lan_certificate(tmp_path, moved, NOW).created
    assert "192.168.1.40" in covered(load(tmp_path))[1]
    assert "192.168.1.23" not in covered(load(tmp_path))[1]
    renamed = LanIdentity(names=("localhost", "cucina"), ips=moved.ips, main_ip=moved.main_ip)
    assert ensure_lan_certificate(tmp_path, renamed, NOW).created
    assert covered(load(tmp_path))[0] == {"localhost", "cucina"}
    # 20 days before its end: made again, so no phone meets an expired one mid-game.
    end = load(tmp_path).not_valid_after_utc
    assert ensure_lan_certificate(tmp_path, renamed, end - dt.timedelta(days=20)).created


def test_a_broken_or_mismatched_pair_is_made_again(tmp_path):
    ensure_lan_certificate(tmp_path, HOME, NOW)
    other_cert, _ = make_certificate(HOME, NOW)
    (tmp_path / CERT_NAME).write_bytes(other_cert)  # as if a run stopped between the two files
    assert ensure_lan_certificate(tmp_path, HOME, NOW).created
    ssl.create_default_context(ssl.Purpose.CLIENT_AUTH).load_cert_chain(
        tmp_path / CERT_NAME, tmp_path / KEY_NAME)
    (tmp_path / CERT_NAME).write_text("not a certificate")
    assert ensure_lan_certificate(tmp_path, HOME, NOW).created


def test_this_machines_identity_includes_loopback_and_its_main_address():
    me = lan_identity()
    assert {"localhost"} <= set(me.names) and {"127.0.0.1", "::1"} <= set(me.ips)
    assert me.main_ip in me.ips


# ---- a real server with --lan ----------------------------------------------------------


def https_client(cafile: Path) -> httpx.Client:
    """A client that trusts only `cafile` (the server's own certificate) and checks names."""
    return httpx.Client(verify=ssl.create_default_context(cafile=str(cafile)), timeout=10)


def qr_svg(url: str, code: str) -> bytes:
    out = io.BytesIO()
    segno.make(url, error="m").save(out, kind="svg", scale=8, border=2, dark="#111",
                                    light="#fff", title=f"Sussurro {code}")
    return out.getvalue()


@pytest.fixture
def lan_server(tmp_path):
    srv = ServerProc(tmp_path / "s.db", args=["--lan"], log_level="info")
    srv.start()
    try:
        yield srv
    finally:
        srv.stop()


def test_lan_serves_https_and_http_on_one_port_with_the_join_address_printed(lan_server, tmp_path):
    srv = lan_server
    cert = tmp_path / "sussurro-tls" / CERT_NAME   # beside the database
    assert cert.is_file()
    join = f"https://127.0.0.1:{srv.port}"
    log = srv.log_path.read_text()
    assert f"Players open:      {join}" in log
    assert "▀" in log or "▄" in log                                   # the QR, in block characters
    assert f"http://127.0.0.1:{srv.port} (plain http)" in log          # where the guide is
    with https_client(cert) as http:
        # The certificate verifies for the loopback address and name.
        assert http.get(f"{join}/healthz").json()["ok"] is True
        assert http.get(f"https://localhost:{srv.port}/healthz").status_code == 200
        code = http.post(f"{join}/api/rooms", json={"name": "Ada"}).json()["code"]
        # The room's QR and the lobby's link base hold the https address.
        qr = http.get(f"https://localhost:{srv.port}/api/rooms/{code}/qr.svg").content
        assert qr == qr_svg(f"{join}/r/{code}", code)
        assert http.get(f"https://localhost:{srv.port}/api/links").json() == {"base": join, "reachable": True}
        page = http.get(f"{join}/r/{code}").text
        assert "/static/app.js" in page                                  # the game itself
    # Plain http from another device: the first-visit guide, not the game.
    other = httpx.get(srv.url(f"/r/{code}"), headers={"Host": f"sussurro.test:{srv.port}"})
    assert other.status_code == 200 and "/static/js/guide.js" in other.text
    assert "/static/app.js" not in other.text
    # The machine itself (localhost is a secure context): the game over http too.
    mine = httpx.get(srv.url("/"), headers={"Host": f"localhost:{srv.port}"})
    assert "/static/app.js" in mine.text
    # The API answers over both.
    assert httpx.get(srv.url(f"/api/rooms/{code}")).status_code == 200


def test_the_certificate_is_kept_across_restarts(lan_server, tmp_path):
    cert = tmp_path / "sussurro-tls" / CERT_NAME
    before = cert.read_bytes()
    lan_server.restart()
    assert cert.read_bytes() == before
    assert "Certificate made by this computer (kept)" in lan_server.log_tail(30)


def test_a_real_certificate_from_certfile_and_http_redirects_to_https(tmp_path):
    named = LanIdentity(names=("sussurro.test", "localhost"), ips=("127.0.0.1",), main_ip="127.0.0.1")
    cert_pem, key_pem = make_certificate(named, dt.datetime.now(dt.UTC))
    (tmp_path / "real.pem").write_bytes(cert_pem)
    (tmp_path / "real.key").write_bytes(key_pem)
    srv = ServerProc(tmp_path / "s.db", args=["--certfile", str(tmp_path / "real.pem"),
                                              "--keyfile", str(tmp_path / "real.key")])
    with srv:
        with https_client(tmp_path / "real.pem") as http:
            assert http.get(f"https://localhost:{srv.port}/healthz").status_code == 200
        # No self-made certificate: nothing to explain, plain http pages go to https.
        r = httpx.get(srv.url("/r/ABCDE?x=1"), headers={"Host": f"sussurro.test:{srv.port}"})
        assert r.status_code == 308
        assert r.headers["location"] == f"https://sussurro.test:{srv.port}/r/ABCDE?x=1"
    assert not (tmp_path / "sussurro-tls").exists()


def test_certfile_without_keyfile_is_refused_clearly(tmp_path):
    out = subprocess.run(
        [sys.executable, "-m", "sussurro.cli", "serve", "--host", "127.0.0.1", "--port", "0",
         "--db", str(tmp_path / "s.db"), "--certfile", str(tmp_path / "x.pem")],
        cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert out.returncode != 0
    assert re.search(r"--certfile and --keyfile go together", out.stderr + out.stdout)


def test_lan_binds_every_interface_unless_a_host_is_given(monkeypatch):
    from tests.server.test_evening_reach import settings as settings_of

    settings = functools.partial(settings_of, monkeypatch)

    # Issue 31: the default is the evening's server (was: loopback); --local is loopback.
    assert settings().host == "::" and settings().lan
    assert settings("local").host == "127.0.0.1" and not settings("local").lan
    assert settings("lan").host == "::" and settings("lan").lan        # IPv6 and IPv4, all
    assert settings("lan", "host=127.0.0.1").host == "127.0.0.1"
    assert settings("lan", env={"SUSSURRO_HOST": "192.168.1.5"}).host == "192.168.1.5"
