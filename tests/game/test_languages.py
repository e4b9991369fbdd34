"""game/languages.py: the languages are folders of data (issue 38 item 1), discovered in
game/langs/ and in folders a caller adds, each language.json checked when read."""

from __future__ import annotations

import ast
import copy
import json
import re
from pathlib import Path

import pytest

from game import languages, lemmas, words
from game.errors import GameError
from game.impostor import wordbank
from tests.game.test_data_language import LANGUAGE, write_language

GAME = Path(__file__).resolve().parents[2] / "game"


def test_the_projects_languages_in_menu_order_with_their_endonyms_and_locales():
    found = [(x.code, x.name, x.speech, x.order) for x in languages.languages()]
    assert found == [("it", "Italiano", "it-IT", 1), ("fr", "Français", "fr-FR", 2),
                     ("en", "English", "en-GB", 3), ("es", "Español", "es-ES", 4)]
    assert languages.FALLBACK == "it"
    assert lemmas.langs() == ("it", "fr", "en", "es")


def test_a_language_offers_the_games_whose_data_file_it_has():
    for lang in languages.languages():
        assert (lang.code in words.langs()) == (lang.folder / "pairs.json").is_file()
        assert (lang.code in wordbank.langs()) == (lang.folder / "impostore.json").is_file()
    assert {"it", "fr", "en"} <= set(words.langs()) & set(wordbank.langs())


def test_an_unknown_language_is_refused_as_bad_options():
    for call in (lambda: languages.get("de"), lambda: words.load_pairs("de"),
                 lambda: wordbank.categories("de"), lambda: languages.data_file("xx", "pairs")):
        with pytest.raises(GameError) as err:
            call()
        assert err.value.code == "bad_options"


def _broken(change) -> dict:
    data = copy.deepcopy(LANGUAGE)
    change(data)
    return data


@pytest.mark.parametrize(("change", "message"), [
    (lambda d: d.pop("speech"), "missing"),
    (lambda d: d.update(extra=1), "unknown"),
    (lambda d: d.update(code="ZZ"), "folder's name"),
    (lambda d: d.update(speech="Spanish please"), "BCP-47"),
    (lambda d: d.update(order=0), "order"),
    (lambda d: d.update(plural="One Other"), "plural"),
    (lambda d: d["text"].update(fold_keep="Ñ"), "fold_keep"),
    (lambda d: d["text"].update(compound_lead="4"), "compound_lead"),
    (lambda d: d["family"].update(stemmer="klingon"), "Snowball"),
    (lambda d: d["family"].update(inflections={"U": ["uki"]}), "inflections"),
    (lambda d: d["family"].update(diminutives=[{"after": ["a"]}]), "diminutives"),
    (lambda d: d["family"]["additions"].append({"plus": "s"}), "additions"),
])
def test_a_malformed_language_json_is_refused_naming_its_file(tmp_path, change, message):
    folder = write_language(tmp_path, LANGUAGE, pairs=None, impostore=None)
    (folder / "language.json").write_text(json.dumps(_broken(change)), encoding="utf-8")
    with pytest.raises(ValueError, match=message) as err:
        languages.parse(folder)
    assert str(folder / "language.json") in str(err.value)


def test_a_language_in_two_folders_is_refused(tmp_path):
    write_language(tmp_path, dict(LANGUAGE, code="es"), pairs=None, impostore=None)
    languages.add_dir(tmp_path)
    try:
        with pytest.raises(ValueError, match="also in"):
            languages.codes()
    finally:
        languages.remove_dir(tmp_path)
    assert languages.get("es").folder == languages.LANGS_DIR / "es"


def test_every_language_json_of_the_project_is_well_formed():
    for folder in sorted(languages.LANGS_DIR.iterdir()):
        raw = json.loads((folder / "language.json").read_text(encoding="utf-8"))
        assert languages.parse(folder).code == raw["code"] == folder.name


def test_no_language_is_named_in_the_cores_code():
    """Issue 38: no `lang == "xx"` branch and no list of languages is left in game/; the
    fallback (Italian) and a preset's default language are the only codes named."""
    branch = re.compile(r"""\blang\w*\s*(==|!=|in|not in)\s*[(\[{]?\s*["']""")
    codes = set(languages.codes())
    found = []
    for path in sorted(GAME.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        found += [f"{path.name}: {m.group(0)}" for m in branch.finditer(source)]
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, (ast.Tuple, ast.List, ast.Set, ast.Dict)):
                items = node.keys if isinstance(node, ast.Dict) else node.elts
                named = [x.value for x in items if isinstance(x, ast.Constant) and x.value in codes]
                if len(named) >= 2:
                    found.append(f"{path.name}:{node.lineno}: {named}")
    assert found == []
