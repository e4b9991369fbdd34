"""What `sussurro serve --lan` prints in the terminal: the join address and its QR code."""

from __future__ import annotations

import io

import segno


def qr_text(url: str) -> str:
    """`url` as a QR code drawn with block characters (two rows per line), for a terminal."""
    out = io.StringIO()
    segno.make(url, error="m").terminal(out=out, compact=True, border=2)
    return out.getvalue()


def lan_banner(join_url: str, guide_url: str, local_url: str, cert_note: str) -> str:
    """The lines printed once the server listens (plain text, English like the CLI)."""
    return "\n".join([
        "",
        "Sussurro is on your network.",
        f"  Players open:      {join_url}",
        qr_text(join_url).rstrip("\n"),
        "  The first time, a phone's browser warns about this computer's own certificate;",
        f"  {guide_url} (plain http) shows how to go through, then sends the player on.",
        f"  On this computer:  {local_url}",
        f"  {cert_note}",
        "",
    ])


def no_lan_banner(local_url: str) -> str:
    """What `serve` prints when the machine has no address a phone could reach."""
    return "\n".join([
        "",
        "Sussurro is running, but this computer is not connected to a network",
        "(no Wi-Fi, no cable), so no phone can reach it yet.",
        "  Connect this computer to the Wi-Fi the phones use, then start Sussurro again:",
        "  the address for the phones and its QR code will be shown here.",
        f"  On this computer:  {local_url}",
        "",
    ])
