"""Issue 14 and issue 8 ("document how the proxy's forwarded address is trusted"):
`X-Forwarded-For` is believed only from the addresses of the `trusted_proxies`
setting, by the one `client_ip()` every HTTP and WebSocket throttle uses. By
default nothing is trusted, not even 127.0.0.1 (uvicorn's own default).

The end-to-end tests use two loopback addresses (Linux answers the whole
127.0.0.0/8 on `lo`): the server listens on 127.0.0.1, the "proxy" connects
from 127.0.0.2 and the "direct client" from 127.0.0.1.
"""

from __future__ import annotations

import asyncio

import httpx
import pytest
import websockets

from server.edge.forwarded import TrustedProxies
from tests.support.server_proc import ServerProc

PROXY = "127.0.0.2"
DIRECT = "127.0.0.1"


# ---- the rule itself -----------------------------------------------------------


def test_nothing_is_trusted_by_default_not_even_loopback():
    none = TrustedProxies.parse("")
    assert none.client("127.0.0.1", {"x-forwarded-for": "203.0.113.9"}) == "127.0.0.1"
    assert none.scheme("127.0.0.1", {"x-forwarded-proto": "https"}, "http") == "http"


def test_a_trusted_proxy_names_the_client_and_the_scheme():
    proxies = TrustedProxies.parse("10.0.0.0/8, 192.0.2.7")
    headers = {"x-forwarded-for": "198.51.100.4", "x-forwarded-proto": "https"}
    assert proxies.client("192.0.2.7", headers) == "198.51.100.4"
    assert proxies.client("10.1.2.3", headers) == "198.51.100.4"
    assert proxies.scheme("10.1.2.3", headers, "http") == "https"
    # The same headers from anyone else are ignored.
    assert proxies.client("192.0.2.8", headers) == "192.0.2.8"
    assert proxies.scheme("192.0.2.8", headers, "http") == "http"


def test_the_chain_is_read_from_the_right_and_a_forged_left_part_is_ignored():
    proxies = TrustedProxies.parse("10.0.0.1,10.0.0.2")
    # client -> 10.0.0.2 -> 10.0.0.1 -> us; the client itself wrote "1.2.3.4" first.
    chain = {"x-forwarded-for": "1.2.3.4, 198.51.100.4, 10.0.0.2"}
    assert proxies.client("10.0.0.1", chain) == "198.51.100.4"
    # Only trusted hops: the left-most is the best we know.
    assert proxies.client("10.0.0.1", {"x-forwarded-for": "10.0.0.2"}) == "10.0.0.2"
    # Garbage stops the walk at the last trusted hop.
    assert proxies.client("10.0.0.1", {"x-forwarded-for": "nonsense, 10.0.0.2"}) == "10.0.0.2"
    assert proxies.client("10.0.0.1", {}) == "10.0.0.1"
    # IPv6 and IPv4-mapped peers match the same networks.
    assert proxies.client("::ffff:10.0.0.1", {"x-forwarded-for": "2001:db8::5"}) == "2001:db8::5"


def test_a_malformed_setting_is_refused():
    with pytest.raises(ValueError, match="trusted_proxies"):
        TrustedProxies.parse("10.0.0.1, not-an-address")


# ---- with a real server process ------------------------------------------------------


def throttled_server(tmp_path, trusted: str) -> ServerProc:
    env = {"SUSSURRO_CREATE_BURST": "2", "SUSSURRO_CREATE_RATE": "0.001",
           "SUSSURRO_LOOKUP_BURST": "2", "SUSSURRO_LOOKUP_RATE": "0.001"}
    if trusted:
        env["SUSSURRO_TRUSTED_PROXIES"] = trusted
    return ServerProc(tmp_path / "s.db", env=env)


def create(srv, source: str, forwarded: str) -> int:
    transport = httpx.HTTPTransport(local_address=source)
    with httpx.Client(transport=transport) as http:
        r = http.post(srv.url("/api/rooms"), json={"name": "Ada"},
                      headers={"X-Forwarded-For": forwarded})
    return r.status_code


def lookup(srv, source: str, forwarded: str) -> int:
    transport = httpx.HTTPTransport(local_address=source)
    with httpx.Client(transport=transport) as http:
        return http.get(srv.url("/api/rooms/ZZZZZ"), headers={"X-Forwarded-For": forwarded}).status_code


async def bad_token_socket(srv, source: str, forwarded: str) -> None:
    """One WebSocket with an unknown token (it counts as a missed lookup)."""
    async with websockets.connect(f"{srv.ws_base}/ws?token=nope", local_addr=(source, 0),
                                  additional_headers={"X-Forwarded-For": forwarded}) as ws:
        await asyncio.wait_for(ws.recv(), 5)


def test_without_trusted_proxies_a_loopback_client_cannot_reset_its_throttle(tmp_path):
    with throttled_server(tmp_path, trusted="") as srv:
        assert create(srv, DIRECT, "203.0.113.1") == 200
        assert create(srv, DIRECT, "203.0.113.2") == 200
        # A new forwarded address each time changes nothing: the peer is the key.
        assert create(srv, DIRECT, "203.0.113.3") == 429
        assert create(srv, PROXY, "203.0.113.3") == 200   # another peer has its own bucket


def test_forwarded_for_is_believed_from_the_configured_proxy_only(tmp_path):
    with throttled_server(tmp_path, trusted=PROXY) as srv:
        # Through the proxy each client has its own bucket...
        assert create(srv, PROXY, "198.51.100.1") == 200
        assert create(srv, PROXY, "198.51.100.1") == 200
        assert create(srv, PROXY, "198.51.100.1") == 429
        assert create(srv, PROXY, "198.51.100.2") == 200
        # ...while a direct client naming addresses is still just itself.
        assert create(srv, DIRECT, "198.51.100.7") == 200
        assert create(srv, DIRECT, "198.51.100.8") == 200
        assert create(srv, DIRECT, "198.51.100.9") == 429


async def test_the_websocket_throttle_keys_by_the_same_forwarded_address(tmp_path):
    srv = throttled_server(tmp_path, trusted=PROXY)
    await asyncio.to_thread(srv.start)
    try:
        # Two bad-token sockets through the proxy use up client A's misses...
        for _ in range(2):
            await bad_token_socket(srv, PROXY, "198.51.100.1")
        assert await asyncio.to_thread(lookup, srv, PROXY, "198.51.100.1") == 429
        # ...not client B's, and not the proxy's own.
        assert await asyncio.to_thread(lookup, srv, PROXY, "198.51.100.2") == 404
        assert await asyncio.to_thread(lookup, srv, DIRECT, "198.51.100.1") == 404
    finally:
        await asyncio.to_thread(srv.stop)
