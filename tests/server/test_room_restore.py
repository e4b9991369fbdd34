"""Room actors in-process on a real SQLite file: restore paths a live server rarely hits."""

from __future__ import annotations

import json

import game
from server.config import Settings
from server.rooms.registry import Rooms
from server.storage.sqlite import ActionRow, Store
from server.wire.protocol import parse


async def _restore(path) -> tuple[Store, Rooms]:
    store = Store(str(path))
    rooms = Rooms(store, Settings(db=str(path)))
    await rooms.restore()
    return store, rooms


async def _shut(store: Store, rooms: Rooms) -> None:
    await rooms.close()
    store.close()


async def _room_with_game(path):
    store, rooms = await _restore(path)
    room, _, _ = await rooms.create("Ada", None, "intruso", None)
    for name in ("Bob", "Cy"):
        await room.call(room.cmd_add_member, name, None)
    room.options = game.validate_options("intruso", {"powers": []}, 3)  # straight to the clues
    await room.call(room._start_game)
    return store, rooms, room


async def test_a_game_whose_log_no_longer_replays_falls_back_to_the_lobby_and_can_restart(
        tmp_path):
    path = tmp_path / "r.db"
    store, rooms, room = await _room_with_game(path)
    code = room.code
    # A log entry the game refuses (as if the rules changed under an old database).
    store.append_action(code, 1, ActionRow(0, room.now(), "p1", {"type": "guess", "word": "x"}))
    await _shut(store, rooms)
    # Restored twice: the second time the room is a plain lobby in the database.
    await _shut(*await _restore(path))
    store, rooms = await _restore(path)
    try:
        again = rooms.get(code)
        assert again.status == "lobby" and again.state is None
        assert [m.name for m in again._seated()] == ["Ada", "Bob", "Cy"]
        await again.call(again._start_game)  # game 2, no clash with game 1's row
        assert again.status == "playing" and again.game_n == 2
        assert store.last_game(code).n == 2
    finally:
        await _shut(store, rooms)


async def test_a_room_restored_mid_game_has_the_same_state_bytes(tmp_path):
    path = tmp_path / "s.db"
    store, rooms, room = await _room_with_game(path)
    code = room.code
    clue = parse('{"type": "action", "action": {"type": "clue", "text": "zorp"}}')
    await room.call(room._on_action, room.members[room.state.order[0]], clue)
    before = game.state_bytes(room.state)
    await _shut(store, rooms)
    store, rooms = await _restore(path)
    try:
        assert game.state_bytes(rooms.get(code).state) == before
        assert rooms.get(code).seq == 1
    finally:
        await _shut(store, rooms)


async def test_idle_and_empty_rooms_are_closed_and_their_tokens_stop_working(tmp_path):
    path = tmp_path / "e.db"
    store, rooms = await _restore(path)
    try:
        busy, _, _ = await rooms.create("Ada", None, None, None)
        idle, _, token = await rooms.create("Bob", None, None, None)
        empty, _, _ = await rooms.create("Cy", None, None, None)
        await empty.call(empty._remove, empty.members["p1"], 2)
        idle.last_activity -= 7 * 3600
        assert sorted(await rooms.expire(rooms.clock() + 61)) == sorted([idle.code, empty.code])
        assert rooms.get(busy.code) is busy
        assert await rooms.resolve(token) == "bad_token"
        assert store.room(idle.code).status == "closed"
        assert [r.code for r in store.live_rooms()] == [busy.code]
    finally:
        await _shut(store, rooms)


async def test_an_impostore_room_restored_mid_game_deals_the_same_words_and_keeps_its_evening(
        tmp_path):
    """Issue 9: the room's own list and the drawn words are stored with the room and the game;
    after a restart the game replays byte for byte (word request and change included) and
    the finished games' points, podium and awards are still the evening's."""
    path = tmp_path / "i.db"
    store, rooms = await _restore(path)
    room, _, _ = await rooms.create("Ada", None, "classica", None)
    for name in ("Bob", "Cy", "Di"):
        await room.call(room.cmd_add_member, name, None)
    own = "zebra: strisce\npanda: bambù\nkoala: eucalipto\nlama: Ande"
    settings = parse(json.dumps({"type": "settings", "options": {"custom_words": own}}))
    await room.call(room._on_settings, room.members["p1"], settings)
    await room.call(room._start_game)
    code = room.code
    ask = parse('{"type": "action", "action": {"type": "ask_word"}}')
    await room.call(room._on_action, room.members["p2"], ask)
    for pid in ("p1", "p2", "p3", "p4"):
        yes = parse('{"type": "action", "action": {"type": "word_vote", "change": true}}')
        await room.call(room._on_action, room.members[pid], yes)
    assert room.state.words_seen[0] != room.state.word and room.state.category == "custom"
    before = game.state_bytes(room.state)
    await _shut(store, rooms)
    store, rooms = await _restore(path)
    try:
        again = rooms.get(code)
        assert game.state_bytes(again.state) == before
        assert again.options["custom_words"][0] == {"word": "zebra", "hints": ["strisce"]}
        assert again._room_message()["settings"]["options"]["custom_words"] == {"count": 4}

        def act(pid, action):
            msg = parse(json.dumps({"type": "action", "action": action}))
            return again.call(again._on_action, again.members[pid], msg)

        for pid in ("p1", "p2", "p3", "p4"):
            await act(pid, {"type": "seen"})
        for pid in list(again.state.order):
            await act(pid, {"type": "done"})
        impostor = next(pl.id for pl in again.state.players if pl.role == "impostore")
        for pid in ("p1", "p2", "p3", "p4"):
            await act(pid, {"type": "vote", "target": impostor if pid != impostor else
                            next(p for p in ("p1", "p2") if p != impostor)})
        await act(impostor, {"type": "guess", "word": again.state.word})
        evening = again._room_message()["evening"]
        assert evening["games"] == 1 and evening["podium"][0]["players"] == [impostor]
    finally:
        await _shut(store, rooms)
    store, rooms = await _restore(path)
    try:
        assert rooms.get(code)._room_message()["evening"] == evening
    finally:
        await _shut(store, rooms)
