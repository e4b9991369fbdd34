"""Short-lived TURN credentials for each seat (the TURN REST convention).

A TURN server (coturn with `use-auth-secret`) and this server share one
secret. Each seat gets, in its `welcome` (and in `ice_servers` when its client
asks with `ice`), a username "EXPIRY:ID" (EXPIRY in Unix seconds, ID an opaque
id of the seat: `turn_user`) and the credential base64(HMAC-SHA1(secret,
username)). The TURN server recomputes the HMAC and refuses the username once
EXPIRY has passed, so nothing per seat is stored anywhere. Such credentials
cannot be revoked (after a kick, say): they live `turn_ttl` (minutes) and the
client asks for fresh ones while its seat lasts. Spectator passes get none
unless `turn_spectators` is on. docs/deploy.md shows the coturn side.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from typing import Any


def turn_credential(secret: str, username: str) -> str:
    """base64(HMAC-SHA1(secret, username)), what coturn's `use-auth-secret` expects."""
    digest = hmac.new(secret.encode(), username.encode(), hashlib.sha1).digest()
    return base64.b64encode(digest).decode("ascii")


def turn_user(secret: str, room: str, token_hash: str) -> str:
    """The opaque id of one seat (or pass) in its TURN username: derived from the room
    and the seat's token hash, keyed by the secret, so it names no player, differs for
    two "Ada"s or two p1s of two rooms, and nobody without the secret can compute it.
    The TURN server's logs can still tell one seat's allocations from another's."""
    msg = f"sussurro-turn\0{room}\0{token_hash}".encode()
    return hmac.new(secret.encode(), msg, hashlib.sha256).hexdigest()[:24]


def turn_username(player: str, now: float, ttl: float) -> str:
    """"EXPIRY:PLAYER": valid until `now + ttl` (whole seconds, rounded down)."""
    return f"{int(now + ttl)}:{player}"


def turn_urls(spec: str) -> list[str]:
    """The TURN URLs of the setting: comma-separated ("turn:host:3478,turns:host:5349")."""
    return [u.strip() for u in spec.split(",") if u.strip()]


def client_ice_servers(settings: Any, player: str, now: float) -> list[dict[str, Any]]:
    """The ICE servers one player is told in its `welcome`: the configured
    `ice_servers`, plus the `turn_urls` with fresh credentials for this player
    when a `turn_secret` is set (valid `turn_ttl` seconds).

    `now` is Unix time: the TURN server compares EXPIRY with its own clock.
    """
    out = [dict(s) for s in settings.ice_servers]
    listed = turn_urls(settings.turn_urls)
    if listed and settings.turn_secret:
        username = turn_username(player, now, settings.turn_ttl)
        out.append({"urls": listed, "username": username,
                    "credential": turn_credential(settings.turn_secret, username)})
    return out


def seat_ice_servers(settings: Any, room: str, token_hash: str, now: float,
                     spectator: bool = False) -> list[dict[str, Any]]:
    """What one socket is told (welcome, `ice_servers`): the configured servers, plus TURN
    credentials bound to its seat (room and token) unless it is a spectator pass and
    `turn_spectators` is off, or the token is unknown."""
    if (spectator and not settings.turn_spectators) or not token_hash or not settings.turn_secret:
        return [dict(s) for s in settings.ice_servers]
    return client_ice_servers(settings, turn_user(settings.turn_secret, room, token_hash), now)
