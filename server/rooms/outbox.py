"""A room's outbox: what the room sends to many sockets at once.

Views (each player's own, and the one spectator view) with the last-view
dedup, the `room` message with its coalescing window, cues, whisper notes
and the voice's mouth levels. A direct answer to one socket (welcome, pong,
an error) is sent by its handler; a new kind of output to the table goes here.
"""

from __future__ import annotations

import asyncio
import functools
import json
from collections.abc import Callable, Iterable
from typing import Any

from server.rooms.seats import Member
from server.rooms.spectators import Spectator, is_public_cue
from server.rooms.table import Table
from server.rooms.whispers import Note


def _view_message(text: str, server_time: float) -> str:
    return f'{{"type":"view","server_time":{json.dumps(server_time)},"view":{text}}}'


class Outbox:
    """Sends views, the room broadcast, cues and notes to the table's sockets."""

    def __init__(self, table: Table, clock: Callable[[], float], window: float,
                 post: Callable[..., None], room_text: Callable[[], str],
                 view: Callable[[str | None], dict[str, Any] | None],
                 players: Callable[[], Iterable[str]],
                 play_cue: Callable[[str, list[str]], None]) -> None:
        """`view(pid)`: the game's view for `pid` (None: the spectators'), or None without a
        game; `players()`: the ids of the game's players; `room_text()`: the `room`
        message; `window`: the shortest time between two room broadcasts; `post`: the
        actor's, for a broadcast the window holds back; `play_cue`: the voice's."""
        self.table = table
        self.clock = clock
        self.window = window
        self._post = post
        self._room_text = room_text
        self._view = view
        self._players = players
        self._play_cue = play_cue
        self._last_view: dict[str, str] = {}  # by player id, and by spectator id
        # Roster broadcasts are coalesced (see room_changed).
        self._room_dirty = False
        self._room_flushed_at = float("-inf")
        self._room_flush: asyncio.TimerHandle | None = None

    # Views ------------------------------------------------------------------

    def views(self) -> None:
        """Every socket its view of the new game state (sent only when it changed)."""
        # A game change may change the room too (phase, scores): the room goes first.
        self.flush_room()
        for m in self.table.members.values():
            self.view(m)
        self.spectator_views(self.table.spectators.values())

    def view(self, member: Member) -> None:
        if member.conn is None or member.id not in self._players():
            return
        view = self._view(member.id)
        if view is None:
            return
        text = json.dumps(view, separators=(",", ":"), sort_keys=True, ensure_ascii=False)
        if self._last_view.get(member.id) == text:
            return
        self._last_view[member.id] = text
        # A view is the player's whole picture: a newer one replaces one still queued.
        member.conn.send_latest("view", _view_message(text, self.clock()))

    def spectator_views(self, spectators: Iterable[Spectator]) -> None:
        """The spectator view, `game.view(state, None)`: public information only, computed
        once per change and the same for every screen."""
        watching = [s for s in spectators if s.conn is not None]
        view = self._view(None) if watching else None
        if view is None:
            return
        text = json.dumps(view, separators=(",", ":"), sort_keys=True, ensure_ascii=False)
        msg = _view_message(text, self.clock())
        for s in watching:
            if self._last_view.get(s.id) != text:
                self._last_view[s.id] = text
                s.conn.send_latest("view", msg)

    def forget(self, pid: str) -> None:
        """`pid`'s socket is gone: its next one gets its view whatever it was."""
        self._last_view.pop(pid, None)

    def forget_all(self) -> None:
        self._last_view.clear()

    def picture(self, member: Member | Spectator, whispering_to: Iterable[str]) -> None:
        """The socket's view again, and (a player's) the whispers aimed at them."""
        conn = member.conn
        if conn is None:
            return
        self.forget(member.id)
        if isinstance(member, Spectator):
            self.spectator_views([member])
            return
        self.view(member)
        for src in whispering_to:
            conn.send({"type": "whisper", "from": src, "to": member.id, "active": True})

    # The room broadcast -----------------------------------------------------

    def room_changed(self) -> None:
        """The roster, host, settings or phase changed: everyone gets one `room` message.

        Coalesced: sent at the end of the actor's turn, and no more often than
        `window`, so a burst of changes (a reconnect flood) is one message. Each
        socket is sent only a `room` that differs from its last one.
        """
        self._room_dirty = True

    def end_of_turn(self) -> None:
        """After each command: send the pending `room` now or when the window allows."""
        if not self._room_dirty or self._room_flush is not None:
            return
        loop = asyncio.get_running_loop()
        wait = self._room_flushed_at + self.window - loop.time()
        if wait <= 0:
            self.flush_room()
        else:
            self._room_flush = loop.call_later(wait, self._post, self.flush_room)

    def flush_room(self) -> None:
        if self._room_flush is not None:
            self._room_flush.cancel()
            self._room_flush = None
        if not self._room_dirty:
            return
        self._room_dirty = False
        self._room_flushed_at = asyncio.get_running_loop().time()
        text = self._room_text()
        for m in self.table.sockets():
            if m.conn is not None:
                m.conn.send_room(text)

    def cancel_flush(self) -> None:
        if self._room_flush is not None:
            self._room_flush.cancel()

    # Cues, notes, mouths ----------------------------------------------------

    def cue(self, name: str, listeners: list[str]) -> None:
        """A game cue: played in the voice and told to each listener's socket."""
        if is_public_cue(listeners, self._players()):
            # The whole table hears it: so do screens.
            listeners = [*listeners, *self.table.spectators]
        self._play_cue(name, listeners)
        for pid in listeners:
            m = self.table.members.get(pid) or self.table.spectators.get(pid)
            if m is not None and m.conn is not None:
                m.conn.send({"type": "cue", "name": name})

    def notes(self, notes: list[Note]) -> None:
        """Whisper notes, each to its recipient if they are seated and online."""
        for pid, note in notes:
            m = self.table.members.get(pid)
            if m is not None and m.conn is not None:
                m.conn.send(note)

    def send_all(self, text: str, kind: str = "mouths") -> None:
        """Mouth levels (or another latest-only text of `kind`) to every socket."""
        # The newest levels replace ones a slow reader has not taken yet.
        for m in self.table.sockets():
            if m.conn is not None:
                m.conn.send_latest(kind, text)

    def listeners(self) -> list[tuple[str, Callable[[str], None]]]:
        """Every connected socket as (player id, send): for per-listener mouths. The
        newest levels replace ones a slow reader has not taken yet."""
        return [(m.id, functools.partial(m.conn.send_latest, "mouths"))
                for m in self.table.sockets() if m.conn is not None]
