"""Claims and fencing on a real Redis (issue 12: "the claim is atomic (SET NX with an
expiry, renewed while the node lives) and carries a fencing token that increases at
each new owner, so that an old owner that comes back cannot write")."""

from __future__ import annotations

import asyncio

import pytest
from redis.asyncio import Redis

from server.cluster.node import Cluster
from server.rooms.codes import hash_token
from server.storage.redis_store import RedisStore
from server.storage.seam import ActionRow, GameRow, NotOwner, PlayerRow

SETTINGS = {"preset": "intruso", "options": {}}
TTL = 1.0
PLAYERS = [{"id": "p1", "name": "A"}, {"id": "p2", "name": "B"}, {"id": "p3", "name": "C"}]


@pytest.fixture
async def two_nodes(redis_proc, prefix):
    """Two nodes' stores on the same Redis, claims lasting 1 s (tests that need a claim
    alive renew it right before they look: the machine may be slow)."""
    clients = [Redis.from_url(redis_proc.url, decode_responses=True) for _ in range(2)]
    try:
        yield [RedisStore(c, f"n{i + 1}", prefix=prefix, claim_ttl=TTL)
               for i, c in enumerate(clients)]
    finally:
        for c in clients:
            await c.aclose()


async def _game_room(store: RedisStore, code: str = "ABCDE") -> None:
    assert await store.create_room(code, 1.0, SETTINGS)
    await store.add_player(code, PlayerRow("p1", "A", "#e6194b", 1, 0, 1.0), hash_token("t1"))
    await store.start_game(code, GameRow(1, "intruso", {}, 1, PLAYERS, 2.0, None, None, None))


async def test_creating_a_room_claims_it_and_nobody_else_can_claim_it_meanwhile(two_nodes):
    a, b = two_nodes
    await _game_room(a)
    assert a.held == {"ABCDE": 1}
    assert await a.renew() == []
    assert await b.claim("ABCDE") is None
    assert await a.owner("ABCDE") == ("n1", 1)
    assert await b.claim("NOSUCH") is None  # no room, nothing to claim


async def test_an_old_owner_that_comes_back_cannot_write_after_a_takeover(two_nodes,
                                                                          redis_proc, prefix):
    a, b = two_nodes
    await _game_room(a)
    await a.append_action("ABCDE", 1, ActionRow(0, 3.0, "p1", {"type": "ready"}))
    await asyncio.sleep(TTL + 0.2)                  # a stops renewing: the claim expires
    token = await b.claim("ABCDE")
    assert token == 2                               # the fencing token went up
    await b.append_action("ABCDE", 1, ActionRow(1, 4.0, "p2", {"type": "ready"}))
    # a wakes up still believing it owns the room: every kind of write is refused.
    with pytest.raises(NotOwner):
        await a.append_action("ABCDE", 1, ActionRow(2, 5.0, "p1", {"type": "vote",
                                                                   "target": "p2"}))
    a.held["ABCDE"] = 1                              # (refusal dropped it; pretend again)
    with pytest.raises(NotOwner):
        await a.set_host("ABCDE", "p3")
    assert [x.player for x in await b.actions("ABCDE", 1)] == ["p1", "p2"]
    assert (await b.room("ABCDE")).host == "p1"
    assert a.refused == 2
    # Its renewal tells it the room is lost.
    a.held["ABCDE"] = 1
    assert await a.renew() == ["ABCDE"] and a.held == {}
    assert redis_proc.cli("GET", f"{prefix}room:ABCDE:claim") == "n2 2"


async def test_renewal_keeps_a_claim_alive_past_its_ttl(two_nodes):
    a, b = two_nodes
    await _game_room(a)
    for _ in range(8):                               # 2 s: twice the ttl
        await asyncio.sleep(TTL / 4)
        assert await a.renew() == []
        assert await b.claim("ABCDE") is None


async def test_a_lapsed_claim_nobody_took_is_taken_back_with_the_same_token(two_nodes):
    a, _ = two_nodes
    await _game_room(a)
    await asyncio.sleep(TTL + 0.2)
    assert await a.owner("ABCDE") is None
    assert await a.renew() == []                     # nobody claimed since: still ours
    assert await a.owner("ABCDE") == ("n1", 1)
    await a.append_action("ABCDE", 1, ActionRow(0, 3.0, "p1", {"type": "ready"}))


async def test_a_released_room_is_claimed_at_once_by_another_node(two_nodes):
    a, b = two_nodes
    await _game_room(a)
    assert await a.release("ABCDE")
    assert a.held == {}
    assert await b.claim("ABCDE") == 2
    with pytest.raises(NotOwner):                    # released: a holds nothing now
        await a.touch("ABCDE", 9.0)


async def test_the_log_is_append_only(two_nodes):
    a, _ = two_nodes
    await _game_room(a)
    await a.append_action("ABCDE", 1, ActionRow(0, 3.0, "p1", {"type": "ready"}))
    with pytest.raises(ValueError):                  # a replayed seq, not the next one
        await a.append_action("ABCDE", 1, ActionRow(0, 3.5, "p1", {"type": "ready"}))
    with pytest.raises(ValueError):                  # a gap
        await a.append_action("ABCDE", 1, ActionRow(5, 3.5, "p1", {"type": "ready"}))
    assert len(await a.actions("ABCDE", 1)) == 1


async def test_a_closed_room_cannot_be_claimed_and_its_keys_expire(two_nodes, redis_proc,
                                                                   prefix):
    a, b = two_nodes
    await _game_room(a)
    await a.append_action("ABCDE", 1, ActionRow(0, 3.0, "p1", {"type": "ready"}))
    await a.set_status("ABCDE", "closed", 10.0)
    assert a.held == {}
    assert await b.claim("ABCDE") is None
    assert [r.code for r in await b.live_rooms()] == []
    for key in (f"{prefix}room:ABCDE", f"{prefix}room:ABCDE:log:1",
                f"{prefix}token:{hash_token('t1')}"):
        assert 0 < redis_proc.cli("TTL", key) <= 7 * 86400, key


async def test_tokens_are_stored_only_as_their_sha256(two_nodes, redis_proc, prefix):
    a, _ = two_nodes
    await _game_room(a)
    c = redis_proc.client()
    dump = []
    for key in c.scan_iter(f"{prefix}*"):
        dump.append(key)
        kind = c.type(key)
        if kind == "hash":
            dump += [f"{k}={v}" for k, v in c.hgetall(key).items()]
        elif kind == "string":
            dump.append(c.get(key))
        elif kind == "list":
            dump += c.lrange(key, 0, -1)
    text = "\n".join(dump)
    assert hash_token("t1") in text
    assert "t1" not in text.replace(hash_token("t1"), "")


async def test_issue33_1_a_room_found_lost_neither_sends_nor_acts_until_it_is_unloaded(
        two_nodes):
    """Issue 33 item 1 (residue): a node woken past its claims' life renews them and finds a
    room taken; its claims are fresh again while the room is still loaded (unloading it
    takes a round trip or two). Meanwhile the room may send nothing (the voice loop's
    local check, no Redis call) and may not act (`confirm` refuses it)."""
    a, b = two_nodes
    await _game_room(a)
    node = Cluster(a.r, a, node_id="n1", url="http://n1.test", ttl=TTL)
    assert node.may_send("ABCDE")
    await asyncio.sleep(TTL + 0.2)                  # n1 sleeps past its claim's life
    assert not node.may_send("ABCDE")               # its last renewal is too old
    assert await b.claim("ABCDE") == 2
    assert await node.renew_now() == ["ABCDE"]      # the wake's renewal: the room is lost
    assert node.claims_fresh() and not node.may_send("ABCDE")
    with pytest.raises(NotOwner):
        await node.confirm("ABCDE")
