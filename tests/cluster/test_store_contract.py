"""One contract, two stores: what the room actors rely on holds for SQLite and for Redis.

Issue 12: "the room records, seats (token hashes) and the action log live in
Redis" in cluster mode, so whatever the SQLite store keeps per room, player,
game and action, the Redis store keeps too. Each test runs against both.
"""

from __future__ import annotations

import pytest

from server.rooms.codes import hash_token
from server.storage.seam import ActionRow, GameRow, PlayerRow, SqliteRoomStore
from server.storage.sqlite import Store

SETTINGS = {"preset": "intruso", "options": {"lang": "it", "timers": {"clue": 30}}}


@pytest.fixture(params=["sqlite", "redis"])
async def store(request, tmp_path, prefix):
    if request.param == "sqlite":
        s = SqliteRoomStore(Store(str(tmp_path / "c.db")))
        yield s
        await s.close()
        return
    from redis.asyncio import Redis

    from server.storage.redis_store import RedisStore

    client = Redis.from_url(request.getfixturevalue("redis_proc").url, decode_responses=True)
    try:
        yield RedisStore(client, "n1", prefix=prefix)
    finally:
        await client.aclose()


def _player(pid: str, seat: int, t: float = 100.0) -> PlayerRow:
    return PlayerRow(pid, f"Name{seat}", "#e6194b", seat, 0, t + seat)


async def _room_with_players(store, code: str = "ABCDE", n: int = 3) -> list[str]:
    assert await store.create_room(code, 100.0, SETTINGS)
    tokens = []
    for i in range(1, n + 1):
        tok = f"token-{code}-{i}"
        await store.add_player(code, _player(f"p{i}", i), hash_token(tok))
        tokens.append(tok)
    return tokens


async def test_a_room_is_created_once_and_read_back(store):
    assert await store.create_room("ABCDE", 100.5, SETTINGS)
    assert not await store.create_room("ABCDE", 101.0, SETTINGS)  # the code is taken
    row = await store.room("ABCDE")
    assert (row.code, row.created, row.settings, row.host, row.status) == \
        ("ABCDE", 100.5, SETTINGS, None, "lobby")
    assert await store.room("ZZZZZ") is None


async def test_seats_hold_token_hashes_and_the_first_player_hosts(store):
    tokens = await _room_with_players(store)
    assert (await store.room("ABCDE")).host == "p1"
    players = await store.players("ABCDE")
    assert [(p.id, p.seat, p.kicked, p.joined) for p in players] == \
        [("p1", 1, 0, 101.0), ("p2", 2, 0, 102.0), ("p3", 3, 0, 103.0)]
    assert await store.find_token(hash_token(tokens[1])) == ("ABCDE", "p2", 0)
    assert await store.find_token(hash_token("not a token")) is None
    await store.set_kicked("ABCDE", "p2", 1)
    assert await store.find_token(hash_token(tokens[1])) == ("ABCDE", "p2", 1)
    assert [p.kicked for p in await store.players("ABCDE")] == [0, 1, 0]


async def test_host_settings_status_and_touch_are_kept(store):
    await _room_with_players(store)
    await store.set_host("ABCDE", "p3")
    await store.set_settings("ABCDE", {"preset": "sosia", "options": {}})
    await store.touch("ABCDE", 150.0)
    row = await store.room("ABCDE")
    assert (row.host, row.settings, row.updated) == ("p3", {"preset": "sosia", "options": {}},
                                                     150.0)
    await store.set_host("ABCDE", None)
    assert (await store.room("ABCDE")).host is None


async def test_a_game_its_log_and_its_end_are_kept_in_order(store):
    await _room_with_players(store)
    players = [{"id": "p1", "name": "Name1"}, {"id": "p2", "name": "Name2"},
               {"id": "p3", "name": "Name3"}]
    g = GameRow(1, "intruso", {"lang": "it"}, 2**62 + 7, players, 200.25, None, None,
                ["gatto", "cane", "animals"])
    await store.start_game("ABCDE", g)
    assert (await store.room("ABCDE")).status == "playing"
    actions = [ActionRow(0, 201.125, "p1", {"type": "clue", "text": "miagola"}),
               ActionRow(1, 202.0, "p2", {"type": "clue", "text": "é ✓"}),
               ActionRow(2, 203.5, "p3", {"type": "vote", "target": "p1"})]
    for a in actions:
        await store.append_action("ABCDE", 1, a)
    assert await store.actions("ABCDE", 1) == actions
    assert await store.last_game("ABCDE") == g
    result = {"winners": ["p2", "p3"], "points": {"p2": 2, "p3": 1}, "words": ["a", "b"]}
    await store.end_game("ABCDE", 1, 250.0, result)
    last = await store.last_game("ABCDE")
    assert (last.n, last.ended_at, last.result) == (1, 250.0, result)
    assert (await store.room("ABCDE")).status == "over"
    assert await store.results("ABCDE") == [result]
    g2 = GameRow(2, "intruso", {"lang": "it"}, 5, players, 300.0, None, None, None)
    await store.start_game("ABCDE", g2)
    assert await store.results("ABCDE") == [result]      # a game running has no result yet
    await store.end_game("ABCDE", 2, 310.0, {"winners": ["p2"]})
    assert await store.results("ABCDE") == [result, {"winners": ["p2"]}]
    assert (await store.last_game("ABCDE")).n == 2
    assert await store.actions("ABCDE", 2) == []


async def test_closed_rooms_leave_the_live_list(store):
    await _room_with_players(store, "ABCDE")
    await _room_with_players(store, "FGHJK")
    assert [r.code for r in await store.live_rooms()] == ["ABCDE", "FGHJK"]
    await store.set_status("ABCDE", "closed", 400.0)
    assert [r.code for r in await store.live_rooms()] == ["FGHJK"]
    assert (await store.room("ABCDE")).status == "closed"


async def test_spectator_passes_are_kept_found_by_token_and_given_back(store):
    """Issue 13: a spectator pass survives a restart like a seat: stored with its token's
    hash, found by it, never mistaken for a player's, gone when given back."""
    tokens = await _room_with_players(store, "SPECT", 2)
    await store.add_spectator("SPECT", "s1", hash_token("tv-1"), 200.0)
    await store.add_spectator("SPECT", "s2", hash_token("tv-2"), 201.0)
    assert await store.spectators("SPECT") == [("s1", 200.0), ("s2", 201.0)]
    assert await store.find_spectator(hash_token("tv-2")) == ("SPECT", "s2")
    # Two namespaces kept apart: a pass is no seat, a seat is no pass.
    assert await store.find_token(hash_token("tv-1")) is None
    assert await store.find_spectator(hash_token(tokens[0])) is None
    assert len(await store.players("SPECT")) == 2
    await store.remove_spectator("SPECT", "s1")
    assert await store.find_spectator(hash_token("tv-1")) is None
    assert await store.spectators("SPECT") == [("s2", 201.0)]


async def test_issue29_7_devices_and_banned_devices_are_kept_and_lifted_with_the_name(store):
    """Issue 29 item 7: a ban covers every door, so the store keeps which device (the hash
    of a browser's device cookie) took each seat and pass, and the devices a ban names;
    letting the name back in lifts its devices too. Both stores agree."""
    await _room_with_players(store, "DEVCS", 2)
    await store.add_spectator("DEVCS", "s1", hash_token("tv-1"), 200.0)
    await store.set_device("DEVCS", "p1", "d-ada")
    await store.set_device("DEVCS", "p2", "d-bob")
    await store.set_device("DEVCS", "s1", "d-bob")
    assert await store.devices("DEVCS") == {"p1": "d-ada", "p2": "d-bob", "s1": "d-bob"}
    assert await store.banned_devices("DEVCS") == {}
    await store.add_ban("DEVCS", "Bob", 300.0, ["d-bob", "d-bob2"])
    await store.add_ban("DEVCS", "Cy", 301.0)
    assert await store.bans("DEVCS") == ["Bob", "Cy"]
    assert await store.banned_devices("DEVCS") == {"d-bob": "Bob", "d-bob2": "Bob"}
    await store.remove_ban("DEVCS", "Bob")
    assert await store.bans("DEVCS") == ["Cy"]
    assert await store.banned_devices("DEVCS") == {}
    assert await store.devices("DEVCS") == {"p1": "d-ada", "p2": "d-bob", "s1": "d-bob"}
