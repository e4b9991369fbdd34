"""The imperative shell: everything that does I/O around the pure `game` core and `audio`.

One package per concern, each opened by a docstring that says what it owns and
what it may import (the contracts in pyproject.toml, checked by the test command):

| package | owns | may import (besides `game`, `audio`, `server.config`, `server.throttle`) |
|---|---|---|
| `server.edge` | the HTTP/WebSocket edge: the app, guards, forwarded headers, offline files, metrics | every other package |
| `server.rooms` | the room registry, the room actor and its parts, seats, spectators, whispers, the voice link | `media`, `storage`, `wire` |
| `server.cluster` | cluster mode: registry, claims, placement, forwarding, workers, its CLI | `storage` |
| `server.media` | WebRTC peers, RTP in and out (the compiled part), SRTP, RTCP pacing, Opus, the voice loop, ICE guard, TURN credentials | nothing |
| `server.storage` | the store seam, SQLite, Redis and its scripts | nothing |
| `server.wire` | what crosses a socket: message schemas, the per-socket outbox, direct frames | nothing |
| `server.reach` | being reached: HTTPS, the sniffing listener, the certificate, LAN addresses, the banner | nothing |

`server.main` assembles them (`sussurro serve`); `server.config` (settings) and
`server.throttle` (token buckets) are leaves that every package may use. The
client side (the protocol client, the bots' aiortc peer, the bot command) is
not the server: it lives in the top-level `client` package, which the server
never imports.
"""
