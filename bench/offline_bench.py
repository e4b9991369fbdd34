"""The one-phone page (issue 11): bytes of the first visit, cached starts, one `apply`.

Prints one JSON object. Run: .venv/bin/python bench/offline_bench.py [--applies N]
Needs offline-build/ (./scripts/setup.sh) and Debian's chromium. Method: bench/README.md.
Never asserted by the tests: timings on a shared machine are too noisy.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import game  # noqa: E402
from tests.browser.onephone import launch, wait_playable  # noqa: E402
from tests.support.server_proc import ServerProc, free_port  # noqa: E402


class CountingProxy:
    """A TCP proxy in front of the server counting every byte sent to the browser
    (the page, its worker and its service worker alike, compressed as sent)."""

    def __init__(self, target_port: int) -> None:
        self.target = target_port
        self.port = free_port()
        self.down = 0
        self.loop = asyncio.new_event_loop()
        self.ready = threading.Event()
        threading.Thread(target=self._run, daemon=True).start()
        self.ready.wait(10)

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)

        async def pipe(reader, writer, count):
            try:
                while data := await reader.read(65536):
                    if count:
                        self.down += len(data)
                    writer.write(data)
                    await writer.drain()
            except (ConnectionError, asyncio.CancelledError):
                pass
            finally:
                writer.close()

        async def handle(cr, cw):
            try:
                sr, sw = await asyncio.open_connection("127.0.0.1", self.target)
            except OSError:
                cw.close()
                return
            await asyncio.gather(pipe(cr, sw, False), pipe(sr, cw, True))

        async def main():
            self.server = await asyncio.start_server(handle, "127.0.0.1", self.port)
            self.ready.set()
            await self.server.serve_forever()

        self.loop.run_until_complete(main())

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"


def start_ms(page) -> dict:
    t = page.evaluate("window.__onephone.timings")
    return {"page_to_playable_ms": round(t["sinceNavigation"]),
            "core_ms": t["core"]["ms"], "core_parts_ms": t["core"]["parts"]}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--applies", type=int, default=30)
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    out: dict = {}
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        tmp = Path(tmp)
        with ServerProc(tmp / "s.db") as srv:
            proxy = CountingProxy(srv.port)
            ctx, page, _ = launch(pw, tmp / "profile")
            t0 = time.perf_counter()
            page.goto(proxy.url("/offline/"))
            wait_playable(page, timeout=300_000)
            page.wait_for_selector("#offline-status[data-ready='yes']", timeout=300_000)
            out["first_visit"] = {"bytes_downloaded": proxy.down,
                                  "wall_s": round(time.perf_counter() - t0, 2), **start_ms(page)}
            manifest = json.loads((Path(game.__file__).parents[1] / "offline-build" /
                                   "manifest.json").read_text())
            out["offline_files_uncompressed_bytes"] = sum(f["size"] for f in manifest["files"].values())
            before = proxy.down
            page.reload()
            wait_playable(page)
            out["cached_reload"] = {**start_ms(page), "bytes_downloaded": proxy.down - before}
            ctx.close()
        # Cold start of the browser with no server at all.
        ctx, page, _ = launch(pw, tmp / "profile")
        ctx.set_offline(True)
        page.goto(proxy.url("/offline/"))
        wait_playable(page)
        out["cold_start_offline"] = start_ms(page)

        # Lemmas in the page: the first lookup reads the language's dictionary (zlib path).
        lem = page.evaluate("""async () => {
          const out = {};
          for (const [w, lang] of [["gatti", "it"], ["chevaux", "fr"], ["knives", "en"]]) {
            const t0 = performance.now();
            out[lang] = [await window.__onephone.call("lemma", {word: w, lang})];
            out[lang].push(Math.round(performance.now() - t0));
            const t1 = performance.now();
            await window.__onephone.call("lemma", {word: w + "x", lang});
            out[lang].push(Math.round((performance.now() - t1) * 100) / 100);
          }
          return out;
        }""")
        out["lemmas_in_page"] = {
            "what": "[lemma, first lookup ms (reads the dictionary), next lookup ms] per language",
            **lem}

        # One apply: the same game and actions in the page (Pyodide) and in CPython.
        players = [{"id": f"p{i}", "name": f"N{i}"} for i in range(8)]
        opts = game.validate_options("intruso", {"one_phone": True, "powers": []}, 8)
        page.evaluate("""async ([opts, players]) => {
          await window.__onephone.call("start", {preset: "intruso", options: opts, seed: 5, players, now: 0});
        }""", [opts, players])
        state = game.new_game("intruso", opts, 5, players, 0.0,
                              words=game.draw_words("intruso", opts, 5))
        py_ms, rt_ms, cpy_ms = [], [], []
        for i in range(args.applies):
            pub = game.view(state, None)
            if pub["phase"] != "clues":
                break
            action = {"type": "done"}
            res = page.evaluate("""async ([pid, action, now]) => {
              const t0 = performance.now();
              await window.__onephone.call("act", {player: pid, action, now});
              return [performance.now() - t0, window.__onephone.lastCallMs()];
            }""", [pub["turn"], action, float(i + 1)])
            rt_ms.append(res[0])
            py_ms.append(res[1])
            t1 = time.perf_counter()
            state, _ = game.apply(state, pub["turn"], action, float(i + 1))
            game.view(state, None)
            for pl in players:
                game.view(state, pl["id"])
            cpy_ms.append((time.perf_counter() - t1) * 1000)
        ctx.close()
    out["apply_plus_views"] = {
        "what": "one `done` action, then the public view and all 8 seats' views (what the page asks)",
        "n": len(py_ms),
        "pyodide_in_worker_ms_median": round(statistics.median(py_ms), 2),
        "pyodide_round_trip_ms_median": round(statistics.median(rt_ms), 2),
        "cpython_ms_median": round(statistics.median(cpy_ms), 3),
    }
    out["goals"] = {"cached_start_ms": 3000, "first_visit_bytes": 15_000_000}
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
