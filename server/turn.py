"""Short-lived TURN credentials for each player (the TURN REST convention).

A TURN server (coturn with `use-auth-secret`) and this server share one
secret. Each player gets, in its `welcome`, a username "EXPIRY:PLAYER" (EXPIRY
in Unix seconds) and the credential base64(HMAC-SHA1(secret, username)). The
TURN server recomputes the HMAC and refuses the username once EXPIRY has
passed, so nothing per player is stored anywhere and a leaked credential dies
on its own. docs/deploy.md shows the coturn side.
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
