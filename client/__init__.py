"""The client side: a user of the server, not a part of it.

Owns the protocol client (`protocol_client`: HTTP in `http_api` and the
WebSocket, as a browser page speaks them; what it received in `received`), the
random player (`autoplay`), the bots' aiortc peer (`rtc_peer`) and the bot
command (`bot`). Used by bench/ and tests/. It may import `server.media` (the same
Opus, RTCP pacing and peer set-up as the server), `server.wire` and
`server.config`; the server never imports it.
"""
