"""The web client's translations: same keys in it/fr/en, a message for every error code
the server or the game can send, and every literal key the code uses exists."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "web"
LANGS = ("it", "fr", "en")


def areas():
    return json.loads((WEB / "i18n" / "areas.json").read_text(encoding="utf-8"))


def load(lang):
    """The core dictionary merged with every area's (web/js/i18n.js does the same)."""
    out = {}
    for name in [lang, *(f"{a}.{lang}" for a in areas())]:
        part = json.loads((WEB / "i18n" / f"{name}.json").read_text(encoding="utf-8"))
        clash = sorted(set(out) & set(part))
        assert not clash, f"{name}.json repeats keys of another file: {clash[:5]}"
        out.update(part)
    return out


def test_every_area_has_a_file_per_language():
    for area in areas():
        for lang in LANGS:
            assert (WEB / "i18n" / f"{area}.{lang}.json").is_file(), (area, lang)


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


def test_the_three_languages_have_the_same_keys():
    keys = {lang: set(load(lang)) for lang in LANGS}
    assert keys["it"] == keys["fr"] == keys["en"], {
        lang: sorted(keys[lang] ^ keys["it"]) for lang in LANGS}


def test_no_translation_is_empty_or_left_untranslated():
    it, fr, en = (load(lang) for lang in LANGS)
    for key in it:
        for lang, d in (("it", it), ("fr", fr), ("en", en)):
            assert d[key].strip(), f"{lang}:{key} is empty"
        # Placeholders must survive translation.
        assert set(re.findall(r"\{\w+\}", it[key])) == set(re.findall(r"\{\w+\}", fr[key])) \
            == set(re.findall(r"\{\w+\}", en[key])), key


@pytest.mark.parametrize("lang", LANGS)
def test_every_error_code_has_a_message(lang):
    codes = contract_error_codes()
    assert "clue_uses_secret_word" in codes and len(codes) >= 15   # the parser found the list
    codes += protocol_error_codes()
    d = load(lang)
    missing = [c for c in codes if f"error.{c}" not in d]
    assert not missing, f"{lang}: no message for {missing}"


def test_every_literal_key_used_by_the_code_exists():
    it = load("it")
    used = set()
    for path in [WEB / "app.js", *WEB.joinpath("js").rglob("*.js")]:
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
