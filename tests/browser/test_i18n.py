"""The web client's translations, one folder per language (game/langs/<code>/ui/<area>.json):
every language has Italian's areas and, area by area, exactly Italian's keys (a key missing
or extra fails, naming the area); the placeholders survive; a message for every error code
the server or the game can send; every literal key the code uses exists; each
language.json gives what the client reads of it (menu name, speech locale, plural rule)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from server.edge.langs import PLURAL_FORMS, area_difference, ui_problems
from tests.browser.harness import LANGS_DIR, ui_langs

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "web"
LANGS = ui_langs()
REFERENCE = "it"
FIELDS = {"code": str, "name": str, "speech": str, "order": int, "plural": str}


def area_files(lang: str) -> dict[str, Path]:
    return {p.stem: p for p in sorted((LANGS_DIR / lang / "ui").glob("*.json"))}


def areas() -> list[str]:
    """Italian's areas: what every language must have."""
    return list(area_files(REFERENCE))


def meta(lang: str) -> dict:
    return json.loads((LANGS_DIR / lang / "language.json").read_text(encoding="utf-8"))


def _once(pairs: list[tuple[str, str]]) -> dict[str, str]:
    # A key given twice in one file: JSON keeps the last silently, so an edit of the first
    # would change nothing on screen.
    twice = sorted(k for k, n in Counter(k for k, _ in pairs).items() if n > 1)
    assert not twice, f"keys given twice in one file: {twice}"
    return dict(pairs)


def load_area(lang: str, area: str) -> dict[str, str]:
    return json.loads((LANGS_DIR / lang / "ui" / f"{area}.json").read_text(encoding="utf-8"),
                      object_pairs_hook=_once)


def load(lang):
    """Every area of the language merged (the server's /i18n/LANG.json does the same)."""
    out = {}
    for area in area_files(lang):
        part = load_area(lang, area)
        clash = sorted(set(out) & set(part))
        assert not clash, f"{lang}/ui/{area}.json repeats keys of another area: {clash[:5]}"
        out.update(part)
    return out


def test_the_languages_are_found_italian_first():
    assert LANGS[0] == REFERENCE and {"it", "fr", "en"} <= set(LANGS), LANGS
    assert len(areas()) >= 10 and "app" in areas()


@pytest.mark.parametrize("lang", LANGS)
def test_no_ui_file_gives_a_key_twice(lang):
    for area in area_files(lang):
        try:
            load_area(lang, area)
        except AssertionError as exc:
            raise AssertionError(f"{lang}/ui/{area}.json: {exc}") from None


@pytest.mark.parametrize("lang", LANGS)
def test_each_language_has_italians_areas(lang):
    assert set(area_files(lang)) == set(areas()), {
        "missing": sorted(set(areas()) - set(area_files(lang))),
        "extra": sorted(set(area_files(lang)) - set(areas()))}


@pytest.mark.parametrize("lang", [code for code in LANGS if code != REFERENCE])
@pytest.mark.parametrize("area", areas())
def test_an_area_has_exactly_italians_keys(lang, area):
    """A key missing or extra in any ui file of any language, against Italian's (plural
    forms as the language's rule has them: the server's own comparison)."""
    path = LANGS_DIR / lang / "ui" / f"{area}.json"
    assert path.is_file(), f"{lang}: no ui/{area}.json"
    have, want = set(load_area(lang, area)), set(load_area(REFERENCE, area))
    missing, extra = area_difference(have, want, meta(lang)["plural"])
    assert not missing and not extra, {"area": f"{lang}/ui/{area}.json", "missing": sorted(missing),
                                       "extra": sorted(extra)}
    if meta(lang)["plural"] == meta(REFERENCE)["plural"]:
        assert have == want


def test_the_key_check_sees_a_missing_and_an_extra_key():
    """The same comparison the server makes at start-up finds both kinds of fault."""
    ref = {"app": {"a": "1", "b": "2"}, "tv": {"c": "3"}}
    assert ui_problems({"app": {"a": "1", "b": "2"}, "tv": {"c": "3"}}, ref) == []
    problems = ui_problems({"app": {"a": "1", "z": "9"}, "tv": {"c": "3"}}, ref)
    assert any("ui/app.json lacks b" in p for p in problems), problems
    assert any("ui/app.json has keys Italian has not: z" in p for p in problems), problems
    assert ui_problems({"app": {"a": "1", "b": "2"}}, ref) == ["ui/tv.json is missing"]


def test_plural_forms_follow_the_languages_rule():
    """Italian's `n.one` is needed under one_other, not under none; a `n.few` Italian has
    not is an extra key under one_other, a welcome form under a CLDR rule."""
    want = {"n", "n.one", "x"}
    assert area_difference({"n", "x"}, want, "one_other") == ({"n.one"}, set())
    assert area_difference({"n", "x"}, want, "none") == (set(), set())
    assert area_difference({"n", "n.one", "n.few", "x"}, want, "one_other") == (set(), {"n.few"})
    assert area_difference({"n", "n.one", "n.few", "n.many", "x"}, want, "cldr:pl") == (set(), set())
    assert area_difference({"n", "n.one", "x.few", "z.few"}, {"n", "n.one"}, "cldr:pl") == (
        set(), {"x.few", "z.few"})


def test_plural_js_and_the_servers_forms_agree():
    """Each fixed rule of web/js/plural.js picks only "other" and the forms the server
    expects of it (server/edge/langs.py PLURAL_FORMS), and each picks every one of them."""
    node = shutil.which("node")
    if not node:
        pytest.skip("no node")
    script = ("import { RULES } from './plural.js';\n"
              "const ns = [0, 1, 2, 3, 5, 11, 21, 22, 100, 1000000, 0.5, 1.5, 2.5, -1];\n"
              "const out = {};\n"
              "for (const [id, f] of Object.entries(RULES)) out[id] = [...new Set(ns.map(f))].sort();\n"
              "console.log(JSON.stringify(out));\n")
    res = subprocess.run([node, "--input-type=module", "-e", script], cwd=WEB / "js",
                         capture_output=True, text=True, timeout=30, check=True)
    got = json.loads(res.stdout)
    assert got == {rule: sorted(forms | {"other"}) for rule, forms in PLURAL_FORMS.items()}, got


def plural_rules() -> set[str]:
    """The rule ids web/js/plural.js knows (the keys of its RULES)."""
    text = (WEB / "js" / "plural.js").read_text(encoding="utf-8")
    block = text.split("export const RULES = {", 1)[1].split("\n};", 1)[0]
    return set(re.findall(r"^\s*(\w+):", block, flags=re.M))


@pytest.mark.parametrize("lang", LANGS)
def test_language_json_gives_what_the_client_reads(lang):
    meta = json.loads((LANGS_DIR / lang / "language.json").read_text(encoding="utf-8"))
    for name, kind in FIELDS.items():
        assert isinstance(meta.get(name), kind), (lang, name, meta.get(name))
    assert meta["code"] == lang and meta["name"].strip()
    assert re.fullmatch(r"[a-z]{2,3}(-[A-Za-z0-9]{2,8})*", meta["speech"]), meta["speech"]
    assert meta["speech"].split("-")[0] == lang
    assert set(PLURAL_FORMS) == plural_rules()
    assert meta["plural"] in plural_rules() or meta["plural"].startswith("cldr:"), meta["plural"]


def test_menu_orders_are_distinct():
    orders = [json.loads((LANGS_DIR / lang / "language.json").read_text(encoding="utf-8"))["order"]
              for lang in LANGS]
    assert len(set(orders)) == len(orders), orders


def test_no_language_is_written_into_the_client():
    """No per-language table or branch in web/: every language comes from the manifest
    (Italian, the fallback, is the one code named)."""
    found = []
    for path in [*WEB.rglob("*.js"), *WEB.rglob("*.html")]:
        text = path.read_text(encoding="utf-8")
        for code in LANGS:
            if code == REFERENCE:
                continue
            for m in re.finditer(rf"[\"'`]{code}(-[A-Z]{{2}})?[\"'`]", text):
                found.append(f"{path.relative_to(ROOT)}: {m.group(0)}")
        found += [f"{path.relative_to(ROOT)}: LANGS" for _ in re.finditer(r"\bLANGS\b", text)]
    assert not found, found


def contract_error_codes():
    """The codes listed after "Error codes include:" in docs/contracts.md."""
    text = (ROOT / "docs" / "contracts.md").read_text(encoding="utf-8")
    para = text.split("Error codes include:", 1)[1].split("\n\n", 1)[0]
    return re.findall(r"`([a-z_]+)`", para)


def protocol_error_codes():
    """The server's own codes from docs/protocol.md's table, when the file is there."""
    path = ROOT / "docs" / "protocol.md"
    if not path.exists():
        return []
    text = path.read_text(encoding="utf-8")
    table = text.split("### Error codes", 1)[1].split("###", 1)[0] if "### Error codes" in text else ""
    return re.findall(r"^\| `([a-z_]+)` \|", table, flags=re.M)


@pytest.mark.parametrize("lang", LANGS)
def test_no_translation_is_empty_or_loses_a_placeholder(lang):
    it, d = load(REFERENCE), load(lang)
    for key in it.keys() & d.keys():
        assert d[key].strip(), f"{lang}:{key} is empty"
        # Placeholders must survive translation.
        assert set(re.findall(r"\{\w+\}", it[key])) == set(re.findall(r"\{\w+\}", d[key])), (lang, key)


@pytest.mark.parametrize("lang", LANGS)
def test_every_error_code_has_a_message(lang):
    codes = contract_error_codes()
    assert "clue_uses_secret_word" in codes and len(codes) >= 15   # the parser found the list
    codes += protocol_error_codes()
    d = load(lang)
    missing = [c for c in codes if f"error.{c}" not in d]
    assert not missing, f"{lang}: no message for {missing}"


def test_every_literal_key_used_by_the_code_exists():
    it = load(REFERENCE)
    used = set()
    for path in [WEB / "app.js", *WEB.joinpath("js").rglob("*.js"), *WEB.joinpath("offline").glob("*.js")]:
        used |= set(re.findall(r"\bt\(\s*\"([a-z_.]+)\"", path.read_text(encoding="utf-8")))
    assert used, "no t(\"...\") call found"
    assert not sorted(k for k in used if k not in it)


def test_the_ten_powers_and_three_games_have_help_in_every_language():
    powers = ["muto", "pappagallo", "buffone", "gemelli", "vendicatore", "giudice", "spia",
              "cupido", "ubriacone", "sabotatore"]
    for lang in LANGS:
        d = load(lang)
        for p in powers:
            assert len(d[f"power.{p}.help"]) > 30, (lang, p)
        for game in ("intruso", "infiltre", "sosia", "lupi"):
            assert len(d[f"help.{game}.body"]) > 200, (lang, game)
