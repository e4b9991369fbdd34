"""Issue 8, kicks: in the host's lobby a kicked name shows under "removed", the name cannot
join again, and the host's "let back in" button lifts the ban."""

from __future__ import annotations

import httpx
import pytest

from tests.browser.harness import create_room, i18n, launch_player, wait_until

IT = i18n("it")

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_the_host_sees_kicked_names_and_lets_them_back_in(server, pw, tmp_path):
    ada = launch_player(pw, tmp_path, "Ada", 520.0)
    try:
        code = create_room(server, ada)
        ada.page.click("#mic-skip")
        join = server.url(f"/api/rooms/{code}/join")
        bob = httpx.post(join, json={"name": "Bob"}).json()["player"]
        wait_until(lambda: ada.page.locator(".player-row").count() == 2, what="Bob seated")

        ada.page.once("dialog", lambda d: d.accept())
        ada.page.click(f'.player-row[data-pid="{bob}"] .iconbtn.danger')
        ada.page.wait_for_selector("#banned")
        assert ada.page.inner_text("#banned h3") == IT["lobby.banned_title"]
        assert ada.page.inner_text(".banned-row .pname") == "Bob"
        r = httpx.post(join, json={"name": "bob"})
        assert r.status_code == 403 and r.json()["code"] == "name_banned"

        ada.page.click('.unban-btn[data-name="Bob"]')
        wait_until(lambda: ada.page.locator("#banned").count() == 0, what="ban lifted")
        assert httpx.post(join, json={"name": "Bob"}).status_code == 200
        assert not ada.errors and ada.csp_violations() == []
    finally:
        ada.context.close()
