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


def test_issue29_6_the_host_sees_the_screens_and_removes_one(server, pw, tmp_path):
    """Issue 29 item 6: the host's lobby lists every spectator pass (watched or not) with a
    remove button; removing the TV's pass closes that screen and frees its place, and a
    kicked player's browser can no longer open the shared screen (item 7)."""
    ada = launch_player(pw, tmp_path, "Ada", 520.0)
    tv = launch_player(pw, tmp_path, "tv", 0, mic="missing")
    try:
        code = create_room(server, ada)
        ada.page.click("#mic-skip")
        tv.page.goto(server.url(f"/r/{code}/tv"))
        wait_until(lambda: tv.state("s.spectator && s.room"), what="the TV's pass")
        sid = tv.state("s.spectator")
        grabbed = httpx.post(server.url(f"/api/rooms/{code}/watch")).json()["spectator"]
        ada.page.wait_for_selector(f'.pass-row[data-sid="{grabbed}"]')
        assert ada.page.inner_text("#tv-passes h3") == IT["tv.passes"]
        wait_until(lambda: IT["tv.pass_online"] in ada.page.inner_text(
            f'.pass-row[data-sid="{sid}"]'), what="the TV shown as watching")
        assert IT["tv.pass_offline"] in ada.page.inner_text(f'.pass-row[data-sid="{grabbed}"]')

        # The host removes the grabbed pass, then the TV's: that screen is closed.
        ada.page.click(f'.pass-remove[data-sid="{grabbed}"]')
        wait_until(lambda: ada.page.locator(f'.pass-row[data-sid="{grabbed}"]').count() == 0,
                   what="the grabbed pass removed")
        ada.page.click(f'.pass-remove[data-sid="{sid}"]')
        wait_until(lambda: tv.state("s.spectator") is None, what="the TV closed")
        assert tv.state("s.lastError && s.lastError.code") == "kicked"
        wait_until(lambda: ada.page.locator("#tv-passes").count() == 0, what="no pass left")
        assert not ada.errors and ada.csp_violations() == []
    finally:
        ada.context.close()
        tv.context.close()
