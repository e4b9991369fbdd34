"""Issue 38: the languages are data. The server reads game/langs/*/ (and the extra folders
its settings name) at start-up and serves the manifest (/i18n/langs.json) and each
language's strings merged (/i18n/<code>.json), at the same URLs for the one-phone page's
cache. A throw-away language added from data alone is offered; one whose ui/ is
incomplete is not offered as a UI language, and start-up logs what it lacks."""

from __future__ import annotations

import json
import logging
import shutil
from pathlib import Path

import httpx
import pytest

from game import languages
from server.config import Settings, load_settings
from server.edge.app import create_app
from server.edge.langs import BUILTIN, load_languages
from tests.browser.harness import i18n
from tests.browser.onephone import OFFLINE_BUILD

FIELDS = ("code", "name", "speech", "order", "plural")


def throwaway(root: Path, code: str = "zz", drop: str | None = None, add: str | None = None) -> Path:
    """A language folder made of data alone: Italian's language.json under another code and
    name (the game core's fields too, whatever they are), Italian's strings marked, in
    every area; `drop` leaves one key of ui/app.json out, `add` puts one in that Italian
    has not."""
    folder = root / code
    (folder / "ui").mkdir(parents=True)
    meta = json.loads((BUILTIN / "it" / "language.json").read_text(encoding="utf-8"))
    meta.update(code=code, name="Zedese", speech=f"{code}-ZZ", order=9, plural="one_other")
    (folder / "language.json").write_text(json.dumps(meta, ensure_ascii=False), encoding="utf-8")
    for path in sorted((BUILTIN / "it" / "ui").glob("*.json")):
        strings = {k: f"[{code}] {v}" for k, v in json.loads(path.read_text(encoding="utf-8")).items()}
        if path.stem == "app":
            if drop:
                strings.pop(drop)
            if add:
                strings[add] = "?"
        (folder / "ui" / path.name).write_text(json.dumps(strings, ensure_ascii=False), encoding="utf-8")
    return folder


@pytest.fixture
def core_dirs():
    """The extra folders (the test lists them here) that an app in this process handed to
    the game core's loader are taken back after the test: the loader is the process's,
    and other tests must not meet a throw-away language."""
    given: list[Path] = []
    yield given
    for path in given:
        languages.remove_dir(path)


async def _app_get(settings: Settings, *paths: str, headers: dict | None = None) -> list[httpx.Response]:
    app = create_app(settings)
    try:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app),
                                     base_url="http://test") as http:
            return [await http.get(p, headers=headers or {}) for p in paths]
    finally:
        app.state.store.close()


def test_the_manifest_lists_each_language_in_menu_order(shared_server):
    langs = httpx.get(shared_server.url("/i18n/langs.json")).json()
    codes = [lang["code"] for lang in langs]
    assert codes[:3] == ["it", "fr", "en"], codes
    for lang in langs:
        meta = json.loads((BUILTIN / lang["code"] / "language.json").read_text(encoding="utf-8"))
        assert {k: lang[k] for k in FIELDS} == {k: meta[k] for k in FIELDS}
    assert [lang["order"] for lang in langs] == sorted(lang["order"] for lang in langs)
    assert all(lang["ui"] for lang in langs if lang["code"] in ("it", "fr", "en"))


def test_a_languages_strings_are_every_area_merged(shared_server):
    for code in ("it", "fr", "en"):
        r = httpx.get(shared_server.url(f"/i18n/{code}.json"))
        assert r.status_code == 200 and r.headers["content-type"].startswith("application/json")
        assert r.json() == i18n(code)
        assert "tv.join" in r.json() and "lupi.say.night_falls" in r.json()
    # Revalidation: the same strings are not sent again.
    r = httpx.get(shared_server.url("/i18n/fr.json"))
    again = httpx.get(shared_server.url("/i18n/fr.json"), headers={"If-None-Match": r.headers["etag"]})
    assert again.status_code == 304 and not again.content
    assert httpx.get(shared_server.url("/i18n/xx.json")).status_code == 404
    assert httpx.get(shared_server.url("/i18n/..%2Fit%2Flanguage.json")).status_code == 404
    # The old per-file URLs are gone with web/i18n/.
    assert httpx.get(shared_server.url("/static/i18n/it.json")).status_code == 404


def test_the_settings_name_extra_language_folders():
    assert load_settings(environ={"SUSSURRO_LANGS_DIR": "/a:/b"}).langs_dir == "/a:/b"
    assert Settings().langs_dir == ""


async def test_a_throwaway_language_from_data_alone_is_offered(tmp_path, core_dirs):
    throwaway(tmp_path / "more")
    core_dirs.append(tmp_path / "more")
    settings = Settings(db=str(tmp_path / "s.db"), langs_dir=str(tmp_path / "more"),
                        offline_dir=str(OFFLINE_BUILD))
    manifest, strings, offline = await _app_get(settings, "/i18n/langs.json", "/i18n/zz.json",
                                                "/offline/manifest.json")
    zz = next(lang for lang in manifest.json() if lang["code"] == "zz")
    assert zz == {"code": "zz", "name": "Zedese", "speech": "zz-ZZ", "order": 9,
                  "plural": "one_other", "ui": True}
    assert manifest.json()[-1]["code"] == "zz"    # order 9: after the others
    assert strings.json()["tv.join"] == "[zz] " + i18n("it")["tv.join"]
    if offline.status_code == 200:                 # offline-build/ is there: cached for the page
        assert "/i18n/zz.json" in offline.json()["urls"]
    assert "zz" in languages.codes()  # the core got the folder too


async def test_an_incomplete_language_is_reported_and_not_offered(tmp_path, caplog, core_dirs):
    """The choice made for issue 38: a language whose ui/ lacks a key (or has one Italian
    has not) is not offered as a UI language and start-up logs which keys of which area;
    the server starts with the others."""
    throwaway(tmp_path / "more", "zy", drop="app.close")
    throwaway(tmp_path / "more", "zx", add="app.nonsense")
    core_dirs.append(tmp_path / "more")
    settings = Settings(db=str(tmp_path / "s.db"), langs_dir=str(tmp_path / "more"))
    with caplog.at_level(logging.ERROR, logger="server.edge.langs"):
        manifest, zy, zx, it = await _app_get(settings, "/i18n/langs.json", "/i18n/zy.json",
                                              "/i18n/zx.json", "/i18n/it.json")
    by_code = {lang["code"]: lang for lang in manifest.json()}
    assert by_code["zy"]["ui"] is False and by_code["zx"]["ui"] is False
    assert by_code["it"]["ui"] is True and it.status_code == 200
    assert zy.status_code == 404 and zx.status_code == 404
    said = "\n".join(r.getMessage() for r in caplog.records)
    assert "zy" in said and "ui/app.json lacks app.close" in said, said
    assert "zx" in said and "ui/app.json has keys Italian has not: app.nonsense" in said, said


def test_a_language_of_words_only_is_named_but_not_spoken(tmp_path, caplog):
    """A folder with language.json and no ui/ (its words may be played): in the manifest
    for its name, not as a UI language, and no error logged."""
    folder = tmp_path / "zw"
    folder.mkdir()
    (folder / "language.json").write_text(json.dumps(
        {"code": "zw", "name": "Zwedese", "speech": "zw-ZW", "order": 8, "plural": "none"}))
    with caplog.at_level(logging.ERROR, logger="server.edge.langs"):
        langs = load_languages([BUILTIN, tmp_path])
    entry = next(lang for lang in langs.manifest() if lang["code"] == "zw")
    assert entry["ui"] is False and entry["name"] == "Zwedese"
    assert "zw" not in langs.dictionaries and not caplog.records


@pytest.mark.parametrize("bad,why", [
    ({"code": "zv", "name": "V", "speech": "zv-ZV", "order": 7}, "no plural"),
    ({"code": "other", "name": "V", "speech": "zv-ZV", "order": 7, "plural": "none"}, "folder named"),
    ({"code": "zv", "name": "V", "speech": "zv-ZV", "order": 7, "plural": "dual"}, "unknown plural rule"),
])
def test_a_broken_language_json_stops_start_up_with_its_path(tmp_path, bad, why):
    folder = tmp_path / "zv"
    folder.mkdir()
    (folder / "language.json").write_text(json.dumps(bad))
    with pytest.raises(ValueError, match=why) as err:
        load_languages([BUILTIN, tmp_path])
    assert str(folder / "language.json") in str(err.value)


def test_a_language_found_twice_stops_start_up(tmp_path):
    """As the game core's loader: a code in two folders is an error naming both."""
    shutil.copytree(BUILTIN / "en", tmp_path / "en")
    with pytest.raises(ValueError, match="also in") as err:
        load_languages([BUILTIN, tmp_path])
    assert str(tmp_path / "en") in str(err.value)
