"""Issue 38 item 1, in a room: a throw-away language made of data alone is played on a
real server. The language of tests/game/test_data_language.py (made-up words, its own
articles and families, one Impostore category) gets UI strings too (Italian's, marked),
all in a temporary folder the server is given with SUSSURRO_LANGS_DIR, no code changed:

- the catalog offers it for both games and the manifest as a UI language, by its name;
- a whole Intruso game and a whole Impostore game are played in it by protocol clients,
  dealt its own words;
- a page picks it in the top bar and reads its strings.

The one-phone page plays the same language: tests/browser/test_data_language_onephone.py.
"""

from __future__ import annotations

import json

import httpx
import pytest

from server.edge.langs import BUILTIN
from tests.browser.harness import launch_player, wait_until
from tests.game import test_data_language as data
from tests.server.roomkit import FAST, close_all, play_all, seated
from tests.support.server_proc import ServerProc

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]

MARK = "⟦zz⟧"


def write_zz(base):
    """`base/zz/`: the data language with UI strings, Italian's each marked with MARK."""
    folder = data.write_language(base)
    (folder / "ui").mkdir()
    for path in sorted((BUILTIN / "it" / "ui").glob("*.json")):
        strings = json.loads(path.read_text(encoding="utf-8"))
        (folder / "ui" / path.name).write_text(json.dumps(
            {k: f"{MARK} {v}" for k, v in strings.items()}, ensure_ascii=False), encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def zz_server(tmp_path_factory):
    base = tmp_path_factory.mktemp("langs")
    write_zz(base)
    with ServerProc(tmp_path_factory.mktemp("srv") / "s.db",
                    env={"SUSSURRO_LANGS_DIR": str(base)}) as srv:
        yield srv


def test_the_catalog_and_the_manifest_offer_it(zz_server):
    catalog = httpx.get(zz_server.url("/api/catalog")).json()
    assert "zz" in catalog["langs"], catalog["langs"]
    langs = httpx.get(zz_server.url("/i18n/langs.json")).json()
    zz = next(lang for lang in langs if lang["code"] == "zz")
    assert zz["ui"] and zz["name"] == data.LANGUAGE["name"] and langs[-1] == zz
    strings = httpx.get(zz_server.url("/i18n/zz.json")).json()
    assert strings["tv.join"].startswith(MARK)


async def test_a_whole_intruso_game_in_a_room(zz_server):
    clients = await seated(zz_server, 5, preset="intruso")
    host = clients[0]
    try:
        mark = host.mark()
        await host.send("settings", options={**FAST, "powers": [], "lang": "zz"})
        await host.wait_for(lambda m: m["type"] in ("room", "error"), since=mark)
        assert not host.errors, host.errors
        assert host.room["settings"]["options"]["lang"] == "zz"
        await host.send("start")
        finals = await play_all(clients, seed=3)
        dealt = set(finals[0]["result"]["words"].values())
        assert any(dealt == {a, b} for a, b, _ in data.PAIRS), dealt
    finally:
        await close_all(clients)


async def test_a_whole_impostore_game_in_a_room(zz_server):
    clients = await seated(zz_server, 5, preset="classica")
    host = clients[0]
    try:
        mark = host.mark()
        await host.send("settings", options={"lang": "zz"})
        await host.wait_for(lambda m: m["type"] in ("room", "error"), since=mark)
        assert not host.errors, host.errors
        await host.send("start")
        finals = await play_all(clients, seed=4)
        result = finals[0]["result"]
        assert result["word"] in {w["word"] for w in data.IMPOSTORE}, result["word"]
    finally:
        await close_all(clients)


def test_a_page_picks_it_and_reads_its_strings(zz_server, pw, tmp_path):
    p = launch_player(pw, tmp_path, "zz-page", 0, mic="missing")
    try:
        p.page.goto(zz_server.url("/"))
        p.page.wait_for_selector("#name")
        codes = p.page.eval_on_selector_all("#topbar select option", "os => os.map((o) => o.value)")
        assert codes[-1] == "zz", codes
        p.page.select_option("#topbar select", "zz")
        wait_until(lambda: p.page.evaluate("document.documentElement.lang") == "zz", what="zz")
        assert MARK in p.page.inner_text("main")
        assert not p.errors, p.errors
    finally:
        p.context.close()
