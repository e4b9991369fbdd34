"""SQLite persistence: rooms, players, games, the action log, scores.

One connection, used only from the event loop's thread (the room actors run
there), so the store needs no locks. Statements are tiny and indexed; a commit
costs well under a millisecond, so calling it inline from a room actor is
cheaper than a thread hop.

Durability: WAL journal with ``synchronous=NORMAL``. In WAL mode NORMAL writes
every commit to the WAL file before ``commit()`` returns (so it survives the
server process crashing or being killed, which is what a restart replays from)
and only skips the fsync, which happens at checkpoints. A power cut or kernel
crash may lose the last few actions of a party game; FULL would fsync on every
accepted action (a disk round-trip per clue or vote) for no gain a player would
notice. The database is never corrupted either way.

Tokens are stored only as their SHA-256 hash (see server.rooms.codes).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS rooms (
    code      TEXT PRIMARY KEY,
    created   REAL NOT NULL,
    settings  TEXT NOT NULL,          -- JSON {preset, options, lang}
    host      TEXT,                   -- player id
    status    TEXT NOT NULL,          -- lobby | playing | over | closed
    updated   REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS players (
    room       TEXT NOT NULL REFERENCES rooms(code),
    id         TEXT NOT NULL,
    name       TEXT NOT NULL,
    color      TEXT NOT NULL,
    token_hash TEXT NOT NULL UNIQUE,  -- sha256(token); the token itself is never stored
    seat       INTEGER NOT NULL,
    kicked     INTEGER NOT NULL DEFAULT 0,  -- 0 in the room, 1 kicked, 2 left
    joined     REAL NOT NULL,
    PRIMARY KEY (room, id)
);
CREATE TABLE IF NOT EXISTS games (
    room       TEXT NOT NULL REFERENCES rooms(code),
    n          INTEGER NOT NULL,      -- 1, 2, ... within the room (rematches)
    preset     TEXT NOT NULL,
    options    TEXT NOT NULL,         -- JSON, as validated by the game
    seed       INTEGER NOT NULL,
    players    TEXT NOT NULL,         -- JSON [{id, name}] in seat order
    started_at REAL NOT NULL,
    ended_at   REAL,
    result     TEXT,                  -- JSON, the game's result when over
    pair       TEXT,                  -- JSON [a, b, category]: the words dealt, so a replay
                                      -- deals the same ones even if the word files changed
    PRIMARY KEY (room, n)
);
CREATE TABLE IF NOT EXISTS actions (
    room   TEXT NOT NULL,
    game   INTEGER NOT NULL,
    seq    INTEGER NOT NULL,
    t      REAL NOT NULL,
    player TEXT NOT NULL,
    action TEXT NOT NULL,             -- JSON, exactly what game.apply accepted
    PRIMARY KEY (room, game, seq)
);
CREATE TABLE IF NOT EXISTS bans (
    room   TEXT NOT NULL,
    name   TEXT NOT NULL,             -- the kicked player's name as shown; compared folded
    since  REAL NOT NULL,
    PRIMARY KEY (room, name)
);
CREATE TABLE IF NOT EXISTS spectators (
    room       TEXT NOT NULL REFERENCES rooms(code),
    id         TEXT NOT NULL,         -- s1, s2, ... within the room (never a player id)
    token_hash TEXT NOT NULL UNIQUE,  -- sha256(token), as for players
    joined     REAL NOT NULL,
    PRIMARY KEY (room, id)
);
CREATE TABLE IF NOT EXISTS devices (
    room   TEXT NOT NULL,
    who    TEXT NOT NULL,             -- a player id (p3) or a spectator pass id (s2)
    device TEXT NOT NULL,             -- sha256 of the browser's device cookie
    PRIMARY KEY (room, who)
);
CREATE TABLE IF NOT EXISTS ban_devices (
    room   TEXT NOT NULL,
    device TEXT NOT NULL,             -- a device a ban keeps out (sha256, as above)
    name   TEXT NOT NULL,             -- the ban it belongs to (bans.name)
    PRIMARY KEY (room, device)
);
CREATE INDEX IF NOT EXISTS rooms_status ON rooms(status);
"""


@dataclass
class RoomRow:
    code: str
    created: float
    settings: dict[str, Any]
    host: str | None
    status: str
    updated: float


@dataclass
class PlayerRow:
    id: str
    name: str
    color: str
    seat: int
    kicked: int
    joined: float


@dataclass
class GameRow:
    n: int
    preset: str
    options: dict[str, Any]
    seed: int
    players: list[dict[str, Any]]
    started_at: float
    ended_at: float | None
    result: Any
    pair: list[str] | None = None


@dataclass
class ActionRow:
    seq: int
    t: float
    player: str
    action: dict[str, Any]


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False)


class Store:
    """The SQLite file behind every room."""

    def __init__(self, path: str) -> None:
        # Autocommit mode: each statement commits at once; multi-statement
        # changes use an explicit transaction (see _tx).
        self.path = path
        self.db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute("PRAGMA foreign_keys=ON")
        self.db.execute("PRAGMA busy_timeout=5000")
        self.db.executescript(SCHEMA)

    def close(self) -> None:
        """Checkpoint and close the file."""
        try:
            self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            self.db.close()

    def _tx(self) -> _Tx:
        return _Tx(self.db)

    # Rooms ---------------------------------------------------------------

    def create_room(self, code: str, now: float, settings: dict[str, Any]) -> bool:
        """Insert a room in the lobby; False if the code is already taken."""
        try:
            self.db.execute(
                "INSERT INTO rooms (code, created, settings, host, status, updated)"
                " VALUES (?, ?, ?, NULL, 'lobby', ?)",
                (code, now, _dumps(settings), now),
            )
        except sqlite3.IntegrityError:
            return False
        return True

    def room(self, code: str) -> RoomRow | None:
        """One room, or None."""
        row = self.db.execute(
            "SELECT code, created, settings, host, status, updated FROM rooms WHERE code = ?",
            (code,),
        ).fetchone()
        return _room(row) if row else None

    def live_rooms(self) -> list[RoomRow]:
        """Every room not closed, oldest first: what a restart rebuilds."""
        rows = self.db.execute(
            "SELECT code, created, settings, host, status, updated FROM rooms"
            " WHERE status != 'closed' ORDER BY created"
        ).fetchall()
        return [_room(r) for r in rows]

    def set_host(self, code: str, host: str | None) -> None:
        self.db.execute("UPDATE rooms SET host = ? WHERE code = ?", (host, code))

    def set_settings(self, code: str, settings: dict[str, Any]) -> None:
        self.db.execute("UPDATE rooms SET settings = ? WHERE code = ?", (_dumps(settings), code))

    def set_status(self, code: str, status: str, now: float) -> None:
        self.db.execute(
            "UPDATE rooms SET status = ?, updated = ? WHERE code = ?", (status, now, code)
        )

    def touch(self, code: str, now: float) -> None:
        """Record activity (someone connected) so idle expiry counts from now."""
        self.db.execute("UPDATE rooms SET updated = ? WHERE code = ?", (now, code))

    # Players -------------------------------------------------------------

    def add_player(self, code: str, player: PlayerRow, token_hash: str) -> None:
        """Seat a new player (and make them host if the room has none)."""
        with self._tx():
            self.db.execute(
                "INSERT INTO players (room, id, name, color, token_hash, seat, kicked, joined)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (code, player.id, player.name, player.color, token_hash, player.seat,
                 player.kicked, player.joined),
            )
            self.db.execute(
                "UPDATE rooms SET host = ? WHERE code = ? AND host IS NULL", (player.id, code)
            )

    def players(self, code: str) -> list[PlayerRow]:
        """Every player ever seated in the room (kicked and left included), by seat."""
        rows = self.db.execute(
            "SELECT id, name, color, seat, kicked, joined FROM players WHERE room = ?"
            " ORDER BY seat",
            (code,),
        ).fetchall()
        return [PlayerRow(*r) for r in rows]

    def set_kicked(self, code: str, pid: str, kicked: int) -> None:
        self.db.execute(
            "UPDATE players SET kicked = ? WHERE room = ? AND id = ?", (kicked, code, pid)
        )

    def find_token(self, token_hash: str) -> tuple[str, str, int] | None:
        """(room code, player id, kicked) for a token hash, or None."""
        row = self.db.execute(
            "SELECT room, id, kicked FROM players WHERE token_hash = ?", (token_hash,)
        ).fetchone()
        return (row[0], row[1], row[2]) if row else None

    # Spectators: passes without a seat (a shared screen) ----------------

    def add_spectator(self, code: str, sid: str, token_hash: str, now: float) -> None:
        """Give room `code` a spectator `sid` holding the token of `token_hash`."""
        self.db.execute(
            "INSERT INTO spectators (room, id, token_hash, joined) VALUES (?, ?, ?, ?)",
            (code, sid, token_hash, now))

    def spectators(self, code: str) -> list[tuple[str, float]]:
        """(id, joined) of the room's spectators, oldest first."""
        return [(r[0], r[1]) for r in self.db.execute(
            "SELECT id, joined FROM spectators WHERE room = ? ORDER BY joined, id", (code,))]

    def remove_spectator(self, code: str, sid: str) -> None:
        """The pass is given back: its token stops working."""
        self.db.execute("DELETE FROM spectators WHERE room = ? AND id = ?", (code, sid))

    def find_spectator(self, token_hash: str) -> tuple[str, str] | None:
        """(room code, spectator id) for a token hash, or None."""
        row = self.db.execute(
            "SELECT room, id FROM spectators WHERE token_hash = ?", (token_hash,)).fetchone()
        return (row[0], row[1]) if row else None

    # Bans: names the host kicked, kept out of the room until let back in -----

    def add_ban(self, code: str, name: str, now: float, devices: Iterable[str] = ()) -> None:
        """Ban `name`, and the `devices` (hashes) its person used: every door stays shut."""
        with self._tx():
            self.db.execute("INSERT OR IGNORE INTO bans (room, name, since) VALUES (?, ?, ?)",
                            (code, name, now))
            self.db.executemany(
                "INSERT OR REPLACE INTO ban_devices (room, device, name) VALUES (?, ?, ?)",
                [(code, d, name) for d in devices])

    def remove_ban(self, code: str, name: str) -> None:
        """Let `name` back in, and the devices banned with it."""
        with self._tx():
            self.db.execute("DELETE FROM bans WHERE room = ? AND name = ?", (code, name))
            self.db.execute("DELETE FROM ban_devices WHERE room = ? AND name = ?", (code, name))

    def banned_devices(self, code: str) -> dict[str, str]:
        """The devices (hashes) a ban keeps out of the room: device -> banned name."""
        return dict(self.db.execute("SELECT device, name FROM ban_devices WHERE room = ?",
                                    (code,)))

    # Devices: which browser took each seat and pass (so a ban can name it) ------

    def set_device(self, code: str, who: str, device: str) -> None:
        self.db.execute("INSERT OR REPLACE INTO devices (room, who, device) VALUES (?, ?, ?)",
                        (code, who, device))

    def devices(self, code: str) -> dict[str, str]:
        """Seat or pass id -> the hash of the device that took it."""
        return dict(self.db.execute("SELECT who, device FROM devices WHERE room = ?", (code,)))

    def bans(self, code: str) -> list[str]:
        """The banned names of a room, oldest first."""
        rows = self.db.execute("SELECT name FROM bans WHERE room = ? ORDER BY since, name",
                               (code,))
        return [name for (name,) in rows]

    # Games and the action log ---------------------------------------------

    def start_game(self, code: str, game: GameRow) -> None:
        """Record a new game and put the room in play, in one transaction."""
        with self._tx():
            self.db.execute(
                "INSERT INTO games (room, n, preset, options, seed, players, started_at, pair)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (code, game.n, game.preset, _dumps(game.options), game.seed,
                 _dumps(game.players), game.started_at,
                 _dumps(game.pair) if game.pair is not None else None),
            )
            self.db.execute(
                "UPDATE rooms SET status = 'playing', updated = ? WHERE code = ?",
                (game.started_at, code),
            )

    def append_action(self, code: str, n: int, action: ActionRow) -> None:
        """Append one accepted action; committed when this returns."""
        self.db.execute(
            "INSERT INTO actions (room, game, seq, t, player, action) VALUES (?, ?, ?, ?, ?, ?)",
            (code, n, action.seq, action.t, action.player, _dumps(action.action)),
        )

    def end_game(self, code: str, n: int, now: float, result: Any) -> None:
        """Close a game: its result (with its points), the room back to 'over'."""
        with self._tx():
            self.db.execute(
                "UPDATE games SET ended_at = ?, result = ? WHERE room = ? AND n = ?",
                (now, _dumps(result), code, n),
            )
            self.db.execute(
                "UPDATE rooms SET status = 'over', updated = ? WHERE code = ?", (now, code)
            )

    def last_game(self, code: str) -> GameRow | None:
        """The room's latest game, or None."""
        row = self.db.execute(
            "SELECT n, preset, options, seed, players, started_at, ended_at, result, pair"
            " FROM games"
            " WHERE room = ? ORDER BY n DESC LIMIT 1",
            (code,),
        ).fetchone()
        if not row:
            return None
        n, preset, options, seed, players, started, ended, result, pair = row
        return GameRow(n, preset, json.loads(options), seed, json.loads(players), started, ended,
                       json.loads(result) if result else None,
                       json.loads(pair) if pair else None)

    def actions(self, code: str, n: int) -> list[ActionRow]:
        """The accepted actions of one game, in order."""
        rows = self.db.execute(
            "SELECT seq, t, player, action FROM actions WHERE room = ? AND game = ? ORDER BY seq",
            (code, n),
        ).fetchall()
        return [ActionRow(seq, t, player, json.loads(a)) for seq, t, player, a in rows]

    def results(self, code: str) -> list[Any]:
        """The results of the room's finished games, oldest first (the evening)."""
        rows = self.db.execute(
            "SELECT result FROM games WHERE room = ? AND ended_at IS NOT NULL ORDER BY n",
            (code,))
        return [json.loads(r) for (r,) in rows if r]


def _room(row: tuple) -> RoomRow:
    code, created, settings, host, status, updated = row
    return RoomRow(code, created, json.loads(settings), host, status, updated)


class _Tx:
    """BEGIN IMMEDIATE ... COMMIT, rolled back on error."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type, exc, tb) -> None:
        self.db.execute("ROLLBACK" if exc_type else "COMMIT")
