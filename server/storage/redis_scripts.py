"""The Lua scripts of the Redis store: claims, and writes fenced by the claim's token.

Redis runs a script atomically, so "is my fencing token still the room's?"
and the write itself are one step: no other node can take the room over
between the check and the write. Every fenced script starts with FENCE
(KEYS[1] is the room's fence counter, ARGV[1] this node's token) and fails
with NOTOWNER, having written nothing, when another node claimed the room
since. server/storage/redis_store.py calls them; docs/cluster.md explains the method.
"""

from __future__ import annotations

# A write is allowed while nobody has claimed the room since us: the fence counter
# still holds our token. (The claim key's expiry only decides when others MAY claim.)
FENCE = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return redis.error_reply('NOTOWNER ' .. tostring(redis.call('GET', KEYS[1])))
end
"""

# KEYS: claim, fence, room. ARGV: node, ttl_ms.
# The new fencing token; 0 if another node holds the claim; -1 if the room is gone or closed.
CLAIM = """
local status = redis.call('HGET', KEYS[3], 'status')
if not status or status == 'closed' then return -1 end
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local token = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], ARGV[1] .. ' ' .. token, 'PX', ARGV[2])
return token
"""

# KEYS: claim, fence, room, live-rooms index. ARGV: node, ttl_ms, code, now, settings.
# A new room in the lobby, claimed by its creator in the same step: its token, or 0 if taken.
CREATE = """
if redis.call('EXISTS', KEYS[3]) == 1 then return 0 end
redis.call('HSET', KEYS[3], 'created', ARGV[4], 'settings', ARGV[5], 'host', '',
           'status', 'lobby', 'updated', ARGV[4])
redis.call('ZADD', KEYS[4], ARGV[4], ARGV[3])
local token = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], ARGV[1] .. ' ' .. token, 'PX', ARGV[2])
return token
"""

# KEYS: claim1, fence1, claim2, fence2, ... ARGV: ttl_ms, node, token1, token2, ...
# Extends each claim still ours; a claim that merely expired while nobody else took the
# room (our token is still the fence) is taken back. 1 kept, 0 lost, per room.
RENEW = """
local out = {}
for i = 1, #KEYS / 2 do
  local claim, fence, token = KEYS[2 * i - 1], KEYS[2 * i], ARGV[i + 2]
  local want = ARGV[2] .. ' ' .. token
  local cur = redis.call('GET', claim)
  if cur == want then
    redis.call('PEXPIRE', claim, ARGV[1])
    out[i] = 1
  elseif not cur and redis.call('GET', fence) == token then
    redis.call('SET', claim, want, 'PX', ARGV[1])
    out[i] = 1
  else
    out[i] = 0
  end
end
return out
"""

# KEYS: claim. ARGV: node, token. Gives the room up (drain, close): 1 if it was ours.
RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] .. ' ' .. ARGV[2] then
  redis.call('DEL', KEYS[1])
  return 1
end
return 0
"""

# KEYS: claim. ARGV: node. Drops a dead node's claim (its node refuses connections), so
# the room can be adopted now rather than when the claim lapses: 1 if it was that node's.
# Safe whoever is wrong: the next owner's new token fences the old one out.
DROP_DEAD = """
local cur = redis.call('GET', KEYS[1])
if cur and string.sub(cur, 1, #ARGV[1] + 1) == ARGV[1] .. ' ' then
  redis.call('DEL', KEYS[1])
  return 1
end
return 0
"""

# KEYS: fence, hash. ARGV: token, field, value, field, value, ...
HSET = FENCE + """
redis.call('HSET', KEYS[2], unpack(ARGV, 2))
return 1
"""

# KEYS: fence, hash. ARGV: token, field, field, ...
HDEL = FENCE + """
redis.call('HDEL', KEYS[2], unpack(ARGV, 2))
return 1
"""

# KEYS: fence, room, players, kicked, tokens, token key.
# ARGV: token, pid, player json, kicked, token hash, "code pid".
ADD_PLAYER = FENCE + """
if not redis.call('SET', KEYS[6], ARGV[6], 'NX') then
  return redis.error_reply('TOKEN_TAKEN')
end
redis.call('HSET', KEYS[3], ARGV[2], ARGV[3])
redis.call('HSET', KEYS[4], ARGV[2], ARGV[4])
redis.call('HSET', KEYS[5], ARGV[2], ARGV[5])
local host = redis.call('HGET', KEYS[2], 'host')
if not host or host == '' then redis.call('HSET', KEYS[2], 'host', ARGV[2]) end
return 1
"""

# KEYS: fence, spectators, token key. ARGV: token, sid, spectator json, "code sid".
# The token key is shared with the players' (one namespace of token hashes).
ADD_SPECTATOR = FENCE + """
if not redis.call('SET', KEYS[3], ARGV[4], 'NX') then
  return redis.error_reply('TOKEN_TAKEN')
end
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
return 1
"""

# KEYS: fence, spectators, token key. ARGV: token, sid. The pass and its token go.
REMOVE_SPECTATOR = FENCE + """
redis.call('HDEL', KEYS[2], ARGV[2])
redis.call('DEL', KEYS[3])
return 1
"""

# KEYS: fence, room, games. ARGV: token, n, game json, now. Games are numbered 1, 2, ...
START_GAME = FENCE + """
if redis.call('HLEN', KEYS[3]) ~= tonumber(ARGV[2]) - 1 then
  return redis.error_reply('GAME_EXISTS')
end
redis.call('HSET', KEYS[3], ARGV[2], ARGV[3])
redis.call('HSET', KEYS[2], 'status', 'playing', 'updated', ARGV[4])
return 1
"""

# KEYS: fence, log. ARGV: token, seq, action json. Append-only: seq must be the next index.
APPEND = FENCE + """
local len = redis.call('LLEN', KEYS[2])
if len ~= tonumber(ARGV[2]) then return redis.error_reply('SEQ ' .. len) end
redis.call('RPUSH', KEYS[2], ARGV[3])
return len + 1
"""

# KEYS: fence, room, ended. ARGV: token, n, {ended_at, result} json, now.
END_GAME = FENCE + """
redis.call('HSET', KEYS[3], ARGV[2], ARGV[3])
redis.call('HSET', KEYS[2], 'status', 'over', 'updated', ARGV[4])
return 1
"""

# KEYS: fence, room, live-rooms index, claim, then every other key of the room (expired
# with it). ARGV: token, now, code, ttl_s. The room is closed for good and forgotten later.
CLOSE = FENCE + """
redis.call('HSET', KEYS[2], 'status', 'closed', 'updated', ARGV[2])
redis.call('ZREM', KEYS[3], ARGV[3])
redis.call('DEL', KEYS[4])
for i = 1, #KEYS do
  if i ~= 3 then redis.call('EXPIRE', KEYS[i], ARGV[4]) end
end
return 1
"""
