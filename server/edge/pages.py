"""The web client's pages: home, a room's page and its TV page (one index.html that reads
its path), the TV page's QR code, the one-phone page's files and the static files.

With https on, a page asked for over plain http from another device is sent to https
(browsers give no microphone to plain http but on the machine itself).
"""

from __future__ import annotations

import ipaddress
import os
from typing import TYPE_CHECKING

from fastapi import FastAPI, Request
from fastapi.responses import FileResponse, HTMLResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles

from server.edge.langs import Languages, add_lang_routes
from server.edge.offline import mount_offline
from server.edge.qr import room_qr_reply
from server.reach.https import https_enabled

if TYPE_CHECKING:
    from server.edge.context import Edge

PLACEHOLDER = """<!doctype html><meta charset="utf-8"><title>Sussurro</title>
<h1>Sussurro</h1><p>The web client is not installed yet.</p>"""


def _loopback_host(request: Request) -> bool:
    """True when the page was asked for by a loopback name (localhost, 127.x, [::1]):
    a secure context even over plain http, so the machine itself needs no https."""
    host = (request.url.hostname or "").strip("[]").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def add_page_routes(app: FastAPI, edge: Edge) -> None:
    """Add /, /r/{code}, /r/{code}/tv and /api/rooms/{code}/tv-qr.svg."""
    settings = edge.settings
    index = os.path.join(settings.web_dir, "index.html")
    guide = os.path.join(settings.web_dir, "guide.html")
    https_on = https_enabled(settings)
    # --lan without a real certificate: phones meet a warning about the self-made one.
    self_made = settings.lan and not settings.certfile

    def client_page(request: Request) -> Response:
        if https_on and edge.scheme(request) == "http" and not _loopback_host(request):
            # No microphone over plain http on another device: send the player to https
            # (after the page that explains the certificate warning, for a self-made one).
            if self_made and os.path.isfile(guide):
                return FileResponse(guide, media_type="text/html",
                                    headers={"Cache-Control": "no-cache"})
            return RedirectResponse(str(request.url.replace(scheme="https")), status_code=308)
        if os.path.isfile(index):
            return FileResponse(index, media_type="text/html",
                                headers={"Cache-Control": "no-cache"})
        return HTMLResponse(PLACEHOLDER)

    @app.get("/")
    async def home(request: Request):
        return client_page(request)

    @app.get("/r/{code}")
    async def room_page(code: str, request: Request):
        return client_page(request)

    @app.get("/r/{code}/tv")
    async def tv_page(code: str, request: Request):
        # The shared screen: the same page, which reads /tv and asks for a spectator pass.
        return client_page(request)

    @app.get("/api/rooms/{code}/tv-qr.svg")
    async def tv_qr(code: str, request: Request):
        return await room_qr_reply(edge, request, code, "tv-qr.svg", "/tv")


def mount_files(app: FastAPI, edge: Edge, langs: Languages) -> None:
    """Mount the languages (/i18n/), the one-phone page (the core in the browser, offline:
    web/offline/, offline-build/) and web/ under /static."""
    app.state.langs = langs
    add_lang_routes(app, langs)
    mount_offline(app, edge.settings, langs)
    if os.path.isdir(edge.settings.web_dir):
        app.mount("/static", StaticFiles(directory=edge.settings.web_dir), name="static")
