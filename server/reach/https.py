"""How `sussurro serve` listens: plain HTTP (the default), or HTTP and HTTPS on one port.

HTTPS is on with `--lan` (a certificate made by this machine, server/reach/tls.py)
or with `--certfile/--keyfile` (a real one). `prepare_https` settles the
certificate, the address players are given and the settings the app then
runs with; server/main.py binds the sockets and prints the banner.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import os
import ssl
from dataclasses import dataclass

from server.config import Settings
from server.reach.lan import LanIdentity, lan_identity, url_host
from server.reach.tls import ensure_lan_certificate, server_context

# The host --lan binds when none is given: every interface, IPv6 and IPv4, loopback included.
EVERY_INTERFACE = "::"
WILDCARDS = ("", "::", "0.0.0.0")


@dataclass(frozen=True)
class HttpsPlan:
    """What `serve` needs to run with HTTPS."""

    settings: Settings          # with public_url filled in for --lan
    context: ssl.SSLContext
    certfile: str
    created: bool               # the certificate was (re)made just now
    join_url: str               # what players open (https)
    guide_url: str              # the same address over http: the first-visit page
    local_url: str              # for the machine itself (localhost is a secure context)
    # --lan on every interface, but the machine has no LAN address: no join address to give.
    no_lan: bool = False


def https_enabled(settings: Settings) -> bool:
    """True when the server speaks HTTPS (beside HTTP, on the same port)."""
    return settings.lan or bool(settings.certfile)


def tls_folder(settings: Settings) -> str:
    """Where the self-made certificate is kept: `tls_dir`, else beside the database."""
    if settings.tls_dir:
        return settings.tls_dir
    return os.path.join(os.path.dirname(os.path.abspath(settings.db)), "sussurro-tls")


def _main_host(settings: Settings, identity: LanIdentity | None) -> str:
    """The host players are given: the bound address when it is a specific one,
    else the machine's main LAN address."""
    if settings.host not in WILDCARDS:
        return settings.host
    return identity.main_ip if identity else "127.0.0.1"


def _loopback_host(settings: Settings) -> str:
    if settings.host in WILDCARDS:
        return "localhost"
    try:
        return "localhost" if ipaddress.ip_address(settings.host).is_loopback else settings.host
    except ValueError:
        return settings.host


def prepare_https(settings: Settings, port: int) -> HttpsPlan:
    """Settle the certificate (made or renewed for --lan without --certfile) and the URLs.

    `port` is the port actually bound (settings.port may be 0 in tests).
    Raises ValueError when only one of certfile and keyfile is given.
    """
    if bool(settings.certfile) != bool(settings.keyfile):
        raise ValueError("--certfile and --keyfile go together")
    identity = lan_identity() if settings.lan else None
    if settings.certfile:
        certfile, keyfile, created = settings.certfile, settings.keyfile, False
        for path in (certfile, keyfile):
            if not os.path.isfile(path):
                raise ValueError(f"no such certificate or key file: {path}")
    else:
        files = ensure_lan_certificate(tls_folder(settings), identity or lan_identity())
        certfile, keyfile, created = files.certfile, files.keyfile, files.created
    context = server_context(certfile, keyfile)
    host = url_host(_main_host(settings, identity))
    join = f"https://{host}:{port}"
    no_lan = bool(settings.lan and not settings.public_url and identity is not None
                  and settings.host in WILDCARDS and not identity.on_a_network)
    if no_lan:
        # A loopback join address would reach no phone: the pages and the banner say why.
        settings = dataclasses.replace(settings, no_lan_address=True)
    elif settings.lan and not settings.public_url:
        settings = dataclasses.replace(settings, public_url=join)
    else:
        join = settings.public_url.rstrip("/") or join
    return HttpsPlan(
        settings=settings, context=context, certfile=certfile, created=created,
        join_url=join, guide_url=f"http://{host}:{port}",
        local_url=f"http://{url_host(_loopback_host(settings))}:{port}", no_lan=no_lan,
    )
