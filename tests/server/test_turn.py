"""Issue 14, TURN: each client gets short-lived credentials in its `welcome` (TURN REST
convention: username "EXPIRY:PLAYER", credential base64(HMAC-SHA1(secret, username))).

Checked three ways: against an independent HMAC (OpenSSL's command line), in the
`welcome` of a real server process, and by a real TURN server (Debian's coturn, with
`use-auth-secret`) that grants an allocation for fresh credentials and refuses expired
ones and ones made with another secret; and voice both ways between the server and a
client that offers relayed candidates only. ./scripts/test.sh installs coturn; without
it the tests that need it are skipped, with the reason printed.
"""

from __future__ import annotations

import asyncio
import base64
import shutil
import socket
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest
from aioice import stun, turn

from client.protocol_client import Client
from server.config import Settings
from server.media.turn import client_ice_servers, turn_credential, turn_user, turn_username
from server.rooms.codes import hash_token
from tests.server.roomkit import close_all
from tests.support.server_proc import ServerProc

SECRET = "correct horse battery staple"


def openssl_credential(secret: str, username: str) -> str:
    """The same credential computed by another implementation (OpenSSL)."""
    digest = subprocess.run(
        ["openssl", "dgst", "-sha1", "-hmac", secret, "-binary"],
        input=username.encode(), capture_output=True, check=True).stdout
    return base64.b64encode(digest).decode()


@pytest.mark.skipif(shutil.which("openssl") is None, reason="no openssl command")
def test_the_credential_is_the_hmac_sha1_of_the_username_as_openssl_computes_it():
    for username in ("1700000000:p1", "1999999999:p16", "0:x"):
        assert turn_credential(SECRET, username) == openssl_credential(SECRET, username)
    assert turn_credential(SECRET, "1:p1") != turn_credential(SECRET + "!", "1:p1")


def test_each_player_gets_its_own_username_expiring_after_the_ttl():
    s = Settings(ice_servers=({"urls": "stun:stun.example.org:3478"},),
                 turn_urls="turn:turn.example.org:3478?transport=udp, turns:turn.example.org:5349",
                 turn_secret=SECRET, turn_ttl=3600)
    servers = client_ice_servers(s, "p3", now=1_700_000_000.7)
    assert servers[0] == {"urls": "stun:stun.example.org:3478"}
    turn_entry = servers[1]
    assert turn_entry["urls"] == ["turn:turn.example.org:3478?transport=udp",
                                  "turns:turn.example.org:5349"]
    assert turn_entry["username"] == "1700003600:p3"
    assert turn_entry["credential"] == turn_credential(SECRET, "1700003600:p3")
    assert client_ice_servers(s, "p4", now=1_700_000_000)[1]["username"] == "1700003600:p4"
    # No secret (or no URL): no TURN entry, and the secret itself never leaves.
    assert client_ice_servers(Settings(turn_urls="turn:x:3478"), "p1", 0) == []
    assert SECRET not in str(servers)


async def test_the_welcome_carries_fresh_turn_credentials(tmp_path):
    srv = ServerProc(tmp_path / "s.db", env={
        "SUSSURRO_TURN_URLS": "turn:127.0.0.1:3478", "SUSSURRO_TURN_SECRET": SECRET,
        "SUSSURRO_TURN_TTL": "600"})
    await asyncio.to_thread(srv.start)
    try:
        ada = await Client.create(srv.base_url, "Ada")
        before = time.time()
        await ada.connect()
        entry = ada.welcome["ice_servers"][-1]
        expiry, user = entry["username"].split(":")
        # The seat's opaque id, not the player id (issue 29 item 11).
        assert user == turn_user(SECRET, ada.code, hash_token(ada.token))
        assert before + 600 - 2 <= int(expiry) <= time.time() + 600
        assert entry["credential"] == turn_credential(SECRET, entry["username"])
        assert SECRET not in str(ada.messages)
        await ada.close()
    finally:
        await asyncio.to_thread(srv.stop)


async def test_issue29_11_turn_credentials_are_bound_to_the_seat_short_lived_and_not_for_passes(
        tmp_path):
    """Issue 29 item 11: two players called the same (both p1, both "Ada") in two rooms got
    the same username and credential in the same second, and passes got them too, for 12 h.
    Now the username is "EXPIRY:ID" with ID derived (keyed by the secret) from the room and
    the seat's token: never the name or the player id; EXPIRY is the configured short life,
    renewed at every welcome and on `ice`; a spectator pass gets none."""
    srv = ServerProc(tmp_path / "s.db", env={
        "SUSSURRO_TURN_URLS": "turn:127.0.0.1:3478", "SUSSURRO_TURN_SECRET": SECRET,
        "SUSSURRO_TURN_TTL": "300"})
    await asyncio.to_thread(srv.start)
    clients: list[Client] = []
    try:
        a = await Client.create(srv.base_url, "Ada")
        b = await Client.create(srv.base_url, "Ada")
        clients += [a, b]
        assert a.player == b.player == "p1" and a.code != b.code
        before = time.time()
        await a.connect()
        await b.connect()
        ea, eb = a.welcome["ice_servers"][-1], b.welcome["ice_servers"][-1]
        assert ea["username"] != eb["username"] and ea["credential"] != eb["credential"]
        for entry, c in ((ea, a), (eb, b)):
            expiry, user = entry["username"].split(":")
            assert before + 300 - 2 <= int(expiry) <= time.time() + 300  # the short life
            assert "Ada" not in user and user != c.player and c.code not in user
            assert user == turn_user(SECRET, c.code, hash_token(c.token))
            assert entry["credential"] == turn_credential(SECRET, entry["username"])
        # A reconnect, or the client's `ice` request, gives fresh ones for the same seat.
        mark = a.mark()
        await a.send("ice")
        fresh = (await a.wait_for(lambda m: m["type"] == "ice_servers", since=mark))
        assert fresh["ice_servers"][-1]["username"].split(":")[1] == ea["username"].split(":")[1]
        assert int(fresh["ice_servers"][-1]["username"].split(":")[0]) >= int(
            ea["username"].split(":")[0])
        # A spectator pass gets no TURN entry (the settings' ICE servers only, none here),
        # and asking gets none either.
        tv = await Client.watch(srv.base_url, a.code)
        clients.append(tv)
        await tv.connect()
        assert tv.welcome["ice_servers"] == []
        mark = tv.mark()
        await tv.send("ice")
        got = await tv.wait_for(lambda m: m["type"] in ("ice_servers", "error"), since=mark)
        assert got["type"] == "ice_servers" and got["ice_servers"] == []
    finally:
        await close_all(clients)
        await asyncio.to_thread(srv.stop)


async def test_issue29_11_passes_get_turn_only_when_the_setting_says_so(tmp_path):
    srv = ServerProc(tmp_path / "s.db", env={
        "SUSSURRO_TURN_URLS": "turn:127.0.0.1:3478", "SUSSURRO_TURN_SECRET": SECRET,
        "SUSSURRO_TURN_SPECTATORS": "1"})
    await asyncio.to_thread(srv.start)
    try:
        host = await Client.create(srv.base_url, "Ada")
        tv = await Client.watch(srv.base_url, host.code)
        await tv.connect()
        entry = tv.welcome["ice_servers"][-1]
        assert entry["username"].split(":")[1] == turn_user(SECRET, host.code,
                                                            hash_token(tv.token))
        await tv.close()
    finally:
        await asyncio.to_thread(srv.stop)


def test_issue29_11_the_turn_id_depends_on_room_token_and_secret_only():
    base = turn_user(SECRET, "ABCDE", "h" * 64)
    assert base == turn_user(SECRET, "ABCDE", "h" * 64)
    assert len({base, turn_user(SECRET, "ABCDF", "h" * 64), turn_user(SECRET, "ABCDE", "g" * 64),
                turn_user(SECRET + "!", "ABCDE", "h" * 64)}) == 4
    assert ":" not in base and len(base) >= 20  # a username field, not guessable


# ---- a real TURN server -------------------------------------------------------------


def free_udp_tcp_port() -> int:
    for _ in range(50):
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as u:
            u.bind(("127.0.0.1", 0))
            port = u.getsockname()[1]
            with socket.socket() as t:
                try:
                    t.bind(("127.0.0.1", port))
                except OSError:
                    continue
            return port
    raise RuntimeError("no free port")


@pytest.fixture
def coturn(tmp_path: Path):
    exe = shutil.which("turnserver")
    if exe is None:
        pytest.skip("coturn's turnserver is not installed (./scripts/test.sh installs it)")
    port = free_udp_tcp_port()
    log = tmp_path / "turn.log"
    proc = subprocess.Popen(
        [exe, "-n", "--listening-ip", "127.0.0.1", "--listening-port", str(port),
         "--relay-ip", "127.0.0.1", "--use-auth-secret", "--static-auth-secret", SECRET,
         "--realm", "sussurro.test", "--no-tls", "--no-dtls", "--no-cli",
         "--allow-loopback-peers",  # the peers here (the server, a client) are on loopback
         "--userdb", str(tmp_path / "turndb"), "--pidfile", str(tmp_path / "turn.pid"),
         "--log-file", "stdout", "--simple-log"],
        stdout=log.open("wb"), stderr=subprocess.STDOUT)
    try:
        yield ("127.0.0.1", port), log
    finally:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


async def allocate(addr, username: str, password: str) -> tuple[str, int]:
    """A TURN allocation (what a browser does with these credentials); its relayed address."""
    transport, _ = await asyncio.wait_for(
        turn.create_turn_endpoint(asyncio.DatagramProtocol, addr, username, password), 5)
    try:
        return transport.get_extra_info("sockname")
    finally:
        transport.close()


async def test_coturn_accepts_the_credentials_until_they_expire(coturn):
    addr, log = coturn
    s = Settings(turn_urls=f"turn:{addr[0]}:{addr[1]}", turn_secret=SECRET, turn_ttl=60)
    # The username a seat gets (issue 29 item 11: "EXPIRY:ID", ID bound to room and token).
    seat = turn_user(SECRET, "ABCDE", hash_token("a seat token"))
    fresh = client_ice_servers(s, seat, time.time())[-1]
    relayed = None
    deadline = time.monotonic() + 10
    while relayed is None:  # coturn needs a moment to open its port
        try:
            relayed = await allocate(addr, fresh["username"], fresh["credential"])
        except (TimeoutError, OSError, stun.TransactionError):
            if time.monotonic() > deadline:
                raise AssertionError(f"coturn never allocated:\n{log.read_text()[-2000:]}") from None
            await asyncio.sleep(0.2)
    assert relayed[0] == "127.0.0.1" and relayed[1] > 0
    # Expired a few seconds ago: refused.
    expired = turn_username(seat, time.time(), -5)
    with pytest.raises(stun.TransactionFailed, match="401"):
        await allocate(addr, expired, turn_credential(SECRET, expired))
    # Made with another secret: refused.
    with pytest.raises(stun.TransactionFailed, match="401"):
        await allocate(addr, fresh["username"], turn_credential("another secret", fresh["username"]))


@pytest.mark.slow
async def test_voice_goes_both_ways_through_coturn_with_a_relay_only_client(coturn, monkeypatch):
    """A client whose network lets only TURN through (relayed candidates only, as a phone
    behind a strict firewall): the mix reaches it through coturn's relay and its mic
    reaches the server, with no packet lost. From the server the relay is a plain UDP
    address, so the compiled sender (server/media/fastrtp.py, where built) sends to it."""
    from client.rtc_peer import Tone, VoicePeer
    from server.media import fastrtp
    from server.media.rtc import open_peer
    from tests.e2e.spectrum import steady, tone_db
    from tests.support.mix_tone import push_tone

    addr, log = coturn
    s = Settings(turn_urls=f"turn:{addr[0]}:{addr[1]}", turn_secret=SECRET, turn_ttl=60)
    ice = [{"urls": f"turn:{addr[0]}:{addr[1]}", **{k: v for k, v in server.items()
                                                   if k in ("username", "credential")}}
           for server in client_ice_servers(s, "p1", time.time())[-1:]]
    monkeypatch.setattr(fastrtp, "_checked", None)
    client = VoicePeer(Tone(440), ice_servers=ice, relay_only=True)
    deadline = time.monotonic() + 10
    offer = await client.make_offer()
    while " typ relay" not in offer:  # coturn needs a moment to open its port
        await client.close()
        if time.monotonic() > deadline:
            raise AssertionError(f"no relayed candidate:\n{log.read_text()[-2000:]}")
        await asyncio.sleep(0.3)
        client = VoicePeer(Tone(440), ice_servers=ice, relay_only=True)
        offer = await client.make_offer()
    assert " typ host" not in offer and " typ srflx" not in offer
    got: list = []
    peer, answer = await open_peer("p1", offer, ice_servers=None,
                                   on_pcm=lambda pid, pcm, ts: got.append(pcm))
    try:
        await client.accept_answer(answer)
        await asyncio.wait_for(client.connected.wait(), 15)
        await push_tone(peer, 100)
        await asyncio.sleep(0.3)
        pair = client.pc.getTransceivers()[0].sender.transport.transport._connection._nominated[1]
        assert pair.local_candidate.type == "relay"  # the client's packets go through coturn
        assert peer.track.native is (fastrtp._fastrtp is not None)
        assert tone_db(steady(client.recorder.audio(), 0.5), 880) > -16
        assert got and tone_db(steady(np.concatenate(got), 0.5), 440) > -16
        (inbound,) = [st for st in (await client.pc.getStats()).values() if st.type == "inbound-rtp"]
        assert inbound.packetsReceived == 100 and inbound.packetsLost == 0
    finally:
        await client.close()
        await peer.close()
