"""Rooms: the registry of live rooms and each room's actor with its parts.

Owns room codes and tokens, the registry (`registry`) and each room: the
facade (`room`) over its parts: the actor with its mailbox and timer (`actor`),
the table of seats, host, bans and passes (`table`, `seats`, `spectators`),
joins and departures (`membership`), sockets (`sockets`), the dispatcher and
handlers of client messages (`handlers/`), the game on the table (`play`),
the timer's deadlines (`deadlines`), the outbox of views, room broadcasts and
cues (`outbox`, with `roster` for the `room` message), whispers (`whispers`),
who hears whom (`hearing`), the link to the voice (`voicelink`), and the
rebuild from the store (`restore`). The parts name what they need of the room
as small protocols (`ports`), never the facade: inside the package only the
registry imports `room`, so no two modules import each other. A room runs the
`game` core and sends through `server.wire` connections. May import `server.media`, `server.storage` and `server.wire`;
never `server.edge`, `server.cluster` or `server.reach` (cluster mode reaches
the rooms through its own small interface).
"""
