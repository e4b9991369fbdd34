"""Issue 31, section 2: one phone, offline, on a phone.

- The static build (scripts/offline_static.py) served by a plain static file server
  (python -m http.server on 127.0.0.1: a secure context as localhost), with no Sussurro
  server anywhere: the page becomes ready for offline use, is installable (the web app
  manifest: name, icons, standalone display, start URL; Chromium's own installability
  check), and plays a whole game after the network is cut (the file server stopped,
  the browser closed and opened again offline).
- Opened where offline use is impossible (a LAN-like name over plain http: not a secure
  context) the page says so in the player's language and what to do instead, and the
  game still plays online.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import urllib.request

import pytest

from tests.browser.harness import LAN_NAME, i18n
from tests.browser.onephone import OFFLINE_BUILD, launch, play_to_end, setup_game, wait_playable
from tests.support.server_proc import ROOT, free_port

pytestmark = [pytest.mark.slow, pytest.mark.browser]

NAMES = ["Ada", "Bruno", "Carla", "Dario"]


def offline_static():
    spec = importlib.util.spec_from_file_location("offline_static",
                                                  ROOT / "scripts" / "offline_static.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    if not (OFFLINE_BUILD / "manifest.json").is_file():
        pytest.fail("offline-build/ is missing: ./scripts/setup.sh builds it (needs the npm registry once)")
    out = tmp_path_factory.mktemp("static") / "site"
    offline_static().build_static(out)
    return out


class StaticHost:
    """`python -m http.server` on 127.0.0.1 serving `folder`: any static host."""

    def __init__(self, folder, port: int | None = None) -> None:
        self.folder, self.port, self.proc = folder, port or free_port(), None

    def start(self) -> StaticHost:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "http.server", str(self.port), "--bind", "127.0.0.1",
             "--directory", str(self.folder)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(100):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{self.port}/index.html", timeout=1)
                return self
            except OSError:
                if self.proc.poll() is not None:
                    raise RuntimeError("the static file server did not start") from None
                subprocess.run(["sleep", "0.1"])
        raise RuntimeError("the static file server did not answer")

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(10)
            self.proc = None


def test_the_static_build_installs_and_plays_a_whole_game_with_the_network_cut(pw, tmp_path,
                                                                               site):
    host = StaticHost(site).start()
    url = f"http://127.0.0.1:{host.port}/offline/"
    profile = tmp_path / "profile"
    try:
        ctx, page, errors = launch(pw, profile)
        # The site's root opens the page.
        page.goto(f"http://127.0.0.1:{host.port}/")
        page.wait_for_url(url)
        wait_playable(page)
        page.wait_for_selector("#offline-status[data-ready='yes']", timeout=120000)
        # The web app manifest a phone installs the page with.
        manifest = json.loads(urllib.request.urlopen(
            f"http://127.0.0.1:{host.port}/offline/app.webmanifest", timeout=5).read())
        assert manifest["display"] == "standalone" and manifest["start_url"] == "/offline/"
        assert manifest["name"].startswith("Sussurro") and manifest["short_name"] == "Sussurro"
        assert {i["sizes"] for i in manifest["icons"]} == {"192x192", "512x512"}
        cdp = ctx.new_cdp_session(page)
        got = cdp.send("Page.getAppManifest")
        assert got["url"].endswith("/offline/app.webmanifest") and not got["errors"], got
        assert cdp.send("Page.getInstallabilityErrors")["installabilityErrors"] == []
        ctx.close()
    finally:
        host.stop()
    # The network is gone: no file server, the browser opened again and offline too.
    ctx, page, errors = launch(pw, profile)
    ctx.set_offline(True)
    try:
        page.goto(url)
        wait_playable(page)
        assert page.get_attribute("#offline-status", "data-ready") == "yes"
        setup_game(page, NAMES, "intruso")
        steps = play_to_end(page)
        assert steps[-1] == "end" and "vote" in steps
        assert page.get_attribute("#outcome", "data-outcome") in (
            "civili", "infiltrati", "fantasma", "buffone")
        assert not errors, errors
    finally:
        ctx.close()


def test_on_a_plain_http_lan_address_the_page_says_offline_is_impossible(pw, tmp_path, site):
    """A LAN-like name (mapped to 127.0.0.1) over plain http: not a secure context, so no
    service worker. The player is told at once, in French here, and still plays online."""
    host = StaticHost(site).start()
    fr = i18n("fr")
    try:
        profile = tmp_path / "profile"
        profile.mkdir()
        ctx = pw.chromium.launch_persistent_context(
            user_data_dir=str(profile), executable_path="/usr/bin/chromium", headless=True,
            args=[f"--host-resolver-rules=MAP {LAN_NAME} 127.0.0.1"], locale="fr-FR",
            viewport={"width": 390, "height": 844})
        page = ctx.pages[0] if ctx.pages else ctx.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"http://{LAN_NAME}:{host.port}/offline/")
        assert page.evaluate("window.isSecureContext") is False
        # Said before the game core has even loaded (it takes seconds more).
        status = page.wait_for_selector("#offline-status[data-impossible='insecure']",
                                        timeout=5000)
        assert status.text_content() == fr["reach.offline_insecure"]
        wait_playable(page)
        assert page.text_content("#offline-status") == fr["reach.offline_insecure"]
        setup_game(page, NAMES, "intruso")
        assert play_to_end(page)[-1] == "end"
        assert not errors, errors
        ctx.close()
    finally:
        host.stop()


def test_behind_an_untrusted_certificate_the_page_says_offline_is_impossible(pw, tmp_path):
    """The LAN server's self-made certificate, gone through as a phone does (the warning
    accepted): the browser refuses the service worker; the page says why, in Italian
    here, and the game core still starts online."""
    from tests.support.server_proc import ServerProc

    it = i18n("it")
    with ServerProc(tmp_path / "s.db", args=["--lan"]) as srv:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=[
            f"--host-resolver-rules=MAP {LAN_NAME} 127.0.0.1"])
        try:
            # ignore_https_errors: this page goes on past the certificate, like a phone
            # after the warning, while the browser still does not trust it.
            ctx = browser.new_context(ignore_https_errors=True, locale="it-IT")
            page = ctx.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(f"https://{LAN_NAME}:{srv.port}/offline/")
            status = page.wait_for_selector(
                "#offline-status[data-impossible='certificate']", timeout=5000)
            assert status.text_content() == it["reach.offline_certificate"]
            wait_playable(page)
            assert page.evaluate("window.__onephone.screen") == "setup"
            assert not errors, errors
        finally:
            browser.close()
