"""Finding a room by the code in a request's path: here, on another node, or nowhere.

Unknown codes cost the asker from its `misses` bucket, so guessing codes is slow.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from fastapi import Request
from fastapi.responses import Response

from server.edge.replies import error
from server.rooms.codes import normalise_code
from server.rooms.registry import Room
from server.storage.seam import StoreUnavailable
from server.wire import protocol as P

if TYPE_CHECKING:
    from server.edge.context import Edge

log = logging.getLogger(__name__)

# Whether the last cluster lookup found Redis unreachable: an outage is logged once,
# not once per request (pages retry every second or so).
_redis_down = False


async def find_room(edge: Edge, request: Request, raw: str, method: str = "GET",
                    path: str = "", body: dict[str, Any] | None = None,
                    device: str = "") -> Room | Response:
    """The loaded room of a code, or the response to send instead.

    Embedded: the room or 404 (429 for guessers). Cluster mode: a room
    running on another node is answered by that node (the request is
    forwarded as `method path body`), a room nobody holds is adopted.
    """
    inside = edge.internal(request)
    misses_left = edge.throttles.misses.bucket(edge.client_ip(request))
    wait = 0.0 if inside else misses_left.retry_after()
    if wait > 0:
        # Out of misses: even real codes wait, or guessing could go on through here.
        return error(429, P.RATE_LIMITED, "too many unknown room codes; slow down",
                     retry_after=wait)
    code = normalise_code(raw)
    room = edge.rooms.get(code) if code else None
    if room is None and edge.cluster is not None and code:
        global _redis_down
        try:
            found = await _cluster_room(edge, code, method, path, body, inside, device)
        except StoreUnavailable as exc:
            if not _redis_down:
                log.warning("cluster: store unavailable for room lookups: %s", exc)
            _redis_down = True
            return error(503, P.STORE_UNAVAILABLE, "the rooms' store cannot be reached; retry",
                         retry_after=1)
        if _redis_down:
            log.warning("cluster: store reachable again")
        _redis_down = False
        if found is not None:
            return found
    if room is None:
        misses_left.take()
        return error(404, "unknown_room", "no room with that code")
    return room


async def _cluster_room(edge: Edge, code: str, method: str, path: str,
                        body: dict[str, Any] | None, inside: bool,
                        device: str = "") -> Room | Response | None:
    """Where a room not loaded here is served: its room, the owner's answer, or None."""
    cluster, forward = edge.cluster, edge.forward
    where = await cluster.where(code)
    if where.state == "gone":
        return None
    if where.state in ("here", "orphan"):
        if where.state == "orphan" and not inside:
            target = await cluster.target_for_new_room()
            if target is not None and target.id != cluster.id:
                answer = await forward.send(target.url, method, path, body)
                if answer is not None:
                    return answer
        if await cluster.adopt(code) and edge.rooms.get(code) is not None:
            return edge.rooms.get(code)
    elif where.url and not inside:
        answer = await forward.send(where.url, method, path, body, device=device)
        if answer is not None:
            return answer
        # Its owner is unreachable. One that refuses connections died (kill -9, crash):
        # its clients are asking now, so take the room over now, not when its claim
        # lapses (issue 33); the fence keeps this safe if it was not dead after all.
        if where.node and await forward.refused(where.url) \
                and await cluster.store.drop_dead(code, where.node):
            log.warning("cluster: node %s refuses connections; taking over room %s",
                        where.node, code)
            return await _cluster_room(edge, code, method, path, body, inside, device)
    # Claimed by a node that does not answer (yet, or any more): ask again shortly.
    return error(503, P.ROOM_MOVED, "the room is moving to another server; retry",
                 retry_after=1)
