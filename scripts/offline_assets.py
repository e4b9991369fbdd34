#!/usr/bin/env python3
"""Build what the one-phone page needs offline: Pyodide and the game core archive.

    python scripts/offline_assets.py            # fetch Pyodide (once), pack the core
    python scripts/offline_assets.py --check    # say what is there, change nothing

Writes `offline-build/` (ignored by git; the server serves it under /offline/):

- `pyodide-<version>/`: only the files the page loads, taken from the npm
  package `pyodide` (registry.npmjs.org). The tarball is fetched with Python
  alone (no node), its sha512 checked against the registry's `dist.integrity`
  and against the value pinned below; a mismatch stops the build.
- `core.zip`: the `game` package with its languages' data (game/langs/ and the
  language folders `SUSSURRO_LANGS_DIR` names, as the server reads them) and the
  pure-Python distributions it imports (found from the imports of game/ and checked
  against pyproject.toml's dependencies), unpacked by the page into
  Pyodide's site-packages. A dependency with compiled parts keeps only its
  Python files (it must run without them: tests/offline checks `import
  game` from this archive under CPython with a clean sys.path).
- `*.gz` beside the big files, served to browsers that accept gzip.
- `manifest.json`: every file with its size and sha256, and the version.

Needs Python 3.11+ with the project installed (the dependencies are read from
the installed distributions) and, the first time, the npm registry.
"""

from __future__ import annotations

import argparse
import ast
import base64
import gzip
import hashlib
import io
import json
import os
import re
import shutil
import sys
import tarfile
import tomllib
import urllib.request
import zipfile
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = Path(os.environ.get("SUSSURRO_OFFLINE_DIR") or ROOT / "offline-build")

# The one place the Pyodide version is pinned (with the registry's sha512 of its tarball).
PYODIDE_VERSION = "0.28.3"
PYODIDE_INTEGRITY = (
    "sha512-rtCsyTU55oNGpLzSVuAd55ZvruJDEX8o6keSdWKN9jPeBVSNlynaKFG7eRqkiIgU7i2M6HEgYtm0atCEQX3u4A=="
)
REGISTRY = os.environ.get("SUSSURRO_NPM_REGISTRY", "https://registry.npmjs.org")
# What the page loads of the npm package (no source maps, types, consoles).
PYODIDE_FILES = (
    "pyodide.js",            # the classic-script loader (the core runs in a classic worker)
    "pyodide.asm.js",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "pyodide-lock.json",     # read by loadPyodide at start-up (no package is loaded from it)
)
GZIP_MIN = 16 * 1024
CACHE = "build-cache"  # the build's own intermediate files in OUT: never served
# Imports of game/ the page does without: game.lemmas reads the dictionaries
# re-packed with zlib (`lemma_files`) when simplemma cannot load, and it cannot
# in the page (its dictionaries are lzma files; Pyodide's npm package has no lzma).
PAGE_LEAVES_OUT = {"simplemma"}
# Word-data trimming: a distribution that ships data for many languages keeps ours only.
LANG_DATA = {
    "simplemma": re.compile(r"(^|/)data/(?P<lang>[a-z]{2,3})\.plzma$"),
    # emoji's names in other languages, read only by emojize/demojize with a language
    # (game.text asks is_emoji and replace_emoji, which read emoji.json alone)
    "emoji": re.compile(r"(^|/)unicode_codes/emoji_(?P<lang>[a-z]{2,3})\.json$"),
}


# ---------------------------------------------------------------- Pyodide


def _sha512_sri(data: bytes) -> str:
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()


def _get(url: str) -> bytes:
    req = urllib.request.Request(url, headers={"User-Agent": "sussurro-setup"})
    with urllib.request.urlopen(req, timeout=120) as res:
        return res.read()


def pyodide_dir() -> Path:
    return OUT / f"pyodide-{PYODIDE_VERSION}"


def npm_tarball(package: str, version: str, pinned: str, who: str = "offline") -> bytes:
    """An npm package's tarball from the registry, its sha512 checked against the
    registry's `dist.integrity` and the value pinned here (scripts/test_tools.py too)."""
    meta = json.loads(_get(f"{REGISTRY}/{package}/{version}"))
    integrity = meta["dist"]["integrity"]
    if integrity != pinned:
        raise SystemExit(f"{package} {version}: the registry says {integrity}, pinned {pinned}")
    print(f"{who}: fetching {package} {version} from the npm registry", file=sys.stderr)
    blob = _get(meta["dist"]["tarball"])
    if _sha512_sri(blob) != integrity:
        raise SystemExit(f"{package} {version}: the tarball does not match its integrity")
    return blob


def fetch_pyodide() -> Path:
    """The pinned Pyodide's page files in `offline-build/pyodide-<v>/` (fetched once)."""
    dest = pyodide_dir()
    if all((dest / f).is_file() for f in PYODIDE_FILES):
        return dest
    blob = npm_tarball("pyodide", PYODIDE_VERSION, PYODIDE_INTEGRITY)
    tmp = dest.with_name(dest.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    with tarfile.open(fileobj=io.BytesIO(blob), mode="r:gz") as tar:
        for name in PYODIDE_FILES:
            member = tar.getmember(f"package/{name}")
            src = tar.extractfile(member)
            assert src is not None
            (tmp / name).write_bytes(src.read())
    shutil.rmtree(dest, ignore_errors=True)
    tmp.rename(dest)
    return dest


# ---------------------------------------------------------------- the core's dependencies


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def declared_dependencies() -> dict[str, str]:
    """pyproject.toml's runtime dependencies: normalised name -> requirement text."""
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    out = {}
    for req in data["project"]["dependencies"]:
        name = re.match(r"[A-Za-z0-9_.\-]+", req).group(0)
        out[_norm(name)] = req
    return out


def game_imports(package: Path | None = None) -> set[str]:
    """Top-level modules imported anywhere in game/ that are neither stdlib nor game."""
    package = package or ROOT / "game"
    found: set[str] = set()
    for path in sorted(package.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found.update(a.name.split(".")[0] for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.add(node.module.split(".")[0])
    return {m for m in found if m != "game" and m not in sys.stdlib_module_names}


def _requirement_names(dist: metadata.Distribution) -> list[str]:
    """Names a distribution requires for a plain install (no extras; markers checked when
    `packaging` is at hand, else a requirement with a marker is left out)."""
    names = []
    for req in dist.requires or []:
        if "extra ==" in req.replace(" ", " "):
            continue
        name, _, marker = req.partition(";")
        if marker.strip():
            try:
                from packaging.markers import Marker

                if not Marker(marker.strip()).evaluate():
                    continue
            except ImportError:
                continue
        names.append(_norm(re.match(r"[A-Za-z0-9_.\-]+", name.strip()).group(0)))
    return names


def core_distributions() -> list[metadata.Distribution]:
    """The distributions `game` needs at run time: those providing its imports, and what
    they require in turn. Each direct one must be declared in pyproject.toml."""
    declared = declared_dependencies()
    providers = metadata.packages_distributions()
    wanted: list[str] = []
    for module in sorted(game_imports() - PAGE_LEAVES_OUT):
        dists = providers.get(module)
        if not dists:
            raise SystemExit(f"offline: game imports {module!r}, which no installed "
                             "distribution provides (is the project installed?)")
        name = _norm(dists[0])
        if name not in declared:
            raise SystemExit(f"offline: game imports {module!r} from {dists[0]!r}, "
                             "not a dependency in pyproject.toml")
        wanted.append(name)
    seen: dict[str, metadata.Distribution] = {}
    while wanted:
        name = wanted.pop(0)
        if name in seen:
            continue
        dist = metadata.distribution(name)
        seen[name] = dist
        wanted.extend(_requirement_names(dist))
    return [seen[k] for k in sorted(seen)]


def _keep(dist_name: str, rel: str, langs: tuple[str, ...]) -> bool:
    """Whether a file of a distribution goes into the archive."""
    if ".dist-info/" in rel or ".egg-info/" in rel or "__pycache__/" in rel:
        return False
    if rel.endswith((".pyc", ".so", ".pyd", ".dll", ".dylib", ".pyi")) or rel.endswith("py.typed"):
        return False
    if rel.startswith("../") or "/tests/" in f"/{rel}" or rel.startswith("bin/"):
        return False
    pattern = LANG_DATA.get(_norm(dist_name))
    if pattern is not None:
        m = pattern.search(rel)
        if m and m.group("lang") not in langs:
            return False
    return True


def dist_files(dist: metadata.Distribution, langs: tuple[str, ...]) -> list[tuple[str, Path]]:
    """(archive path, file) for every file of `dist` the core needs in the browser."""
    out = []
    for f in dist.files or []:
        rel = str(f).replace(os.sep, "/")
        if _keep(dist.metadata["Name"], rel, langs):
            out.append((rel, Path(dist.locate_file(f))))
    return out


def compiled_parts(dist: metadata.Distribution) -> list[str]:
    """Compiled extension modules of a distribution (left out of the archive)."""
    return [str(f) for f in dist.files or [] if str(f).endswith((".so", ".pyd"))]


def game_files() -> list[tuple[str, Path]]:
    """The game package: its Python files and its languages' data (game/langs/<code>/*.json;
    not ui/: the page's strings are /i18n/'s, cached by its service worker)."""
    base = ROOT / "game"
    out = []
    for path in sorted(base.rglob("*")):
        rel = path.relative_to(ROOT).as_posix()
        if (path.is_file() and "__pycache__" not in rel and path.suffix in (".py", ".json")
                and "/ui/" not in rel):
            out.append((rel, path))
    return out


def extra_lang_files(langs: list) -> list[tuple[str, Path]]:
    """The data of the languages read from outside game/langs/ (game.languages' Language
    objects), packed where the page's core finds its own: game/langs/<code>/<file>.json."""
    out = []
    for lang in langs:
        for path in sorted(lang.folder.glob("*.json")):  # not ui/ (see game_files)
            out.append((f"game/langs/{lang.code}/{path.name}", path))
    return out


def bridge_files() -> list[tuple[str, Path]]:
    """The page's Python side (web/offline/sussurro_offline.py): calls in, JSON out."""
    path = ROOT / "web" / "offline" / "sussurro_offline.py"
    return [("sussurro_offline.py", path)]


def lemma_files(langs: tuple[str, ...]) -> list[tuple[str, Path]]:
    """simplemma's dictionaries of our languages re-packed with zlib for game.lemmas
    (`game/lemma_data/<lang>.txt.z`); written once per simplemma version and dictionary,
    in the build's cache wherever the archive goes (a test's archive in a temporary folder
    reuses them). A language naming a dictionary simplemma has not goes without lemmas."""
    from importlib import metadata

    from simplemma.strategies.dictionaries.dictionary_factory import SUPPORTED_LANGUAGES

    from game import languages, lemmas

    where = OUT / CACHE / f"lemmas-simplemma-{metadata.version('simplemma')}"
    out = []
    for lang in langs:
        source = languages.get(lang).family.lemmas
        if source not in SUPPORTED_LANGUAGES:
            print(f"offline: warning: {lang} names lemmas {source!r}, which simplemma has "
                  "not: no lemmas for it on the page", file=sys.stderr)
            continue
        path = where / f"{source}.txt.z"
        if not path.is_file():
            where.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(".tmp")
            tmp.write_bytes(lemmas.pack_dictionary(lemmas.dictionary(lang)))
            os.replace(tmp, path)
        out.append((f"game/{lemmas.PACKED_DIR.name}/{lang}.txt.z", path))
    return out


def pack_core(dest: Path) -> dict:
    """Write `core.zip` (stable bytes: sorted names, fixed dates); return its contents."""
    sys.path.insert(0, str(ROOT))
    from game import languages, lemmas

    # Every language of game/langs/ (game_files packs their data: language.json, pairs.json,
    # impostore.json) and of the extra folders, each with its dictionary when it names one.
    # The server's extra languages (SUSSURRO_LANGS_DIR, read as server/edge/langs.py reads
    # it), which the page's core gets too.
    roots = languages.split_dirs(os.environ.get("SUSSURRO_LANGS_DIR", ""))
    added = [r for r in roots if r not in languages.search_path()]
    for root in added:
        languages.add_dir(root)
    try:
        extra = [x for x in languages.languages() if x.folder.parent in roots]
        sources = tuple(x.family.lemmas for x in languages.languages() if x.family.lemmas)
        entries = (game_files() + extra_lang_files(extra) + bridge_files()
                   + lemma_files(lemmas.langs()))
    finally:
        for root in added:
            languages.remove_dir(root)
    dists = core_distributions()
    report = {"distributions": {}, "compiled_left_out": {},
              "extra_langs": [x.code for x in extra]}
    for dist in dists:
        files = dist_files(dist, sources)
        entries += files
        report["distributions"][dist.metadata["Name"]] = dist.version
        compiled = compiled_parts(dist)
        if compiled:
            report["compiled_left_out"][dist.metadata["Name"]] = len(compiled)
    entries.sort()
    report["files"] = len(entries)
    lock = pyodide_dir() / "pyodide-lock.json"
    if lock.is_file():
        report["not_in_pyodide"] = unvendored_imports(entries, lock)
        for mod, files in report["not_in_pyodide"].items():
            print(f"offline: warning: {mod} is not in Pyodide's npm package; imported by "
                  f"{', '.join(files[:3])}", file=sys.stderr)
    # Unchanged inputs (names, sizes, times, this script): the archive is up to date.
    stamp = hashlib.sha256(Path(__file__).read_bytes())
    for name, path in entries:
        st = path.stat()
        stamp.update(f"{name}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    stamp_file = dest.with_name(dest.name + ".stamp")
    if dest.is_file() and stamp_file.is_file() and stamp_file.read_text() == stamp.hexdigest():
        return report
    tmp = dest.with_suffix(".tmp")
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        for name, path in entries:
            info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, path.read_bytes())
    os.replace(tmp, dest)
    stamp_file.write_text(stamp.hexdigest())
    return report


def unvendored_imports(entries: list[tuple[str, Path]], lock: Path) -> dict[str, list[str]]:
    """Standard-library modules that Pyodide's npm package leaves out (its lock file's
    `cpython_module` entries: lzma, sqlite3, ssl ...) imported by a packed file:
    {module: [files]}. Such an import fails in the page unless a pure path avoids it."""
    data = json.loads(lock.read_text(encoding="utf-8"))
    missing = {name for pkg in data["packages"].values()
               if pkg.get("package_type") == "cpython_module" for name in pkg.get("imports", [])}
    found: dict[str, list[str]] = {}
    for name, path in entries:
        if not name.endswith(".py"):
            continue
        try:
            tree = ast.parse(path.read_bytes(), name)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            mods = ([a.name for a in node.names] if isinstance(node, ast.Import)
                    else [node.module] if isinstance(node, ast.ImportFrom) and node.module
                    and node.level == 0 else [])
            for mod in mods:
                top = mod.split(".")[0]
                if top in missing:
                    found.setdefault(top, []).append(name)
    return {k: sorted(set(v)) for k, v in sorted(found.items())}


# ---------------------------------------------------------------- the manifest


def _gzip(path: Path) -> None:
    gz = path.with_name(path.name + ".gz")
    if gz.exists() and gz.stat().st_mtime >= path.stat().st_mtime:
        return
    data = gzip.compress(path.read_bytes(), compresslevel=9, mtime=0)
    if len(data) < 0.9 * path.stat().st_size:  # archives barely shrink: served as they are
        gz.write_bytes(data)
    else:
        gz.unlink(missing_ok=True)


def write_manifest(report: dict) -> dict:
    """List every served file with its size and sha256 (the page's cache follows it)."""
    files = {}
    for path in sorted(OUT.rglob("*")):
        if (not path.is_file() or path.suffix in (".gz", ".tmp", ".stamp")
                or path.name == "manifest.json"):
            continue
        rel = path.relative_to(OUT).as_posix()
        if rel.startswith(f"{CACHE}/"):
            continue
        if path.stat().st_size >= GZIP_MIN:
            _gzip(path)
        if rel.startswith("pyodide-") and not rel.startswith(f"pyodide-{PYODIDE_VERSION}/"):
            continue  # an older version left behind
        files[rel] = {"size": path.stat().st_size,
                      "sha256": hashlib.sha256(path.read_bytes()).hexdigest()}
    manifest = {"pyodide": PYODIDE_VERSION, "pyodide_dir": f"pyodide-{PYODIDE_VERSION}",
                "files": files, "core": report}
    (OUT / "manifest.json").write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    return manifest


def build() -> dict:
    """Fetch Pyodide if needed, pack the core, write the manifest."""
    OUT.mkdir(parents=True, exist_ok=True)
    fetch_pyodide()
    report = pack_core(OUT / "core.zip")
    return write_manifest(report)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="report what is built, change nothing")
    args = ap.parse_args(argv)
    if args.check:
        path = OUT / "manifest.json"
        if not path.is_file():
            print("offline: not built", file=sys.stderr)
            return 1
        print(path.read_text())
        return 0
    manifest = build()
    total = sum(f["size"] for f in manifest["files"].values())
    print(f"offline: pyodide {manifest['pyodide']}, core {manifest['core']['files']} files "
          f"({', '.join(f'{k} {v}' for k, v in manifest['core']['distributions'].items())}); "
          f"{total / 1e6:.1f} MB in {OUT}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
