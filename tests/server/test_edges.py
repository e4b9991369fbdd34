"""Issue 8, the server's edges: a request body limit enforced before reading (and the
throttle before the body), JSON depth bounded for every message, non-finite numbers
refused, security headers on every page and file, no API schema unless asked for, and
full-match validation (a colour with a trailing newline)."""

from __future__ import annotations

import json
import socket

import httpx
import pytest

from client.protocol_client import Client
from tests.server.roomkit import close_all, fresh_picture, seated
from tests.support.server_proc import ServerProc


def raw_post(port: int, path: str, length: int, body: bytes, timeout: float = 5.0) -> bytes:
    """POST announcing `length` bytes but sending only `body`; the server's answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                  f"Content-Type: application/json\r\nContent-Length: {length}\r\n\r\n"
                  .encode() + body)
        data = b""
        while b"\r\n\r\n" not in data or len(data) < data.index(b"\r\n\r\n") + 4 + 10:
            chunk = s.recv(65536)  # a server waiting for the rest times out here
            if not chunk:
                break
            data += chunk
        return data


def status_and_json(answer: bytes) -> tuple[int, dict]:
    head, _, body = answer.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    return status, json.loads(body[: body.rindex(b"}") + 1])


def test_an_8_mib_body_is_refused_413_without_being_read(shared_server):
    answer = raw_post(shared_server.port, "/api/rooms", 8 * 1024 * 1024, b'{"name": "A')
    status, body = status_and_json(answer)
    assert status == 413 and body["code"] == "too_large" and body["message"], answer[:300]


def test_a_chunked_body_over_the_limit_is_refused_too(shared_server):
    def chunks():
        for _ in range(64):
            yield b"x" * 1024

    r = httpx.post(shared_server.url("/api/rooms"), content=chunks())
    assert r.status_code == 413 and r.json()["code"] == "too_large"


@pytest.fixture(scope="module")
def one_room_server(tmp_path_factory):
    env = {"SUSSURRO_CREATE_BURST": "1", "SUSSURRO_CREATE_RATE": "0.001"}
    with ServerProc(tmp_path_factory.mktemp("one") / "one.db", env=env) as srv:
        yield srv


def test_the_throttle_comes_before_the_body(one_room_server):
    assert httpx.post(one_room_server.url("/api/rooms"), json={"name": "Ada"}).status_code == 200
    # The second creation announces a small body and never sends it: the throttle answers.
    status, body = status_and_json(raw_post(one_room_server.port, "/api/rooms", 100, b"{"))
    assert status == 429 and body["code"] == "rate_limited"


def nested(depth: int) -> dict:
    value: object = 1
    for _ in range(depth):
        value = {"a": value}
    return value  # type: ignore[return-value]


async def test_a_settings_message_nested_600_deep_is_a_bad_message_not_internal(shared_server):
    clients = await seated(shared_server, 3)
    host = clients[0]
    try:
        before = await fresh_picture(host)
        for bad in ({"type": "settings", "options": {"timers": nested(600)}},
                    {"type": "settings", "options": {"powers": [[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]}},
                    {"type": "hello", "client": "x", "lang": nested(100)},
                    {"type": "rtc_ice", "candidate": nested(600)},
                    {"type": "action", "action": {"type": "vote", "target": nested(600)}}):
            mark = host.mark()
            await host.send_raw(json.dumps(bad))
            err = await host.wait_for(lambda m: m["type"] == "error", since=mark)
            assert err["code"] == "bad_message", (bad["type"], err)
        assert await fresh_picture(host) == before
        assert not host.closed
        # HTTP bodies are bounded the same way.
        r = httpx.post(shared_server.url("/api/rooms"), json={"name": "Ada", "x": nested(600)})
        assert r.status_code == 422 and r.json()["code"] == "bad_request", r.text
    finally:
        await close_all(clients)


async def test_ping_with_a_non_finite_number_is_refused(shared_server):
    clients = await seated(shared_server, 3)
    c = clients[1]
    try:
        for raw, code in (('{"type": "ping", "t": NaN}', "bad_json"),
                          ('{"type": "ping", "t": Infinity}', "bad_json"),
                          ('{"type": "ping", "t": -Infinity}', "bad_json"),
                          ('{"type": "ping", "t": 1e999}', "bad_message")):  # JSON, but no float
            mark = c.mark()
            await c.send_raw(raw)
            reply = await c.wait_for(lambda m: m["type"] in ("error", "pong"), since=mark)
            assert reply["type"] == "error" and reply["code"] == code, (raw, reply)
        mark = c.mark()
        await c.send("ping", t=1.5)
        assert (await c.wait_for(lambda m: m["type"] == "pong", since=mark))["t"] == 1.5
    finally:
        await close_all(clients)


def test_pages_and_files_carry_the_security_headers(shared_server):
    for path in ("/", "/r/ABCDE", "/static/app.js", "/static/css/app.css", "/api/catalog",
                 "/api/rooms/ZZZZZ", "/healthz"):
        r = httpx.get(shared_server.url(path))
        csp = r.headers.get("content-security-policy", "")
        directives = dict(d.strip().split(" ", 1) for d in csp.split(";"))
        assert directives["frame-ancestors"] == "'none'", (path, csp)
        assert directives["script-src"] == "'self'" and "unsafe" not in csp, (path, csp)
        assert directives["object-src"] == "'none'"
        assert r.headers["x-content-type-options"] == "nosniff", path
        assert r.headers["referrer-policy"] == "no-referrer", path
    big = raw_post(shared_server.port, "/api/rooms", 10**9, b"")
    assert b"content-security-policy" in big.lower()  # refusals too


def test_the_api_schema_and_docs_pages_are_off_by_default(shared_server):
    for path in ("/openapi.json", "/docs", "/redoc", "/docs/oauth2-redirect"):
        assert httpx.get(shared_server.url(path)).status_code == 404, path


async def test_the_api_schema_is_served_when_the_setting_turns_it_on(tmp_path):
    from server.config import Settings
    from server.edge.app import create_app

    app = create_app(Settings(db=str(tmp_path / "d.db"), api_docs=True))
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
        assert (await http.get("/openapi.json")).json()["info"]["title"] == "Sussurro"
        docs = await http.get("/docs")
        assert docs.status_code == 200 and "content-security-policy" not in docs.headers
        assert docs.headers["x-content-type-options"] == "nosniff"
    app.state.store.close()


async def test_a_colour_with_a_trailing_newline_is_refused_everywhere(shared_server):
    r = httpx.post(shared_server.url("/api/rooms"), json={"name": "Ada", "color": "#aabbcc\n"})
    assert r.status_code == 422 and r.json()["code"] == "bad_color", r.text
    host = await Client.create(shared_server.base_url, "Ada", color="#AABBCC")
    r = httpx.post(shared_server.url(f"/api/rooms/{host.code}/join"),
                   json={"name": "Bob", "color": "#112233\n"})
    assert r.status_code == 422 and r.json()["code"] == "bad_color", r.text
    await host.connect()
    try:
        assert host.room["players"][0]["color"] == "#aabbcc"
    finally:
        await host.close()


def test_word_files_are_checked_with_full_matches():
    from game.words import _validate

    good = {"lang": "it", "categories": {"animals": "Animali"},
            "pairs": [["gatto", "cane", "animals"]]}
    _validate("it", good)
    with pytest.raises(ValueError):
        _validate("it", {**good, "categories": {"animals\n": "Animali"},
                         "pairs": [["gatto", "cane", "animals\n"]]})


def test_json_depth_is_measured_without_recursion_and_strings_do_not_count():
    from server.wire.protocol import MAX_DEPTH, too_deep

    assert not too_deep(json.dumps(nested(MAX_DEPTH)))
    assert too_deep(json.dumps(nested(MAX_DEPTH + 1)))
    assert too_deep("[" * 100_000)
    assert not too_deep(json.dumps({"text": "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[ \\" + "{" * 50}))


def test_the_socket_frame_parser_refuses_depth_and_non_finite_numbers_for_every_type():
    from server.wire.protocol import CLIENT_TYPES, ProtocolError, parse

    for kind in sorted(CLIENT_TYPES):
        with pytest.raises(ProtocolError) as err:
            parse(json.dumps({"type": kind, "x": nested(40)}))
        assert err.value.code == "bad_message", kind
    with pytest.raises(ProtocolError) as err:
        parse('{"type": "ping", "t": NaN}')
    assert err.value.code == "bad_json"



def test_which_ice_candidate_addresses_the_server_may_check():
    from server.media.iceguard import candidate_allowed

    local = ["127.0.0.1", "127.9.9.9", "::1", "::ffff:127.0.0.1", "169.254.169.254",
             "fe80::1%eth0"]
    never = ["0.0.0.0", "::", "224.0.0.251", "ff02::fb", "255.255.255.255", "240.0.0.1",
             "printer.local", "example.org", ""]
    routable = ["192.168.1.20", "10.1.2.3", "172.16.0.9", "203.0.113.7", "2001:db8::5"]
    for host in local:
        assert not candidate_allowed(host, False) and candidate_allowed(host, True), host
    for host in never:
        assert not candidate_allowed(host, False) and not candidate_allowed(host, True), host
    for host in routable:
        assert candidate_allowed(host, False), host
