"""Games and the action log of cluster mode in Redis: the room's replayable history.

`room:{code}:games` holds each game's start (preset, options, seed, players),
`room:{code}:ended` its end (result and points), and `room:{code}:log:{n}` game
n's accepted actions in order, append-only: a write must name the next index,
so a log never gets a gap or a duplicate (server/storage/redis_scripts.py).
"""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any

from redis import exceptions as rexc

from server.storage.redis_fencing import FencedRedis
from server.storage.redis_keys import dumps
from server.storage.seam import ActionRow, GameRow


class GameLog(FencedRedis):
    """A room's games and their action logs, written fenced (the rows of `RedisStore`)."""

    async def start_game(self, code: str, game: GameRow) -> None:
        body = dumps({"preset": game.preset, "options": game.options, "seed": game.seed,
                       "players": game.players, "started_at": game.started_at,
                       "pair": game.pair})
        k = self.keys
        await self._fenced(code, "START_GAME", [k.room(code), k.games(code)],
                           [game.n, body, repr(game.started_at)])

    async def append_action(self, code: str, n: int, action: ActionRow) -> None:
        """Append one accepted action; in Redis (and fenced) when this returns."""
        body = dumps(asdict(action))
        try:
            await self._fenced(code, "APPEND", [self.keys.log(code, n)], [action.seq, body])
        except rexc.ResponseError as exc:
            if str(exc).startswith("SEQ"):
                raise ValueError(f"room {code} game {n}: seq {action.seq} is not next "
                                 f"({exc})") from None
            raise

    async def end_game(self, code: str, n: int, now: float, result: Any) -> None:
        """Close a game: its result (with its points), the room back to 'over'."""
        k = self.keys
        await self._fenced(code, "END_GAME", [k.room(code), k.ended(code)],
                           [n, dumps({"ended_at": now, "result": result}), repr(now)])

    async def last_game(self, code: str) -> GameRow | None:
        k = self.keys
        n = int(await self._read(self.r.hlen(k.games(code))))
        if n == 0:
            return None
        async with self.r.pipeline(transaction=False) as pipe:
            pipe.hget(k.games(code), str(n))
            pipe.hget(k.ended(code), str(n))
            raw, ended = await self._read(pipe.execute())
        g = json.loads(raw)
        e = json.loads(ended) if ended else {"ended_at": None, "result": None}
        return GameRow(n, g["preset"], g["options"], int(g["seed"]), g["players"],
                       float(g["started_at"]), e["ended_at"], e["result"], g.get("pair"))

    async def actions(self, code: str, n: int) -> list[ActionRow]:
        """The accepted actions of one game, in order."""
        rows = await self._read(self.r.lrange(self.keys.log(code, n), 0, -1))
        out = []
        for raw in rows:
            a = json.loads(raw)
            out.append(ActionRow(int(a["seq"]), float(a["t"]), a["player"], a["action"]))
        return out

    async def results(self, code: str) -> list[Any]:
        """The results of the room's finished games, oldest first (the evening)."""
        rows = await self._read(self.r.hgetall(self.keys.ended(code)))
        ended = sorted((int(n), json.loads(raw)) for n, raw in rows.items())
        return [e["result"] for _, e in ended if e.get("result")]
