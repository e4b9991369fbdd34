"""The one-phone page and everything it needs offline, served under /offline/.

- `/offline/`: the page (web/offline/index.html); `/offline/<file>.js`: its
  modules, its web worker and its service worker (under /offline/ so that
  the service worker's scope and the worker's fetches cover them).
- `/offline/assets/<path>`: what scripts/offline_assets.py built into
  `settings.offline_dir` (Pyodide's page files, the core archive), gzipped
  for browsers that accept it (the `.gz` beside each big file).
- `/offline/manifest.json`: every URL the service worker caches on the first
  visit (the page, the web client's modules, styles and translations, the
  built assets, the languages' manifest and strings of /i18n/) and a version that
  changes when any of them does.

The page itself runs the game core in the browser: nothing here knows a rule.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.responses import FileResponse, JSONResponse, Response

from server.config import Settings
from server.edge.langs import Languages

# Files of web/ the page may load (its modules import the shared ones of web/js); its
# strings are the languages' (server/edge/langs.py), served under /i18n/.
_WEB_PARTS = (("js", ".js"), ("css", ".css"))
_TYPES = {
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".json": "application/json",
    ".wasm": "application/wasm",
    ".zip": "application/zip",
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".png": "image/png",
    ".webmanifest": "application/manifest+json",
}
# The page's own files in web/offline/: its modules, the page, and what installs it on a
# home screen (the web app manifest and its icons). sw.js is not among them: it is the cache.
_PAGE_SUFFIXES = (".js", ".html", ".png", ".webmanifest")
NOT_BUILT = "offline_not_built"
# The web worker running Pyodide compiles WebAssembly: its script (a worker's policy is
# the one delivered with it) allows that and nothing more. Nowhere else is it allowed.
WORKER_CSP = "; ".join((
    "default-src 'self'",
    "script-src 'self' 'wasm-unsafe-eval'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
))


def _hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def page_files(web_dir: Path) -> list[Path]:
    """The files of web/offline/ the page loads (sw.js aside), sorted."""
    return [p for p in sorted((web_dir / "offline").iterdir())
            if p.suffix in _PAGE_SUFFIXES and p.name != "sw.js"]


def build_manifest(web_dir: Path, offline_dir: Path, langs: Languages) -> dict | None:
    """The service worker's list of URLs and the version of the whole set (None: the
    assets are not built)."""
    built = offline_dir / "manifest.json"
    if not built.is_file():
        return None
    assets = json.loads(built.read_text(encoding="utf-8"))
    entries: dict[str, str] = {}
    for path in page_files(web_dir):
        url = "/offline/" if path.name == "index.html" else f"/offline/{path.name}"
        entries[url] = _hash(path)
    for sub, suffix in _WEB_PARTS:
        for path in sorted((web_dir / sub).rglob(f"*{suffix}")):
            entries["/static/" + path.relative_to(web_dir).as_posix()] = _hash(path)
    for url, data in langs.files().items():
        entries[url] = hashlib.sha256(data).hexdigest()
    for rel, info in sorted(assets["files"].items()):
        entries[f"/offline/assets/{rel}"] = info["sha256"]
    version = hashlib.sha256(json.dumps(entries, sort_keys=True).encode()).hexdigest()[:16]
    return {
        "version": version,
        "pyodide": f"/offline/assets/{assets['pyodide_dir']}/",
        "core": "/offline/assets/core.zip",
        "urls": list(entries),
        "bytes": sum(info["size"] for info in assets["files"].values()),
    }


def mount_offline(app: FastAPI, settings: Settings, langs: Languages) -> None:
    """Add the /offline/ routes to `app`."""
    web_dir = Path(settings.web_dir)
    page_dir = web_dir / "offline"
    offline_dir = Path(settings.offline_dir)
    cache: dict[str, object] = {}

    def manifest() -> dict | None:
        # Built once (the assets do not change under a running server); retried while absent.
        if cache.get("manifest") is None:
            cache["manifest"] = build_manifest(web_dir, offline_dir, langs)
        return cache["manifest"]  # type: ignore[return-value]

    def page_file(name: str) -> Response:
        path = page_dir / name
        if not path.is_file():
            return JSONResponse({"code": "not_found", "message": "no such file"}, status_code=404)
        headers = {"Cache-Control": "no-cache"}
        if name == "worker.js":
            headers["Content-Security-Policy"] = WORKER_CSP
        return FileResponse(path, media_type=_TYPES.get(path.suffix, "text/plain"),
                            headers=headers)

    @app.get("/offline")
    async def offline_redirect():
        return Response(status_code=308, headers={"Location": "/offline/"})

    @app.get("/offline/")
    async def offline_page():
        return page_file("index.html")

    @app.get("/offline/manifest.json")
    async def offline_manifest():
        m = manifest()
        if m is None:
            return JSONResponse({"code": NOT_BUILT,
                                 "message": "run ./scripts/setup.sh to build the offline files"},
                                status_code=503, headers={"Cache-Control": "no-store"})
        return JSONResponse(m, headers={"Cache-Control": "no-cache"})

    def built_files() -> set[str]:
        # Only what the build listed is served (never a stamp, a temporary or a stray file).
        if cache.get("files") is None:
            path = offline_dir / "manifest.json"
            if not path.is_file():
                return set()
            cache["files"] = set(json.loads(path.read_text(encoding="utf-8"))["files"])
        return cache["files"]  # type: ignore[return-value]

    @app.get("/offline/assets/{rel:path}")
    async def offline_asset(rel: str, request: Request):
        path = offline_dir / rel
        if rel not in built_files() or not path.is_file():
            return JSONResponse({"code": "not_found", "message": "no such file"}, status_code=404)
        # Versioned folders never change; the core archive and manifest are revalidated.
        immutable = path.parent.name.startswith("pyodide-")
        headers = {
            "Cache-Control": "public, max-age=31536000, immutable" if immutable else "no-cache",
            "Vary": "Accept-Encoding",
        }
        media = _TYPES.get(path.suffix, "application/octet-stream")
        gz = path.with_name(path.name + ".gz")
        if "gzip" in request.headers.get("accept-encoding", "") and gz.is_file():
            return FileResponse(gz, media_type=media,
                                headers={**headers, "Content-Encoding": "gzip"})
        return FileResponse(path, media_type=media, headers=headers)

    @app.get("/offline/{name}")
    async def offline_module(name: str):
        if Path(name).suffix not in (".js", ".png", ".webmanifest") or "/" in name \
                or os.sep in name:
            return JSONResponse({"code": "not_found", "message": "no such file"}, status_code=404)
        return page_file(name)
