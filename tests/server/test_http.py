"""The HTTP side against a real server process: rooms, joins, QR, health, metrics, throttles."""

from __future__ import annotations

import io
import re

import httpx
import pytest
import segno

from server.rooms.codes import ALPHABET
from tests.support.server_proc import ServerProc


def create(srv, name="Ada", **extra):
    r = httpx.post(srv.url("/api/rooms"), json={"name": name, **extra})
    assert r.status_code == 200, r.text
    return r.json()


def test_create_room_gives_a_code_from_the_unambiguous_alphabet_and_makes_the_creator_host(
        shared_server):
    codes = {create(shared_server)["code"] for _ in range(30)}
    assert len(codes) == 30
    for code in codes:
        assert len(code) == 5 and set(code) <= set(ALPHABET)
    assert not set("0O1IL") & set(ALPHABET)
    body = create(shared_server, "Zed")
    assert body["player"] and len(body["token"]) >= 32


def test_room_info_is_public_and_holds_no_secrets(shared_server):
    room = create(shared_server, "Ada", preset="infiltre")
    httpx.post(shared_server.url(f"/api/rooms/{room['code']}/join"), json={"name": "Bob"})
    info = httpx.get(shared_server.url(f"/api/rooms/{room['code']}")).json()
    assert info["phase"] == "lobby" and info["preset"] == "infiltre" and info["lang"] == "fr"
    assert [p["name"] for p in info["players"]] == ["Ada", "Bob"]
    text = str(info)
    assert room["token"] not in text and "token" not in text and "p1" not in text


def test_codes_are_case_insensitive_and_unknown_codes_are_404(shared_server):
    room = create(shared_server)
    assert httpx.get(shared_server.url(f"/api/rooms/{room['code'].lower()}")).status_code == 200
    r = httpx.get(shared_server.url("/api/rooms/ZZZZZ"))
    assert r.status_code == 404 and r.json()["code"] == "unknown_room"
    r = httpx.post(shared_server.url("/api/rooms/ZZZZZ/join"), json={"name": "Bob"})
    assert r.status_code == 404


def test_join_refuses_bad_names_duplicates_and_a_full_room(shared_server):
    room = create(shared_server)
    join = shared_server.url(f"/api/rooms/{room['code']}/join")
    assert httpx.post(join, json={"name": "   "}).json()["code"] == "bad_name"
    assert httpx.post(join, json={"name": "x" * 25}).status_code == 422
    r = httpx.post(join, json={"name": "ada"})
    assert r.status_code == 409 and r.json()["code"] == "name_taken"
    assert httpx.post(join, json={"name": "Bob", "color": "red"}).json()["code"] == "bad_color"
    r = httpx.post(join, json={"nome": "Bob"})
    assert r.status_code == 422 and r.json()["code"] == "bad_request"
    assert httpx.post(join, content=b"{", headers={"Content-Type": "application/json"}
                      ).json()["code"] == "bad_request"
    for i in range(15):
        assert httpx.post(join, json={"name": f"P{i}"}).status_code == 200
    r = httpx.post(join, json={"name": "Seventeen"})
    assert r.status_code == 409 and r.json()["code"] == "room_full"


def test_qr_svg_encodes_the_absolute_join_link(shared_server):
    room = create(shared_server)
    r = httpx.get(shared_server.url(f"/api/rooms/{room['code']}/qr.svg"))
    assert r.status_code == 200 and r.headers["content-type"].startswith("image/svg+xml")
    assert '<svg xmlns="http://www.w3.org/2000/svg"' in r.text
    # The same modules as a QR code of the absolute join link drawn here.
    expected = io.BytesIO()
    segno.make(shared_server.url(f"/r/{room['code']}"), error="m").save(
        expected, kind="svg", scale=8, border=2, dark="#111", light="#fff")
    path = re.compile(r' d="([^"]+)"')
    assert path.findall(r.text)[-1] == path.findall(expected.getvalue().decode())[-1]


def test_client_pages_and_static_files_are_served(shared_server):
    for path in ("/", "/r/ABCDE"):
        r = httpx.get(shared_server.url(path))
        assert r.status_code == 200 and "<html" in r.text.lower()


def test_healthz_and_metrics_in_prometheus_text_format(shared_server):
    assert httpx.get(shared_server.url("/healthz")).json()["ok"] is True
    create(shared_server)
    r = httpx.get(shared_server.url("/metrics"))
    assert r.headers["content-type"].startswith("text/plain")
    values = {}
    for line in r.text.splitlines():
        if line.startswith("#"):
            assert re.match(r"^# (HELP|TYPE) sussurro_\w+ .+$", line), line
            continue
        m = re.match(r"^(sussurro_[a-z0-9_]+) (-?[0-9.e+]+)$", line)
        assert m, line
        values[m.group(1)] = float(m.group(2))
    assert values["sussurro_rooms"] >= 1 and values["sussurro_players"] >= 1
    for name in ("sussurro_peers", "sussurro_mixer_tick_us_median",
                 "sussurro_jitter_underruns_total", "sussurro_jitter_overflows_total",
                 "sussurro_distinct_mixes"):
        assert name in values


@pytest.fixture(scope="module")
def strict_server(tmp_path_factory):
    # Joins and code lookups use separate buckets: the two tests below share this server.
    srv = ServerProc(tmp_path_factory.mktemp("strict") / "strict.db", env={
        "SUSSURRO_JOIN_BURST": "10", "SUSSURRO_JOIN_RATE": "0.01",
        "SUSSURRO_LOOKUP_BURST": "5", "SUSSURRO_LOOKUP_RATE": "0.01",
    })
    with srv:
        yield srv


def test_joins_are_throttled_per_ip_after_a_burst(strict_server):
    room = create(strict_server)
    join = strict_server.url(f"/api/rooms/{room['code']}/join")
    statuses = [httpx.post(join, json={"name": f"P{i}"}).status_code for i in range(12)]
    assert statuses[:10] == [200] * 10
    r = httpx.post(join, json={"name": "Late"})
    assert r.status_code == 429 and r.json()["code"] == "rate_limited"
    assert int(r.headers["retry-after"]) >= 1


def test_guessing_codes_is_throttled_even_for_real_codes(strict_server):
    room = create(strict_server)
    misses = [httpx.get(strict_server.url(f"/api/rooms/ZZZZ{c}")).status_code for c in "ABCDE"]
    assert misses == [404] * 5
    assert httpx.get(strict_server.url("/api/rooms/ZZZZF")).status_code == 429
    # The real code now waits too, or guessing could go on through hits.
    assert httpx.get(strict_server.url(f"/api/rooms/{room['code']}")).status_code == 429


def test_static_files_of_the_web_client_are_served(shared_server):
    from pathlib import Path

    web = Path(__file__).resolve().parents[2] / "web"
    some = next((p for p in sorted(web.rglob("*.js"))), None)
    if some is None:
        pytest.skip("no web client files yet")
    rel = some.relative_to(web).as_posix()
    r = httpx.get(shared_server.url(f"/static/{rel}"))
    assert r.status_code == 200 and r.text == some.read_text(encoding="utf-8")
    assert httpx.get(shared_server.url("/static/../server/edge/app.py")).status_code == 404


async def test_a_placeholder_page_is_served_when_the_web_client_is_missing(tmp_path):
    from server.config import Settings
    from server.edge.app import create_app

    app = create_app(Settings(db=str(tmp_path / "p.db"), web_dir=str(tmp_path / "absent")))
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
        for path in ("/", "/r/ABCDE"):
            r = await http.get(path)
            assert r.status_code == 200 and "Sussurro" in r.text
    app.state.store.close()
