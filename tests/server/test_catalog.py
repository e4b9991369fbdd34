"""GET /api/catalog: the rules the web client's settings form is built from, read from game/."""

from __future__ import annotations

import httpx

from game import ENGINES, PRESETS, catalog, default_options, words
from game.impostor import wordbank
from game.timers import TIMER_MAX, TIMER_MIN
from game.undercover.presets import DEFAULT_TIMERS, TIMER_KEYS
from game.undercover.state import POWERS


def fetch(srv, **headers):
    return httpx.get(srv.url("/api/catalog"), headers=headers)


def test_catalog_is_public_cacheable_json(shared_server):
    r = fetch(shared_server)
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("application/json")
    assert "public" in r.headers["cache-control"] and "max-age=" in r.headers["cache-control"]
    etag = r.headers["etag"]
    again = fetch(shared_server, **{"If-None-Match": etag})
    assert again.status_code == 304 and not again.content
    assert r.json() == catalog()


def test_catalog_matches_every_preset_of_the_game(shared_server):
    cat = fetch(shared_server).json()
    assert list(cat["presets"]) == list(PRESETS)
    for name, p in PRESETS.items():
        entry = cat["presets"][name]
        assert entry["lang"] == p.lang and entry["engine"] == p.engine
        assert entry["defaults"] == default_options(name)
        if p.engine == "undercover":
            assert entry["max_intrusi"] == p.max_intrusi
            assert entry["max_fantasmi"] == p.max_fantasmi
            assert entry["powers_allowed"] == p.powers_allowed
    assert cat["powers"] == list(POWERS) and len(cat["powers"]) == 10
    assert cat["timers"] == {"keys": list(TIMER_KEYS), "min": TIMER_MIN, "max": TIMER_MAX,
                             "defaults": DEFAULT_TIMERS}


def test_catalog_has_every_category_of_every_language_and_no_word(shared_server):
    cat = fetch(shared_server).json()
    assert cat["langs"] == list(words.LANGS)
    assert set(cat["categories"]) == set(words.LANGS)
    for lang in words.LANGS:
        assert list(cat["categories"][lang]) == words.categories(lang)
        assert cat["categories"][lang] == words.category_names(lang)
    # Names and ids only: no string of the catalog is a word of a pair, except where a
    # word is also one of the rules' own names ("giudice" is a power and a word).
    secret = {w for lang in words.LANGS for pair in words.load_pairs(lang) for w in (pair.a, pair.b)}
    secret |= {w["word"].lower() for lang in wordbank.LANGS for c in wordbank.categories(lang)
               for w in wordbank.words_of(lang, c)}
    # Impostore's category names are public ("Film" is a name and a word of a pair).
    names = {n.lower() for lang in wordbank.LANGS for n in wordbank.category_names(lang).values()}
    own = set(POWERS) | set(PRESETS) | set(words.LANGS) | set(TIMER_KEYS) | names | set(ENGINES)
    for part in cat["engines"].values():   # each engine's own names: roles, timers
        own |= set(part.get("roles", [])) | set(part.get("timers", {}).get("keys", []))
    leaked = sorted((strings(cat) - own) & secret)
    assert not leaked, leaked
    assert "pairs" not in cat and "words" not in cat and "token" not in fetch(shared_server).text
    assert len(fetch(shared_server).content) < 8000   # a few names, not a word list


def strings(value) -> set[str]:
    """Every string of a JSON value, keys included, lower-cased."""
    if isinstance(value, str):
        return {value.lower()}
    if isinstance(value, dict):
        return set().union(*(strings(k) | strings(v) for k, v in value.items()))
    if isinstance(value, list):
        return set().union(*(strings(v) for v in value))
    return set()
