"""Issue 38 item 1, on the one-phone page: the throw-away language of
tests/game/test_data_language.py (with the marked UI strings of
test_data_language_room.py), in a temporary folder, reaches the page's core in Pyodide
the way an operator's would: SUSSURRO_LANGS_DIR set for the offline build
(scripts/offline_assets.py packs it into core.zip) and for the server (its strings in
/i18n/). No code changes:

- the page shows its strings once picked in the top bar;
- a whole Intruso game and a whole Impostore (Classica) game are played in it to the end
  screen, dealt its own words (the page's record and its end screen), and each is
  replayed by CPython's core to the same bytes;
- the archive holds each extra language's data, with a lemma dictionary when it names one
  simplemma has (and none, the build going on, when it names one simplemma has not).

The build here writes to a temporary offline folder whose Pyodide files are links to
offline-build/'s (nothing fetched) and whose lemma cache is offline-build/'s.
"""

from __future__ import annotations

import importlib.util
import json
import os
import zipfile
from pathlib import Path

import pytest

from game import languages
from tests.browser.onephone import (
    build_offline,
    launch,
    play_to_end,
    replay_bytes,
    setup_game,
    wait_js,
    wait_playable,
)
from tests.browser.test_data_language_room import MARK, data, write_zz
from tests.browser.test_offline import built  # noqa: F401 (the fixture)
from tests.support.server_proc import ServerProc

pytestmark = [pytest.mark.slow, pytest.mark.browser, pytest.mark.timeout(480)]

ROOT = Path(__file__).resolve().parents[2]
NAMES = ["Ada", "Bruno", "Carla", "Dario", "Elena", "Fabio"]


@pytest.fixture(scope="module")
def zz_langs(tmp_path_factory):
    base = tmp_path_factory.mktemp("langs")
    write_zz(base)
    return base


@pytest.fixture(scope="module")
def phone(pw, tmp_path_factory, built, zz_langs):  # noqa: F811
    tmp = tmp_path_factory.mktemp("opzz")
    manifest = build_offline(tmp / "offline", {"SUSSURRO_LANGS_DIR": str(zz_langs)})
    assert manifest["core"]["extra_langs"] == ["zz"], manifest["core"]
    env = {"SUSSURRO_LANGS_DIR": str(zz_langs), "SUSSURRO_OFFLINE_DIR": str(tmp / "offline")}
    with ServerProc(tmp / "s.db", env=env) as srv:
        ctx, page, errors = launch(pw, tmp / "profile", locale="en-GB")
        try:
            page.goto(srv.url("/offline/"))
            wait_playable(page)
            yield page, errors
        finally:
            ctx.close()


@pytest.fixture
def replay_zz(zz_langs):
    """CPython's core with the same folder added (for the replay), removed afterwards."""
    languages.add_dir(zz_langs)
    yield
    languages.remove_dir(zz_langs)


def to_setup(page) -> None:
    if page.locator("#change-setup").count():
        page.click("#change-setup")
    page.wait_for_selector("#start")


def play_in_zz(page, preset: str) -> dict:
    """A whole game of `preset` with the words of zz, to the end screen; its record."""
    to_setup(page)
    setup_game(page, NAMES, preset, {"opt-lang": "zz"})
    steps = play_to_end(page)
    assert {"card", "vote"} <= set(steps), steps
    record = page.evaluate("window.__onephone.record()")
    assert record["preset"] == preset and record["options"]["lang"] == "zz", record["options"]
    # The page's game is the one CPython's core plays from the same record.
    browser_bytes = page.evaluate("window.__onephone.stateBytes()").encode("utf-8")
    assert replay_bytes(record) == browser_bytes
    assert json.loads(browser_bytes)["phase"] == "over"
    assert MARK in page.inner_text("#end")
    return record


def end_words(page) -> list[str]:
    return page.eval_on_selector_all("#end-words strong", "els => els.map((e) => e.textContent)")


def test_the_page_picks_its_strings_and_offers_its_words(phone):
    page, errors = phone
    page.select_option("#topbar select", "zz")
    wait_js(page, "document.documentElement.lang === 'zz'")
    assert MARK in page.inner_text("#app")
    page.select_option("#opt-preset", "intruso")
    codes = page.eval_on_selector_all("#opt-lang option", "os => os.map((o) => o.value)")
    assert codes[-1] == "zz", codes
    assert not errors, errors


def test_a_whole_intruso_game_in_it(phone, replay_zz):
    page, errors = phone
    record = play_in_zz(page, "intruso")
    pair = set(record["words"][:2])
    assert any(pair == {a, b} for a, b, _ in data.PAIRS), record["words"]
    assert set(end_words(page)) == pair
    assert not errors, errors


def test_a_whole_impostore_game_in_it(phone, replay_zz):
    page, errors = phone
    record = play_in_zz(page, "classica")
    zz_words = {w["word"] for w in data.IMPOSTORE}
    assert record["words"]["category"] == "stuff"
    assert {w["word"] for w in record["words"]["words"]} <= zz_words, record["words"]
    shown = end_words(page)
    assert len(shown) == 1 and shown[0] in zz_words, shown
    assert not errors, errors


def test_the_archive_holds_each_extra_language_with_its_lemmas(tmp_path, monkeypatch):
    base = tmp_path / "langs"
    write_zz(base)
    family = data.LANGUAGE["family"]
    data.write_language(base, dict(data.LANGUAGE, code="zy", order=98,
                                   family=dict(family, lemmas="it")))
    data.write_language(base, dict(data.LANGUAGE, code="zx", order=97,
                                   family=dict(family, lemmas="qq")))
    spec = importlib.util.spec_from_file_location("offline_assets",
                                                  ROOT / "scripts" / "offline_assets.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    monkeypatch.setenv("SUSSURRO_LANGS_DIR", os.pathsep.join(["", str(base)]))
    report = script.pack_core(tmp_path / "core.zip")
    assert report["extra_langs"] == ["zx", "zy", "zz"]
    names = set(zipfile.ZipFile(tmp_path / "core.zip").namelist())
    for code in ("zx", "zy", "zz"):
        assert {f"game/langs/{code}/{f}.json" for f in ("language", "pairs", "impostore")} <= names
    assert not any("/ui/" in n for n in names)  # the page's strings come from /i18n/
    lemma_packs = {n for n in names if n.startswith("game/lemma_data/")}
    assert "game/lemma_data/zy.txt.z" in lemma_packs
    assert not {"game/lemma_data/zx.txt.z", "game/lemma_data/zz.txt.z"} & lemma_packs
    # The core's search path is left as it was.
    assert not {"zx", "zy", "zz"} & set(languages.codes())
