"""The web client's languages, read from data at start-up and served to every page.

A language is a folder (docs/languages.md): `language.json` (its code, the endonym shown
in language menus, the speech-synthesis locale, its place in menus, its plural rule) and
`ui/<area>.json`, the client's strings of each area (flat key -> string). The folders are
game/langs/<code>/ and the <code>/ folders of each folder `settings.langs_dir` names
(SUSSURRO_LANGS_DIR, os.pathsep between them); a code found twice stops start-up, as
the game core's loader does.

- `GET /i18n/langs.json`: the manifest, one entry per language in menu order:
  `{code, name, speech, order, plural, ui}`; `ui` false for a language whose strings
  are absent or incomplete (its words may still be played; its name still shows).
- `GET /i18n/<code>.json`: every area of that language's strings merged in one
  dictionary (404 for a language without complete strings).

Italian is the reference: a language's strings are complete when each area holds
exactly Italian's keys of that area, plural forms as the language's rule has them (a
`KEY.one` Italian has is needed where the rule has "one"; a `KEY.few` Italian has not is
welcome where it has "few": see PLURAL_FORMS). One that is not is not offered as a UI language,
and start-up logs what it lacks or has too many, area by area (it is not refused: the
server starts with the other languages).
"""

from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response

from game import languages as game_languages

if TYPE_CHECKING:
    from server.config import Settings

log = logging.getLogger(__name__)

BUILTIN = game_languages.LANGS_DIR.resolve()
REFERENCE = "it"
FIELDS = ("code", "name", "speech", "order", "plural")
SHOWN = 8   # keys named per area in a problem report
# The forms beside "other" of each plural rule of web/js/plural.js's RULES (kept equal:
# tests/browser/test_i18n.py runs both); "cldr:<locale>" rules may have any CLDR form.
PLURAL_FORMS = {"one_other": {"one"}, "one_includes_zero": {"one"}, "none": set()}
CLDR_FORMS = {"zero", "one", "two", "few", "many"}


class LanguageError(ValueError):
    """A language folder that cannot be read (its language.json or a ui file)."""


@dataclass
class Language:
    """One language folder as read: its fields, its strings by area, what is wrong."""

    folder: Path
    meta: dict
    areas: dict[str, dict[str, str]]
    problems: list[str] = field(default_factory=list)

    @property
    def code(self) -> str:
        return self.meta["code"]

    @property
    def complete(self) -> bool:
        return bool(self.areas) and not self.problems


def _read_json(path: Path) -> object:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise LanguageError(f"{path}: {exc}") from exc


def read_language(folder: Path) -> Language:
    """A language folder: language.json checked, every ui/<area>.json read."""
    meta = _read_json(folder / "language.json")
    if not isinstance(meta, dict):
        raise LanguageError(f"{folder / 'language.json'}: not an object")
    missing = [f for f in FIELDS if f not in meta]
    if missing:
        raise LanguageError(f"{folder / 'language.json'}: no {', '.join(missing)}")
    try:
        plural_forms(str(meta["plural"]))
    except LanguageError as exc:
        raise LanguageError(f"{folder / 'language.json'}: {exc}") from exc
    if meta["code"] != folder.name:
        raise LanguageError(f"{folder / 'language.json'}: code {meta['code']!r} in a folder "
                            f"named {folder.name!r}")
    areas: dict[str, dict[str, str]] = {}
    ui = folder / "ui"
    for path in sorted(ui.glob("*.json")) if ui.is_dir() else []:
        strings = _read_json(path)
        if not isinstance(strings, dict) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in strings.items()):
            raise LanguageError(f"{path}: not a flat object of strings")
        areas[path.stem] = strings
    return Language(folder=folder, meta={k: meta[k] for k in FIELDS}, areas=areas)


def _some(keys: set[str]) -> str:
    names = sorted(keys)
    more = f" and {len(names) - SHOWN} more" if len(names) > SHOWN else ""
    return ", ".join(names[:SHOWN]) + more


def plural_forms(rule: str) -> tuple[set[str], set[str]]:
    """(forms needed where Italian has them, forms allowed) of a plural rule."""
    if rule in PLURAL_FORMS:
        return PLURAL_FORMS[rule], PLURAL_FORMS[rule]
    if rule.startswith("cldr:"):
        return set(), CLDR_FORMS
    raise LanguageError(f"unknown plural rule {rule!r} (known: {sorted(PLURAL_FORMS)}, cldr:<locale>)")


def _form(key: str, base_keys: set[str], forms: set[str]) -> bool:
    """Whether `key` is a plural form (`BASE.FORM`, FORM in `forms`) of a key of `base_keys`."""
    base, _, form = key.rpartition(".")
    return form in forms and base in base_keys


def area_difference(have: set[str], want: set[str], rule: str) -> tuple[set[str], set[str]]:
    """(missing, extra) keys of one area against Italian's, plural forms by `rule`."""
    needed, allowed = plural_forms(rule)
    missing = {k for k in want - have if not _form(k, want, CLDR_FORMS - needed)}
    extra = {k for k in have - want if not _form(k, want, allowed)}
    return missing, extra


def ui_problems(areas: dict[str, dict[str, str]], reference: dict[str, dict[str, str]],
                rule: str = "one_other") -> list[str]:
    """What keeps `areas` (of a language with plural `rule`) from being complete against
    `reference` (Italian's), per area: an area missing or extra, keys missing or extra,
    a key in two areas."""
    out = []
    if not areas:
        return ["no ui/ strings"]
    for area in sorted(set(reference) - set(areas)):
        out.append(f"ui/{area}.json is missing")
    for area in sorted(set(areas) - set(reference)):
        out.append(f"ui/{area}.json is not one of Italian's areas")
    for area in sorted(set(areas) & set(reference)):
        missing, extra = area_difference(set(areas[area]), set(reference[area]), rule)
        if missing:
            out.append(f"ui/{area}.json lacks {_some(missing)}")
        if extra:
            out.append(f"ui/{area}.json has keys Italian has not: {_some(extra)}")
    seen: dict[str, str] = {}
    for area, strings in sorted(areas.items()):
        for key in strings:
            if key in seen:
                out.append(f"ui/{area}.json repeats {key!r} of ui/{seen[key]}.json")
            seen.setdefault(key, area)
    return out


def language_folders(roots: list[Path]) -> list[Path]:
    """The language folders under `roots` (each sub-folder with a language.json), in order."""
    out = []
    for root in roots:
        if root.is_dir():
            out += [p for p in sorted(root.iterdir()) if (p / "language.json").is_file()]
        else:
            log.warning("languages: %s is not a folder", root)
    return out


def extra_roots(settings: Settings) -> list[Path]:
    """The folders `settings.langs_dir` names (os.pathsep between them)."""
    return game_languages.split_dirs(settings.langs_dir)


def add_game_dirs(roots: list[Path]) -> None:
    """Tell the game core about the extra language folders (their words, text rules): the
    one place the server hands them over (game.languages.add_dir, the core's loader)."""
    for root in roots:
        game_languages.add_dir(root)


@dataclass
class Languages:
    """Every language, in menu order, with its served bytes ready."""

    langs: list[Language]
    manifest_bytes: bytes = b""
    dictionaries: dict[str, bytes] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.manifest_bytes = _dump(self.manifest())
        self.dictionaries = {lang.code: _dump(merged(lang)) for lang in self.langs if lang.complete}

    def manifest(self) -> list[dict]:
        return [{**lang.meta, "ui": lang.complete} for lang in self.langs]

    def files(self) -> dict[str, bytes]:
        """URL -> the bytes served there (the one-phone page's cache lists them)."""
        out = {"/i18n/langs.json": self.manifest_bytes}
        out.update({f"/i18n/{code}.json": data for code, data in self.dictionaries.items()})
        return out


def merged(lang: Language) -> dict[str, str]:
    out: dict[str, str] = {}
    for strings in lang.areas.values():
        out.update(strings)
    return out


def _dump(value: object) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def load_languages(roots: list[Path]) -> Languages:
    """Read every language under `roots`; check each one's strings against Italian's and
    log what an incomplete one lacks."""
    by_code: dict[str, Language] = {}
    for folder in language_folders(roots):
        lang = read_language(folder)
        if lang.code in by_code:
            raise LanguageError(f"{folder}: language {lang.code!r} is also in "
                                f"{by_code[lang.code].folder}")
        by_code[lang.code] = lang
    if REFERENCE not in by_code:
        raise LanguageError(f"no {REFERENCE!r} language among {[str(r) for r in roots]}")
    reference = by_code[REFERENCE].areas
    for lang in by_code.values():
        lang.problems = ui_problems(lang.areas, reference, lang.meta["plural"])
        if lang.problems and lang.areas:
            log.error("languages: %s is not offered as a UI language: %s", lang.folder,
                      "; ".join(lang.problems))
    ordered = sorted(by_code.values(), key=lambda lang: (lang.meta["order"], lang.code))
    return Languages(ordered)


def languages_for(settings: Settings) -> Languages:
    """The languages a server with `settings` offers (the extra folders handed to the core)."""
    extra = extra_roots(settings)
    add_game_dirs(extra)
    return load_languages([BUILTIN, *extra])


def add_lang_routes(app: FastAPI, langs: Languages) -> None:
    """Add /i18n/langs.json and /i18n/{code}.json."""
    def reply(request: Request, data: bytes) -> Response:
        etag = '"' + hashlib.sha256(data).hexdigest()[:20] + '"'
        headers = {"Cache-Control": "no-cache", "ETag": etag}
        if request.headers.get("if-none-match") == etag:
            return Response(status_code=304, headers=headers)
        return Response(data, media_type="application/json", headers=headers)

    @app.get("/i18n/langs.json")
    async def manifest(request: Request):
        return reply(request, langs.manifest_bytes)

    @app.get("/i18n/{code}.json")
    async def dictionary(code: str, request: Request):
        data = langs.dictionaries.get(code)
        if data is None:
            return JSONResponse({"code": "not_found", "message": "no such language"},
                                status_code=404)
        return reply(request, data)
