"""The languages of the game, read from data: one folder per language (issue 38).

    game/langs/<code>/
      language.json   # the language's rules (below)
      pairs.json      # Intruso/Infiltré/Sosia pairs (game.words); absent: not offered there
      impostore.json  # Impostore's words and hints (game.impostor.wordbank); absent: idem
      ui/<area>.json  # the web's strings (served by the server, not read here)

`language.json` (docs/languages.md says what each field means):

    {"code": "es", "name": "Español", "speech": "es-ES", "order": 4, "plural": "one_other",
     "text":   {"articles", "compound_lead", "fold_keep", "function_words"},
     "family": {"stemmer", "lemmas", "derivations", "short_derivations",
                "doubled_consonant_derivations", "inflections", "additions", "diminutives",
                "min_vowel_groups", "invariable_after", "infinitives"}}

Languages are discovered in `game/langs/` and in any folder a caller adds
(`add_dir`: a server's settings, a test's temporary folder), each folder
holding `<code>/language.json` subfolders. A malformed language.json is a
bug of its author and raises ValueError naming the file. Italian is the
fallback language everywhere (`FALLBACK`).

Pure: reads only these files (no environment); the caches are cleared when
the search path changes.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import snowballstemmer

from game.errors import GameError

LANGS_DIR = Path(__file__).with_name("langs")
FALLBACK = "it"
_EXTRA_DIRS: list[Path] = []

_CODE = re.compile(r"[a-z]{2}")
_SPEECH = re.compile(r"[a-z]{2,3}(-[A-Za-z0-9]{2,8})*")
_ID = re.compile(r"[a-z][a-z_]*")
_ENDING = re.compile(r"[^\W\d_]*")  # letters only, and lower case (checked beside it)
_TOP = {"code", "name", "speech", "order", "plural", "text", "family"}
_TEXT = {"articles", "compound_lead", "fold_keep", "function_words"}
_FAMILY = {
    "stemmer", "lemmas", "derivations", "short_derivations", "doubled_consonant_derivations",
    "inflections", "additions", "diminutives", "min_vowel_groups", "invariable_after",
    "infinitives",
}


@dataclass(frozen=True)
class Addition:
    """A form made by adding `add` to a word ending in one of `after` (any word when
    empty) and in none of `not_after`: "chat" -> "chats", "bateau" -> "bateaux"."""

    add: str
    after: tuple[str, ...]
    not_after: tuple[str, ...]


@dataclass(frozen=True)
class Diminutive:
    """Diminutives of a word ending in one of `after`: the word without its last `cut`
    letters (and each `base_variants` spelling of that base's end: "lag" -> "lagh"),
    plus each of `suffixes`. The first rule whose `after` fits applies."""

    after: tuple[str, ...]
    cut: int
    base_variants: tuple[tuple[str, str], ...]
    suffixes: tuple[str, ...]


@dataclass(frozen=True)
class TextRules:
    """How clues and guesses are read (game.text)."""

    articles: tuple[str, ...]  # folded, stripped from the start of a guess ("l'" elides)
    compound_lead: int  # shortest first element of a compound hiding the secret at its end
    fold_keep: str  # letters kept as their own when accents are dropped ("ñ")
    function_words: frozenset[str]  # lower case, accents as written


@dataclass(frozen=True)
class FamilyRules:
    """What makes two words one family (game.family)."""

    stemmer: str | None  # a Snowball algorithm ("italian"); None: a word is its own stem
    lemmas: str | None  # a simplemma language code; None: no dictionary lemmas
    derivations: frozenset[str]
    short_derivations: frozenset[str]
    doubled_consonant_derivations: tuple[str, ...]
    inflections: tuple[tuple[str, tuple[str, ...]], ...]
    additions: tuple[Addition, ...]
    diminutives: tuple[Diminutive, ...]
    min_vowel_groups: int
    invariable_after: str
    infinitives: tuple[str, ...]


@dataclass(frozen=True)
class Language:
    code: str
    name: str  # the endonym shown in language menus
    speech: str  # BCP-47 locale for speech synthesis
    order: int  # position in menus
    plural: str  # the web's plural rule id
    folder: Path
    text: TextRules
    family: FamilyRules
    parts: frozenset[str] = frozenset()  # the data files present ("pairs", "impostore")

    def file(self, part: str) -> Path:
        """A data file of the language ("pairs", "impostore"), present or not."""
        return self.folder / f"{part}.json"

    def offers(self, part: str) -> bool:
        """The language has that data file: its game is offered in it (as the folder was
        when the language was read: views ask this for every player at every change)."""
        return part in self.parts


# ---------------------------------------------------------------- validation


def _fail(where: Path, message: str) -> ValueError:
    return ValueError(f"{where}: {message}")


def _strings(where: Path, key: str, value: Any, *, shape: re.Pattern | None = None) -> tuple:
    if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
        raise _fail(where, f"{key} must be a list of strings")
    if shape is not None:
        bad = [x for x in value if not shape.fullmatch(x) or x != x.lower()]
        if bad:
            raise _fail(where, f"{key}: not a lower-case ending: {bad}")
    return tuple(value)


def _int(where: Path, key: str, value: Any, low: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < low:
        raise _fail(where, f"{key} must be an integer >= {low}")
    return value


def _exact_keys(where: Path, what: str, raw: Any, keys: set[str]) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise _fail(where, f"{what} must be an object")
    if set(raw) != keys:
        missing, extra = sorted(keys - set(raw)), sorted(set(raw) - keys)
        raise _fail(where, f"{what}: missing {missing}, unknown {extra}")
    return raw


def _text_rules(where: Path, raw: Any) -> TextRules:
    raw = _exact_keys(where, "text", raw, _TEXT)
    keep = raw["fold_keep"]
    if not isinstance(keep, str) or keep != keep.lower() or not all(c.isalpha() for c in keep):
        raise _fail(where, "text.fold_keep must be lower-case letters")
    words = _strings(where, "text.function_words", raw["function_words"])
    return TextRules(
        articles=_strings(where, "text.articles", raw["articles"]),
        compound_lead=_int(where, "text.compound_lead", raw["compound_lead"], 1),
        fold_keep=keep,
        function_words=frozenset(words),
    )


def _addition(where: Path, raw: Any) -> Addition:
    if not isinstance(raw, dict) or "add" not in raw or set(raw) - {"add", "after", "not_after"}:
        raise _fail(where, f"family.additions: bad rule {raw!r}")
    add = _strings(where, "family.additions.add", [raw["add"]], shape=_ENDING)[0]
    return Addition(
        add,
        _strings(where, "family.additions.after", raw.get("after", []), shape=_ENDING),
        _strings(where, "family.additions.not_after", raw.get("not_after", []), shape=_ENDING),
    )


def _diminutive(where: Path, raw: Any) -> Diminutive:
    raw = _exact_keys(where, "family.diminutives[]", raw,
                      {"after", "cut", "base_variants", "suffixes"})
    variants = raw["base_variants"]
    if not isinstance(variants, dict) or not all(
            isinstance(v, str) and _ENDING.fullmatch(k) and _ENDING.fullmatch(v)
            and (k + v) == (k + v).lower() for k, v in variants.items()):
        raise _fail(where, "family.diminutives: base_variants maps an ending to another")
    return Diminutive(
        after=_strings(where, "family.diminutives.after", raw["after"], shape=_ENDING),
        cut=_int(where, "family.diminutives.cut", raw["cut"], 0),
        base_variants=tuple(variants.items()),
        suffixes=_strings(where, "family.diminutives.suffixes", raw["suffixes"], shape=_ENDING),
    )


def _family_rules(where: Path, raw: Any) -> FamilyRules:
    raw = _exact_keys(where, "family", raw, _FAMILY)
    stemmer = raw["stemmer"]
    if stemmer is not None and stemmer not in snowballstemmer.algorithms():
        raise _fail(where, f"family.stemmer {stemmer!r} is no Snowball algorithm")
    lemmas = raw["lemmas"]
    if lemmas is not None and not (isinstance(lemmas, str) and _CODE.fullmatch(lemmas)):
        raise _fail(where, "family.lemmas must be a simplemma language code or null")
    inflections = raw["inflections"]
    if not isinstance(inflections, dict) or not all(
            isinstance(k, str) and _ENDING.fullmatch(k) and k == k.lower() for k in inflections):
        raise _fail(where, "family.inflections must map endings to lists of endings")
    rows = tuple((k, _strings(where, f"family.inflections.{k}", v, shape=_ENDING))
                 for k, v in inflections.items())
    additions, diminutives = raw["additions"], raw["diminutives"]
    if not isinstance(additions, list) or not isinstance(diminutives, list):
        raise _fail(where, "family.additions and family.diminutives must be lists")
    invariable = raw["invariable_after"]
    if not isinstance(invariable, str):
        raise _fail(where, "family.invariable_after must be a string of letters")
    return FamilyRules(
        stemmer=stemmer,
        lemmas=lemmas,
        derivations=frozenset(_strings(where, "family.derivations", raw["derivations"],
                                       shape=_ENDING)),
        short_derivations=frozenset(_strings(where, "family.short_derivations",
                                             raw["short_derivations"], shape=_ENDING)),
        doubled_consonant_derivations=_strings(where, "family.doubled_consonant_derivations",
                                               raw["doubled_consonant_derivations"], shape=_ENDING),
        inflections=rows,
        additions=tuple(_addition(where, a) for a in additions),
        diminutives=tuple(_diminutive(where, d) for d in diminutives),
        min_vowel_groups=_int(where, "family.min_vowel_groups", raw["min_vowel_groups"], 0),
        invariable_after=invariable,
        infinitives=_strings(where, "family.infinitives", raw["infinitives"], shape=_ENDING),
    )


def parse(folder: Path) -> Language:
    """Read and check `folder/language.json`; ValueError names the file and the defect."""
    where = folder / "language.json"
    try:
        raw = json.loads(where.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as err:
        raise _fail(where, f"unreadable: {err}") from err
    raw = _exact_keys(where, "language.json", raw, _TOP)
    code = raw["code"]
    if not isinstance(code, str) or not _CODE.fullmatch(code) or code != folder.name:
        raise _fail(where, f"code {code!r} must be the folder's name, two letters (ISO 639-1)")
    for key in ("name", "plural"):
        if not isinstance(raw[key], str) or not raw[key].strip():
            raise _fail(where, f"{key} must be a non-empty string")
    if not _ID.fullmatch(raw["plural"]):
        raise _fail(where, "plural must be a rule id (lower case and _)")
    if not isinstance(raw["speech"], str) or not _SPEECH.fullmatch(raw["speech"]):
        raise _fail(where, "speech must be a BCP-47 locale such as es-ES")
    return Language(
        code=code,
        name=raw["name"],
        speech=raw["speech"],
        order=_int(where, "order", raw["order"], 1),
        plural=raw["plural"],
        folder=folder,
        text=_text_rules(where, raw["text"]),
        family=_family_rules(where, raw["family"]),
        parts=frozenset(p.stem for p in folder.glob("*.json") if p.name != "language.json"),
    )


# ---------------------------------------------------------------- the registry


def search_path() -> list[Path]:
    """The folders languages are read from: the project's, then those added."""
    return [LANGS_DIR, *_EXTRA_DIRS]


def split_dirs(text: str) -> list[Path]:
    """The folders a setting names (`SUSSURRO_LANGS_DIR`: os.pathsep between them, `~`
    expanded, blank entries skipped): the server's and the one-phone build's reading."""
    return [Path(p).expanduser() for p in text.split(os.pathsep) if p.strip()]


def add_dir(path: str | Path) -> None:
    """Read languages from `path` too (each `path/<code>/language.json`)."""
    path = Path(path)
    if path not in _EXTRA_DIRS:
        _EXTRA_DIRS.append(path)
        _registry.cache_clear()


def remove_dir(path: str | Path) -> None:
    """Stop reading languages from a folder `add_dir` added."""
    path = Path(path)
    if path in _EXTRA_DIRS:
        _EXTRA_DIRS.remove(path)
        _registry.cache_clear()


@cache
def _registry() -> dict[str, Language]:
    found: dict[str, Language] = {}
    for base in search_path():
        if not base.is_dir():
            continue
        for folder in sorted(base.iterdir()):
            if not (folder / "language.json").is_file():
                continue
            lang = parse(folder)
            if lang.code in found:
                raise _fail(folder, f"language {lang.code!r} is also in {found[lang.code].folder}")
            found[lang.code] = lang
    if FALLBACK not in found:
        raise ValueError(f"no {FALLBACK!r} language (the fallback) in {search_path()}")
    return dict(sorted(found.items(), key=lambda item: (item[1].order, item[0])))


def languages(part: str | None = None) -> list[Language]:
    """Every language in menu order; with `part` ("pairs", "impostore"), those that
    offer that game (have that data file)."""
    return [lang for lang in _registry().values() if part is None or lang.offers(part)]


def codes(part: str | None = None) -> tuple[str, ...]:
    """The codes of `languages(part)`, in menu order."""
    return tuple(lang.code for lang in languages(part))


def get(code: str) -> Language:
    """A language by code; GameError("bad_options") when there is none."""
    found = _registry().get(code) if isinstance(code, str) else None
    if found is None:
        raise GameError("bad_options", f"unknown language {code!r}", lang=code)
    return found


def data_file(code: str, part: str) -> Path:
    """A language's data file of a game; GameError("bad_options") when it has none."""
    lang = get(code)
    if not lang.offers(part):
        raise GameError("bad_options", f"no {part} in language {code!r}", lang=code)
    return lang.file(part)
