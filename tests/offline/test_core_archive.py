"""Issue 11: the core archive the one-phone page unpacks into Pyodide.

What goes in is derived from the imports of game/ and pyproject.toml's
dependencies; `import game` works from the archive alone under CPython (no
site-packages, a clean sys.path), and a game played from it gives the same bytes
as the installed core: the pure-Python paths are the ones the browser runs.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import game
from game import languages, lemmas

ROOT = Path(__file__).resolve().parents[2]


def _script():
    spec = importlib.util.spec_from_file_location("offline_assets", ROOT / "scripts" / "offline_assets.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def archive(tmp_path_factory):
    out = tmp_path_factory.mktemp("core") / "core.zip"
    report = _script().pack_core(out)
    return out, report


SCRIPT = r"""
import json, sys
sys.path[:0] = [sys.argv[1]]
import game
from game import apply, new_game, replay, state_bytes, view
# Eight seats: every preset's table (Lupi Mannari deals from 8 players).
players = [{"id": f"p{i}", "name": f"N{i}"} for i in range(8)]
out = {"modules": sorted(m.split(".")[0] for m in sys.modules if m.split(".")[0] in
                         ("emoji", "snowballstemmer", "rapidfuzz", "simplemma", "game"))}
for preset in sorted(game.PRESETS):
    opts = game.validate_options(preset, {"one_phone": True}, 8) if "one_phone" in \
        game.default_options(preset) else game.default_options(preset)
    words = game.draw_words(preset, opts, 7)
    s = new_game(preset, opts, 7, players, 0.0, words=words)
    out[preset] = state_bytes(s).decode()
from game import text
out["checks"] = [text.guess_matches("gato", "gatto", None, "it"),
                 text.guess_matches("chevaux", "cheval", None, "fr"),
                 text.guess_matches("ano", "año", "ana", "es"),
                 text.is_emoji_only("🐱🌊")]
for clue, secret, lang in (("gattino", "gatto", "it"), ("gatti", "gatto", "it"),
                           ("felino", "gatto", "it"), ("panadero", "pan", "es"),
                           ("anomalía", "año", "es")):
    try:
        text.check_clue(clue, secret, lang)
        out["checks"].append("ok")
    except game.GameError as exc:
        out["checks"].append(exc.code)
from game import lemmas
out["lemmas"] = [lemmas.lemma(w, lang) for lang, w in LEMMA_WORDS]
out["lemma_langs"] = lemmas.loaded_languages()
print(json.dumps(out))
"""
# Words whose lemmas the page must find as the server does (the zlib path, issue 11).
LEMMA_WORDS = [("it", "gatti"), ("it", "l'amico"), ("fr", "chevaux"), ("fr", "yeux"),
               ("en", "knives"), ("en", "children"), ("it", "zzzz"), ("es", "años"),
               ("es", "luces")]
SCRIPT = SCRIPT.replace("from game import lemmas", f"LEMMA_WORDS = {LEMMA_WORDS!r}\nfrom game import lemmas")


def test_what_goes_in_is_derived_from_the_imports_of_game_and_pyproject(archive, monkeypatch):
    from importlib import metadata

    mod = _script()
    declared = mod.declared_dependencies()
    providers = metadata.packages_distributions()
    imports = mod.game_imports()
    assert imports, "game has dependencies beyond the standard library"
    _, report = archive
    shipped = {mod._norm(n) for n in report["distributions"]}
    for module in imports:
        dist = mod._norm(providers[module][0])
        assert dist in declared, (module, dist)
        # What the page does without (simplemma: lzma) is left out, the rest shipped.
        assert (dist in shipped) == (module not in mod.PAGE_LEAVES_OUT), (module, dist)
    # An import no dependency of pyproject.toml declares stops the build.
    monkeypatch.setattr(mod, "game_imports", lambda package=None: {"yaml"})
    with pytest.raises(SystemExit, match="not a dependency in pyproject.toml"):
        mod.core_distributions()


def test_the_archive_holds_the_core_its_words_and_no_compiled_code(archive):
    path, _ = archive
    names = zipfile.ZipFile(path).namelist()
    assert "game/__init__.py" in names and "sussurro_offline.py" in names
    for lang in languages.languages():
        folder = f"game/langs/{lang.code}"
        assert f"{folder}/language.json" in names
        assert (f"{folder}/pairs.json" in names) == lang.offers("pairs")
        assert (f"{folder}/impostore.json" in names) == lang.offers("impostore")
    assert {"it", "fr", "en"} <= {x.code for x in languages.languages("pairs")}
    for lang in lemmas.langs():
        assert f"game/lemma_data/{lang}.txt.z" in names
    assert not [n for n in names if n.endswith((".so", ".pyd", ".pyc"))]
    assert not [n for n in names if ".dist-info/" in n or "__pycache__" in n]
    # A many-language dependency keeps our languages' data only.
    data = [n for n in names if n.endswith(".plzma")]
    assert all(Path(n).stem in lemmas.langs() for n in data)


def test_import_game_from_the_archive_alone_gives_the_same_games(archive, tmp_path):
    path, _ = archive
    dest = tmp_path / "unpacked"
    zipfile.ZipFile(path).extractall(dest)
    # -I: isolated (no environment, no user site); -S: no site-packages at all.
    res = subprocess.run([sys.executable, "-I", "-S", "-c", SCRIPT, str(dest)],
                         capture_output=True, text=True, timeout=240)
    assert res.returncode == 0, res.stderr[-2000:]
    got = json.loads(res.stdout)
    assert "game" in got["modules"]
    players = [{"id": f"p{i}", "name": f"N{i}"} for i in range(8)]
    for preset in sorted(game.PRESETS):
        opts = (game.validate_options(preset, {"one_phone": True}, 8)
                if "one_phone" in game.default_options(preset) else game.default_options(preset))
        words = game.draw_words(preset, opts, 7)
        here = game.state_bytes(game.new_game(preset, opts, 7, players, 0.0, words=words)).decode()
        assert got[preset] == here, preset
    checks = [game.text.guess_matches("gato", "gatto", None, "it"),
              game.text.guess_matches("chevaux", "cheval", None, "fr"),
              game.text.guess_matches("ano", "año", "ana", "es"),
              game.text.is_emoji_only("🐱🌊")]
    for clue, secret, lang in (("gattino", "gatto", "it"), ("gatti", "gatto", "it"),
                               ("felino", "gatto", "it"), ("panadero", "pan", "es"),
                               ("anomalía", "año", "es")):
        try:
            game.text.check_clue(clue, secret, lang)
            checks.append("ok")
        except game.GameError as exc:
            checks.append(exc.code)
    assert got["checks"] == checks
    # No simplemma in the archive: its dictionaries re-packed with zlib give the same lemmas.
    assert "simplemma" not in got["modules"]
    assert got["lemmas"] == [game.lemmas.lemma(w, lang) for lang, w in LEMMA_WORDS]
    assert got["lemmas"][0] == "gatto" and got["lemmas"][-2:] == ["año", "luz"]
    assert got["lemma_langs"] == ["it", "es", "fr", "en"]  # in the order first asked
    # ñ is its own letter in Spanish ("ano" is not "año"); panadero is of pan's family.
    assert checks[2:] == [False, True, "clue_same_family", "clue_same_family", "ok",
                          "clue_same_family", "ok"]


def test_nothing_packed_imports_what_pyodide_leaves_out(archive, tmp_path):
    """Pyodide's npm package leaves a few standard modules out (lzma, sqlite3, ssl ...:
    its lock file's `cpython_module` entries); an import of one would fail in the page."""
    mod = _script()
    lock = mod.pyodide_dir() / "pyodide-lock.json"
    if not lock.is_file():
        pytest.skip("offline-build/ not built (./scripts/setup.sh)")
    _, report = archive
    assert report["not_in_pyodide"] == {}
    # The check finds such an import where there is one.
    user = tmp_path / "uses_lzma.py"
    user.write_text("import lzma\n\nDATA = lzma.decompress\n")
    fake = [("x/mod.py", Path(__file__)), ("y/uses_lzma.py", user)]
    assert mod.unvendored_imports(fake, lock) == {"lzma": ["y/uses_lzma.py"]}


# A one-phone game of each engine played from the archive alone (the page's pure paths):
# a plain driver takes the first action offered at each step, guesses and clues included.
PLAY_SCRIPT = r"""
import json, sys
sys.path[:0] = [sys.argv[1]]
import game

def first_target(s, pid, ids):
    return next(x for x in ids if x != pid)

def play(preset, opts, n, seed):
    players = [{"id": f"p{i}", "name": f"N{i}"} for i in range(n)]
    opts = game.validate_options(preset, opts, n)
    words = game.draw_words(preset, opts, seed)
    s = game.new_game(preset, opts, seed, players, 0.0, words=words)
    log, t = [], 0.0
    for _ in range(2000):
        pub = game.view(s, None)
        if pub["phase"] == "over":
            break
        t += 1.0
        d = game.next_deadline(s)
        if d is not None and t >= d:
            s, _ = game.tick(s, d)
            t = d
            log.append({"t": t, "player": None, "action": {"type": "tick"}})
            continue
        acted = False
        for p in players:
            me = game.view(s, p["id"])["me"]
            can = me["can"]
            living = [x["id"] for x in pub["players"] if x["alive"] and x["id"] != p["id"]]
            pack = me.get("pack") or []
            act = None
            for kind in ("seen", "ask_word", "table_word_vote", "done", "clue", "table_vote",
                         "guess", "peek", "bite", "ready"):
                if kind not in can:
                    continue
                if kind == "ask_word" and any(e["action"]["type"] == "ask_word" for e in log):
                    continue
                if kind == "bite" and me.get("bite"):
                    continue
                act = {"type": kind}
                if kind == "table_word_vote":
                    act["change"] = True
                elif kind == "clue":
                    act["text"] = "zzz"
                elif kind == "table_vote":
                    act["tally"] = {pub["candidates"][0]: 1}
                elif kind == "guess":
                    act["word"] = "gatti"
                elif kind in ("peek", "bite"):
                    act["target"] = next(x for x in living if x not in pack)
                break
            if act is not None:
                s, _ = game.apply(s, p["id"], act, t)
                log.append({"t": t, "player": p["id"], "action": act})
                acted = True
                break
        if not acted:
            t = max(t, game.next_deadline(s))
            s, _ = game.tick(s, t)
            log.append({"t": t, "player": None, "action": {"type": "tick"}})
    return {"preset": preset, "options": opts, "seed": seed, "players": players, "words": words,
            "log": log, "bytes": game.state_bytes(s).decode()}

games = [play("intruso", {"one_phone": True}, 5, 3),
         play("classica", {"one_phone": True}, 5, 4),
         play("caos", {"one_phone": True, "turns": "free"}, 6, 5),
         play("lupi", {"one_phone": True, "lupi": 1}, 5, 6)]
print(json.dumps(games))
"""


def test_one_phone_games_of_every_engine_give_the_same_bytes_from_the_archive(archive, tmp_path):
    path, _ = archive
    dest = tmp_path / "unpacked"
    zipfile.ZipFile(path).extractall(dest)
    res = subprocess.run([sys.executable, "-I", "-S", "-c", PLAY_SCRIPT, str(dest)],
                         capture_output=True, text=True, timeout=240)
    assert res.returncode == 0, res.stderr[-2000:]
    games = json.loads(res.stdout)
    for g in games:
        state = game.replay(g["preset"], g["options"], g["seed"], g["players"], g["log"],
                            started_at=0.0, words=g["words"])
        assert game.state_bytes(state).decode() == g["bytes"], g["preset"]
        assert json.loads(g["bytes"])["phase"] == "over", g["preset"]
        kinds = {e["action"]["type"] for e in g["log"]}
        assert "table_vote" in kinds, g["preset"]
    assert "table_word_vote" in {e["action"]["type"] for e in games[1]["log"]}
    assert {"peek", "bite"} <= {e["action"]["type"] for e in games[3]["log"]}
