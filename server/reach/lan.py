"""The machine as phones on the same network see it: its addresses and names.

`sussurro serve --lan` puts these in its certificate (server/reach/tls.py), prints
the join address, and puts the same address in the rooms' QR codes.
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass

import ifaddr

LOOPBACK_NAMES = ("localhost",)
LOOPBACK_IPS = ("127.0.0.1", "::1")


@dataclass(frozen=True)
class LanIdentity:
    """The names and addresses a certificate for this machine must cover."""

    names: tuple[str, ...]
    ips: tuple[str, ...]
    # The address phones are told to open (the one of the default route).
    main_ip: str

    @property
    def on_a_network(self) -> bool:
        """False when the machine has no address another device could reach (no Wi-Fi,
        no cable: lan_identity() then falls back to loopback)."""
        return not ipaddress.ip_address(self.main_ip).is_loopback


def _usable(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """Addresses another device can reach: not loopback, link-local, multicast or unspecified."""
    return not (ip.is_loopback or ip.is_link_local or ip.is_multicast or ip.is_unspecified)


def interface_addresses() -> list[str]:
    """Every usable IPv4 and IPv6 address of this machine's interfaces."""
    out: list[str] = []
    for adapter in ifaddr.get_adapters():
        for a in adapter.ips:
            text = a.ip if isinstance(a.ip, str) else a.ip[0]
            try:
                ip = ipaddress.ip_address(text.split("%")[0])
            except ValueError:
                continue
            if _usable(ip) and str(ip) not in out:
                out.append(str(ip))
    return out


def default_route_ip() -> str | None:
    """The local address of the default route, or None.

    A UDP socket "connected" to an outside address (a documentation address,
    TEST-NET-1) makes the kernel pick the outgoing interface; connect() on UDP
    sends nothing.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("192.0.2.1", 9))
            return s.getsockname()[0]
        except OSError:
            return None


def machine_names() -> list[str]:
    """This machine's host name, its mDNS ".local" form and its FQDN, when they differ."""
    names: list[str] = []
    host = socket.gethostname().strip().lower()
    if host:
        names.append(host)
        if "." not in host:
            names.append(host + ".local")
    try:
        fqdn = socket.getfqdn().strip().lower()
    except OSError:
        fqdn = ""
    if fqdn and fqdn not in names and fqdn != "localhost" and "." in fqdn:
        names.append(fqdn)
    return names


def lan_identity() -> LanIdentity:
    """Names and addresses of this machine, loopback ones included, sorted for comparison."""
    ips = interface_addresses()
    main = default_route_ip()
    if main is None or main not in ips:
        private = [ip for ip in ips if ipaddress.ip_address(ip).version == 4
                   and ipaddress.ip_address(ip).is_private]
        main = (private or [ip for ip in ips if ":" not in ip] or ["127.0.0.1"])[0]
    names = sorted({*LOOPBACK_NAMES, *machine_names()})
    all_ips = sorted({*LOOPBACK_IPS, *ips}, key=lambda ip: (":" in ip, ip))
    return LanIdentity(names=tuple(names), ips=tuple(all_ips), main_ip=main)


def url_host(ip_or_name: str) -> str:
    """A host for a URL: IPv6 addresses go in brackets."""
    return f"[{ip_or_name}]" if ":" in ip_or_name else ip_or_name
