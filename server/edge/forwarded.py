"""Which client a request comes from, when a reverse proxy may stand in front.

A proxy (Caddy, nginx) connects to the server itself and says who its client
was in `X-Forwarded-For` (and the scheme it was reached by in
`X-Forwarded-Proto`). Anyone can send those headers, so they are believed only
from the addresses in the `trusted_proxies` setting. By default nothing is
trusted, not even 127.0.0.1: otherwise a local client could name any address
and reset its own throttles. docs/deploy.md explains the setting.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def _address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """An IP address from a header or socket value ("[::1]" and IPv4-mapped IPv6 included)."""
    text = text.strip()
    if text.startswith("[") and "]" in text:  # "[2001:db8::1]:443" in some headers
        text = text[1:text.index("]")]
    try:
        ip = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


@dataclass(frozen=True)
class TrustedProxies:
    """The proxy addresses whose forwarded headers are believed (empty: none)."""

    networks: tuple[Network, ...] = ()

    @classmethod
    def parse(cls, spec: str | Iterable[str]) -> TrustedProxies:
        """From "10.0.0.2, 192.168.0.0/24, ::1" (addresses or CIDRs); ValueError if malformed."""
        items = spec.split(",") if isinstance(spec, str) else list(spec)
        nets = []
        for item in items:
            item = item.strip()
            if item:
                try:
                    nets.append(ipaddress.ip_network(item, strict=False))
                except ValueError as exc:
                    raise ValueError(f"trusted_proxies: {item!r} is not an address or CIDR") from exc
        return cls(tuple(nets))

    def trusts(self, host: str | None) -> bool:
        """True when `host` (a peer address) is one of the configured proxies."""
        ip = _address(host or "")
        return ip is not None and any(ip in net for net in self.networks)

    def client(self, peer: str | None, headers: Mapping[str, str]) -> str:
        """The client's address: the peer's own, unless the peer is a trusted proxy.

        From a trusted proxy, `X-Forwarded-For` is read right to left (each proxy
        appends the address it was reached from) and the first address that is not
        itself a trusted proxy is the client. A value that is not an address stops
        the walk at the last trusted hop: nothing left of it can be believed.
        """
        peer = peer or "?"
        if not self.trusts(peer):
            return peer
        hops = [h for part in headers.get("x-forwarded-for", "").split(",") if (h := part.strip())]
        found = peer
        for hop in reversed(hops):
            ip = _address(hop)
            if ip is None:
                return found
            found = str(ip)
            if not any(ip in net for net in self.networks):
                return found
        return found

    def scheme(self, peer: str | None, headers: Mapping[str, str], default: str) -> str:
        """"http" or "https" as the client used it: `X-Forwarded-Proto` from a trusted
        proxy, else `default` (the scheme of the server's own socket)."""
        if not self.trusts(peer):
            return default
        value = headers.get("x-forwarded-proto", "").split(",")[-1].strip().lower()
        return {"http": "http", "ws": "http", "https": "https", "wss": "https"}.get(value, default)
