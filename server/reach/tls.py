"""The self-made HTTPS certificate of `sussurro serve --lan`.

Phones give the microphone only to pages in a secure context: https, or
localhost. On a home network there is no public name to get a real
certificate for, so the server makes one itself, once, for every address and
name of the machine (server/reach/lan.py), and keeps it in its data folder. Each
phone accepts it once through the browser's warning (the first-visit page,
web/guide.html, shows how). It is made again only when the machine's
addresses or names change (a new Wi-Fi, a new DHCP lease) or when it nears
its end, so phones are not asked again every evening.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import os
import ssl
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from server.reach.lan import LanIdentity

CERT_NAME = "lan-cert.pem"
KEY_NAME = "lan-key.pem"
# Browsers refuse server certificates valid for more than 398 days.
VALID_DAYS = 397
# Made again this long before it ends.
RENEW_BEFORE = dt.timedelta(days=30)


@dataclass(frozen=True)
class CertFiles:
    """A certificate and its key on disk, and whether they were just made."""

    certfile: str
    keyfile: str
    created: bool = False


def covered(cert: x509.Certificate) -> tuple[set[str], set[str]]:
    """The DNS names and IP addresses a certificate's subjectAltName lists."""
    try:
        san = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except x509.ExtensionNotFound:
        return set(), set()
    names = {n.lower() for n in san.get_values_for_type(x509.DNSName)}
    ips = {str(ip) for ip in san.get_values_for_type(x509.IPAddress)}
    return names, ips


def needs_renewal(cert: x509.Certificate, identity: LanIdentity, now: dt.datetime) -> bool:
    """True when the certificate does not list exactly the machine's names and
    addresses, or ends within RENEW_BEFORE."""
    names, ips = covered(cert)
    if names != {n.lower() for n in identity.names} or ips != set(identity.ips):
        return True
    return cert.not_valid_after_utc - now < RENEW_BEFORE


def make_certificate(identity: LanIdentity, now: dt.datetime) -> tuple[bytes, bytes]:
    """A new self-signed server certificate for `identity` and its key, both PEM."""
    key = ec.generate_private_key(ec.SECP256R1())
    cn = identity.names[0] if identity.names else "sussurro"
    subject = x509.Name([
        x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Sussurro (made by this machine)"),
        x509.NameAttribute(NameOID.COMMON_NAME, cn),
    ])
    alt = [x509.DNSName(n) for n in identity.names]
    alt += [x509.IPAddress(ipaddress.ip_address(ip)) for ip in identity.ips]
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(hours=1))  # a phone whose clock is a bit behind
        .not_valid_after(now + dt.timedelta(days=VALID_DAYS))
        .add_extension(x509.SubjectAlternativeName(alt), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.KeyUsage(
            digital_signature=True, content_commitment=False, key_encipherment=False,
            data_encipherment=False, key_agreement=False, key_cert_sign=False,
            crl_sign=False, encipher_only=False, decipher_only=False), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(key, hashes.SHA256())
    )
    key_pem = key.private_bytes(serialization.Encoding.PEM,
                                serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
    return cert.public_bytes(serialization.Encoding.PEM), key_pem


def ensure_lan_certificate(folder: str | os.PathLike[str], identity: LanIdentity,
                           now: dt.datetime | None = None) -> CertFiles:
    """The certificate in `folder`, made (or made again) when it is missing,
    unreadable, does not match `identity`, or nears its end."""
    now = now or dt.datetime.now(dt.UTC)
    folder = Path(folder)
    cert_path, key_path = folder / CERT_NAME, folder / KEY_NAME
    try:
        cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
        key = serialization.load_pem_private_key(key_path.read_bytes(), password=None)
        # A run stopped between writing the two files leaves a pair that does not match.
        key_ok = key.public_key() == cert.public_key()
    except (OSError, ValueError, TypeError):
        cert, key_ok = None, False
    if cert is not None and key_ok and not needs_renewal(cert, identity, now):
        return CertFiles(str(cert_path), str(key_path), created=False)
    folder.mkdir(parents=True, exist_ok=True)
    cert_pem, key_pem = make_certificate(identity, now)
    # The key is written readable by its owner only, before any byte goes in.
    tmp_key = key_path.with_suffix(".tmp")
    fd = os.open(tmp_key, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(key_pem)
    os.replace(tmp_key, key_path)
    tmp_cert = cert_path.with_suffix(".tmp")
    tmp_cert.write_bytes(cert_pem)
    os.replace(tmp_cert, cert_path)
    return CertFiles(str(cert_path), str(key_path), created=True)


def server_context(certfile: str, keyfile: str) -> ssl.SSLContext:
    """The TLS context of the server side: HTTP/1.1 only (what the ASGI server speaks)."""
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ctx.load_cert_chain(certfile, keyfile)
    ctx.set_alpn_protocols(["http/1.1"])
    return ctx
