"""Which remote ICE candidates the server may send connectivity checks (STUN) to.

ICE lets a client name the addresses and ports the server checks. Unless the
server allows them (`guard_remote_candidates(allow_local=True)`; the tests
do, their peers are on loopback), no checks go to loopback or link-local
addresses, and never to unspecified, multicast or reserved ones: a candidate
naming one is ignored, whether written in the offer or resolved from an mDNS
name. (The server's other own addresses stay allowed: a browser on the
server's machine offers them, and the server answers from them anyway.)

Only aioice is imported here, so the guard is installed at start-up without
loading the rest of the voice stack. docs/protocol.md, "Voice", has the rule.
"""

from __future__ import annotations

import ipaddress

import aioice.ice

refused_candidates = [0]  # remote candidates ignored by the guard, in this process


def candidate_allowed(host: str, allow_local: bool) -> bool:
    """May the server send connectivity checks to remote address `host` (an IP)?

    Never to unspecified, multicast or reserved addresses; to loopback and
    link-local addresses only with `allow_local`. Anything that is not an IP
    address is refused (aioice resolves mDNS names before asking).
    """
    try:
        ip = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return False
    if ip.version == 6 and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if ip.is_loopback or ip.is_link_local:
        return allow_local
    return not (ip.is_unspecified or ip.is_multicast or ip.is_reserved)


def guard_remote_candidates(allow_local: bool) -> None:
    """Make every ICE connection of this process ignore remote candidates that
    `candidate_allowed` refuses (and count them in `refused_candidates`).

    aioice checks each remote candidate, literal or resolved from an mDNS name,
    with its module-level `validate_remote_candidate` before pairing it: that is
    the one place every address passes, so it is wrapped once, at start-up.
    """
    original = getattr(aioice.ice.validate_remote_candidate, "__wrapped__",
                       aioice.ice.validate_remote_candidate)

    def validate(candidate, host: str) -> str:
        address = original(candidate, host)
        if not candidate_allowed(address, allow_local):
            refused_candidates[0] += 1
            raise ValueError(f"address {address} not allowed by the server")
        return address

    validate.__wrapped__ = original  # type: ignore[attr-defined]
    aioice.ice.validate_remote_candidate = validate
