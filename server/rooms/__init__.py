"""Rooms: the registry of live rooms and each room's actor with its parts.

Owns room codes and tokens, the registry (`registry`), the room actor
(`room`), its seats, spectator passes and whispers, and the link to the voice
(`voicelink`). A room runs the `game` core and sends through `server.wire`
connections. May import `server.media`, `server.storage` and `server.wire`;
never `server.edge`, `server.cluster` or `server.reach` (cluster mode reaches
the rooms through its own small interface).
"""
