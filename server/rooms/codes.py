"""Room codes and player tokens: random, hard to guess, tokens stored only hashed."""

from __future__ import annotations

import hashlib
import secrets

# No 0/O, 1/I/L: a code read aloud or off a screen is not misread.
ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 5


def new_room_code() -> str:
    """A fresh 5-character room code from the unambiguous alphabet."""
    return "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))


def normalise_code(code: str) -> str | None:
    """The canonical (upper-case) form of a typed code, or None if it cannot be one."""
    code = code.strip().upper()
    if len(code) != CODE_LENGTH or any(c not in ALPHABET for c in code):
        return None
    return code


def new_token() -> str:
    """A bearer token for one player's seat (shown once, never stored in clear)."""
    return secrets.token_urlsafe(24)


def hash_token(token: str) -> str:
    """The SHA-256 hex digest stored in place of the token."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_seed() -> int:
    """A fresh game seed from the OS's randomness (63 bits, fits SQLite's INTEGER)."""
    return secrets.randbits(63)
