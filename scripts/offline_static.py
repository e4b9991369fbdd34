#!/usr/bin/env python3
"""Build the one-phone mode as a static site: no Sussurro server behind it.

    .venv/bin/python scripts/offline_static.py OUT_DIR

OUT_DIR then holds what the server serves under /offline/ and /static/ (the page,
its modules and service worker, the web client's modules, styles and strings (the
languages' manifest and dictionaries of /i18n/, as the server merges them), Pyodide
and the game core, the service worker's list and the web app manifest with its icons),
laid out at the same paths, and an index.html that opens /offline/. Publish OUT_DIR at
the root of any HTTPS static host (docs/deploy.md, "One phone, offline"); a phone that
opens it once can install it on its home screen and play with no network.

The Pyodide and core files come from offline-build/ (scripts/offline_assets.py, run
here first: it fetches Pyodide from the npm registry once, then only repacks the core).
`--icons` draws the home-screen icons again into web/offline/ (they are committed).
"""

from __future__ import annotations

import argparse
import json
import shutil
import struct
import sys
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from server.config import load_settings  # noqa: E402
from server.edge.langs import Languages, languages_for  # noqa: E402
from server.edge.offline import build_manifest, page_files  # noqa: E402

WEB = ROOT / "web"
BUILT = ROOT / "offline-build"
ICON_SIZES = (192, 512)

INDEX = """<!doctype html>
<html lang="it"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="refresh" content="0; url=offline/">
<title>Sussurro</title></head>
<body><p><a href="offline/">Sussurro · Un solo telefono</a></p></body></html>
"""


def _png(width: int, height: int, rows: list[bytes]) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))
    raw = b"".join(b"\0" + row for row in rows)
    return (b"\x89PNG\r\n\x1a\n"
            + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def icon_png(size: int) -> bytes:
    """The page's face (its favicon: an orange face, a dark mouth) on the page's dark
    background, inside the middle 80% so that a "maskable" crop keeps it whole."""
    bg, face, mouth = (0x17, 0x13, 0x2A), (0xFF, 0xB7, 0x4D), (0x3A, 0x10, 0x20)
    c, r = size / 2, size * 0.36
    mx, my, rx, ry = c, c + size * 0.15, size * 0.12, size * 0.05
    n = 3  # subsamples a side, for smooth edges

    def colour(x: float, y: float) -> tuple[int, int, int]:
        if ((x - mx) / rx) ** 2 + ((y - my) / ry) ** 2 <= 1:
            return mouth
        if (x - c) ** 2 + (y - c) ** 2 <= r * r:
            return face
        return bg

    rows = []
    for j in range(size):
        row = bytearray()
        for i in range(size):
            acc = [0, 0, 0]
            for sj in range(n):
                for si in range(n):
                    px = colour(i + (si + 0.5) / n, j + (sj + 0.5) / n)
                    for k in range(3):
                        acc[k] += px[k]
            row += bytes(round(a / (n * n)) for a in acc) + b"\xff"
        rows.append(bytes(row))
    return _png(size, size, rows)


def write_icons(folder: Path) -> None:
    for size in ICON_SIZES:
        (folder / f"icon-{size}.png").write_bytes(icon_png(size))


def build_static(out: Path, web_dir: Path = WEB, offline_dir: Path = BUILT,
                 langs: Languages | None = None) -> dict:
    """Write the static site into `out` (emptied first); its service worker list.
    `langs`: the languages to publish (default: the server's, SUSSURRO_LANGS_DIR included)."""
    langs = langs or languages_for(load_settings())
    manifest = build_manifest(web_dir, offline_dir, langs)
    if manifest is None:
        raise SystemExit(f"{offline_dir} is not built: run scripts/offline_assets.py")
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    page = out / "offline"
    page.mkdir()
    for path in page_files(web_dir):
        shutil.copy2(path, page / path.name)
    shutil.copy2(web_dir / "offline" / "sw.js", page / "sw.js")
    built = json.loads((offline_dir / "manifest.json").read_text(encoding="utf-8"))
    for url in manifest["urls"]:
        if url.startswith("/static/"):
            src, dst = web_dir / url[len("/static/"):], out / url.lstrip("/")
        elif url.startswith("/offline/assets/"):
            rel = url[len("/offline/assets/"):]
            if rel not in built["files"]:
                continue
            src, dst = offline_dir / rel, out / url.lstrip("/")
        else:
            continue  # the page's own files, copied above; the languages' below
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dst)
    for url, data in langs.files().items():
        dst = out / url.lstrip("/")
        dst.parent.mkdir(parents=True, exist_ok=True)
        dst.write_bytes(data)
    (page / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    (out / "index.html").write_text(INDEX, encoding="utf-8")
    return manifest


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", nargs="?", help="the folder to write (emptied first)")
    ap.add_argument("--icons", action="store_true", help="draw web/offline/icon-*.png again")
    ap.add_argument("--no-assets", action="store_true",
                    help="use offline-build/ as it is (do not run scripts/offline_assets.py)")
    args = ap.parse_args(argv)
    if args.icons:
        write_icons(WEB / "offline")
        return 0
    if not args.out:
        ap.error("OUT_DIR is needed")
    if not args.no_assets:
        sys.path.insert(0, str(ROOT / "scripts"))
        import offline_assets

        offline_assets.main([])
    out = Path(args.out).resolve()
    manifest = build_static(out)
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    print(f"offline static site: {len(manifest['urls'])} files, {size / 1e6:.1f} MB in {out}; "
          "publish it at the root of an HTTPS static host (docs/deploy.md)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
