"""Issue 31, section 2: the one-phone page installs on a home screen. The server serves
its web app manifest and icons under /offline/ (so the page installs from the server
too, on localhost), and the service worker's list keeps them for offline starts."""

from __future__ import annotations

import struct

import httpx

from tests.browser.onephone import OFFLINE_BUILD


def test_the_web_app_manifest_and_its_icons_are_served_and_cached(shared_server):
    page = httpx.get(shared_server.url("/offline/")).text
    assert '<link rel="manifest" href="/offline/app.webmanifest">' in page
    r = httpx.get(shared_server.url("/offline/app.webmanifest"))
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("application/manifest+json")
    app = r.json()
    assert app["display"] == "standalone" and app["start_url"] == "/offline/"
    assert app["scope"] == "/offline/" and app["short_name"] == "Sussurro"
    for icon in app["icons"]:
        got = httpx.get(shared_server.url(icon["src"]))
        assert got.status_code == 200 and got.headers["content-type"] == "image/png"
        assert got.content[:8] == b"\x89PNG\r\n\x1a\n"
        width, height = struct.unpack(">II", got.content[16:24])
        assert f"{width}x{height}" == icon["sizes"]
    assert httpx.get(shared_server.url("/offline/nope.png")).status_code == 404
    if (OFFLINE_BUILD / "manifest.json").is_file():
        urls = httpx.get(shared_server.url("/offline/manifest.json")).json()["urls"]
        assert {"/offline/app.webmanifest", "/offline/icon-192.png",
                "/offline/icon-512.png"} <= set(urls)
