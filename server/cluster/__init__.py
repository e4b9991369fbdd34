"""Cluster mode (`sussurro serve --redis ...`): many nodes on one Redis.

Owns this node in the Redis registry (`membership`), the beat, sweeps and
failover (`node`), hand-overs and the drain (`handover`), placement,
node-to-node forwarding, the worker supervisor and the `sussurro cluster`
command. May import `server.storage` (the Redis store); it reaches the
rooms only through the `RoomHost` interface that `server.edge` hands it.
"""
