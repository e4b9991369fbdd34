"""Where a room goes: the least-loaded live node, with a ramp-up for fresh nodes.

Pure functions over the nodes' published load (server/cluster/node.py reads it
from Redis), so every node that asks the same question of the same registry
gets the same answer, and the sweepers of several nodes spread a dead node's
rooms without talking to each other.

A node's load is the CPU its process used per second over the last
heartbeats (1.0 is one core: one Python process cannot use more than about
one), plus a small share per room it holds, so that rooms just placed (still
quiet lobbies) count before they cost anything. A node younger than
`ramp` seconds looks busier than it is, by `RAMP_LOAD` at birth falling to
nothing: a fresh node takes rooms only as fast as the others fill up, rather
than every new room of the moment.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

# The load one held room adds whatever it costs now: a quiet lobby will become a game
# (a busy 16-voice room costs ~0.17 of a core, bench/ROOM.md, seen in `cpu` too), and
# idle nodes differ in CPU by a few hundredths (heartbeats, forwarded requests): a room
# must outweigh that noise, or placement on a quiet cluster follows the noise.
ROOM_WEIGHT = 0.1
# What a node looks like at birth, in cores, fading out over its ramp-up.
RAMP_LOAD = 0.5


@dataclass(frozen=True)
class NodeLoad:
    """One live node as published in the registry."""

    id: str
    url: str
    cpu: float = 0.0        # process CPU seconds per wall second (1.0: one core busy)
    rooms: int = 0
    peers: int = 0          # WebRTC voice peers
    started: float = 0.0    # Unix time the node joined
    draining: bool = False  # SIGTERM received: takes no new rooms
    cores: int = 1          # CPUs of the machine (for `cluster status`)


def score(node: NodeLoad, now: float, ramp: float) -> float:
    """How busy `node` counts as for placement (lower takes the next room)."""
    age = max(0.0, now - node.started)
    young = RAMP_LOAD * max(0.0, 1.0 - age / ramp) if ramp > 0 else 0.0
    return node.cpu + ROOM_WEIGHT * node.rooms + young


def pick(nodes: Iterable[NodeLoad], now: float, ramp: float,
         exclude: Iterable[str] = ()) -> NodeLoad | None:
    """The node for one new room: the lowest score among live, non-draining nodes.

    Ties go to fewer rooms, then to the smaller id, so every node agrees.
    """
    skip = set(exclude)
    live = [n for n in nodes if not n.draining and n.id not in skip]
    if not live:
        return None
    return min(live, key=lambda n: (round(score(n, now, ramp), 9), n.rooms, n.id))


def assign(codes: Iterable[str], nodes: Iterable[NodeLoad], now: float, ramp: float,
           exclude: Iterable[str] = ()) -> dict[str, str]:
    """Spread several rooms (a dead node's) over the live nodes: code -> node id.

    Rooms are taken in code order and each one counts on its node before the
    next is placed, so that the nodes' sweepers, each running this on the
    same registry, agree on who adopts which room.
    """
    pool = {n.id: n for n in nodes}
    out: dict[str, str] = {}
    for code in sorted(codes):
        chosen = pick(pool.values(), now, ramp, exclude)
        if chosen is None:
            break
        out[code] = chosen.id
        pool[chosen.id] = replace(chosen, rooms=chosen.rooms + 1)
    return out
