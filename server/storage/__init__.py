"""Storage: where rooms, seats, games and the action log are kept.

Owns the async store seam the room actors await (`seam`), the embedded SQLite
store (`sqlite`), and cluster mode's Redis store (`redis_store`, on its key names
`redis_keys`, claims and fenced writes `redis_fencing` and games' log
`redis_log`) with its server-side scripts.
Imports no other server package. A new store implements the seam
(tests/cluster/test_store_contract.py runs the same contract on each).
"""
