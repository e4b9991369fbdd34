"""The wire: what crosses a player's WebSocket.

Owns the message schemas and their validation (`protocol`), the per-socket
outbox with its queue limits (`connection`) and the direct frame writes
(`wsdirect`). Imports no other server package, so that the edge and the rooms
can both use it.
"""
