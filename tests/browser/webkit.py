"""Drive Debian's WebKitGTK (MiniBrowser) through WebKitWebDriver: classic W3C WebDriver
over HTTP, a few commands on urllib. It needs a display: the driver starts its own Xvfb
on a free display number and stops it. Element clicks are real (synthesised mouse
events in the web process), so they count as gestures.

WebKitGTK is the closest engine to iOS Safari that runs here: same WebCore, same
autoplay and gesture rules, a different port (no Safari UI, and Debian's build has no
WebRTC: no RTCPeerConnection, which the page must then say in plain words).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

DRIVER = shutil.which("WebKitWebDriver") or "/usr/bin/WebKitWebDriver"
XVFB = shutil.which("Xvfb") or "/usr/bin/Xvfb"
MINIBROWSER = next((str(p) for p in Path("/usr/lib").glob("*/webkit2gtk-4.*/MiniBrowser")), "")
ELEMENT = "element-6066-11e4-a52e-4f735466cecf"
# Collects the document's uncaught errors and unhandled promise rejections.
ERROR_TRAP = """(() => {
  if (window.__wkErrors) return true;
  window.__wkErrors = [];
  addEventListener("error", (e) => window.__wkErrors.push(String(e.message || e.error)));
  addEventListener("unhandledrejection", (e) => window.__wkErrors.push("unhandled: " + String(e.reason)));
  return true;
})()"""


def available() -> bool:
    return all(os.path.exists(p) for p in (DRIVER, XVFB)) and bool(MINIBROWSER)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _free_display() -> int:
    for n in range(90, 190):
        if not os.path.exists(f"/tmp/.X{n}-lock") and not os.path.exists(f"/tmp/.X11-unix/X{n}"):
            return n
    raise RuntimeError("no free X display number")


class WebKit:
    """One MiniBrowser window (phone-sized) on its own Xvfb, driven by WebKitWebDriver."""

    def __init__(self, width: int = 360, height: int = 740) -> None:
        self.xvfb = self.driver = None
        self.session = None
        try:
            self.display = _free_display()
            self.xvfb = subprocess.Popen(
                [XVFB, f":{self.display}", "-screen", "0", "1024x900x24", "-nolisten", "tcp"],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            deadline = time.monotonic() + 20
            while not os.path.exists(f"/tmp/.X11-unix/X{self.display}"):
                if self.xvfb.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("Xvfb did not start")
                time.sleep(0.05)
            self.port = _free_port()
            env = {**os.environ, "DISPLAY": f":{self.display}", "WEBKIT_DISABLE_COMPOSITING_MODE": "1",
                   "LANGUAGE": "it", "LANG": "it_IT.UTF-8"}
            self.driver = subprocess.Popen([DRIVER, f"--port={self.port}", "--host=127.0.0.1"], env=env,
                                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            deadline = time.monotonic() + 20
            while True:
                try:
                    self._http("GET", "/status")
                    break
                except OSError:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.1)
            caps = {"browserName": "MiniBrowser", "acceptInsecureCerts": True,
                    "webkitgtk:browserOptions": {"binary": MINIBROWSER, "args": ["--automation"]}}
            self.session = self._http("POST", "/session", {"capabilities": {"alwaysMatch": caps}},
                                      timeout=60)["sessionId"]
            self.cmd("POST", "/window/rect", {"width": width, "height": height})
        except BaseException:
            self.close()
            raise

    # ---- protocol ----
    def _http(self, method: str, path: str, body: Any = None, timeout: float = 30.0) -> Any:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=timeout) as resp:
                return json.loads(resp.read() or b"{}").get("value")
        except urllib.error.HTTPError as err:
            raise RuntimeError(f"{method} {path}: {err.read()[:500]!r}") from None

    def cmd(self, method: str, path: str, body: Any = None, timeout: float = 30.0) -> Any:
        return self._http(method, f"/session/{self.session}{path}",
                          {} if body is None and method == "POST" else body, timeout)

    # ---- the page ----
    def goto(self, url: str) -> None:
        """Open `url`, then trap the document's uncaught errors (see `errors`)."""
        self.cmd("POST", "/url", {"url": url}, timeout=90)
        self.js(ERROR_TRAP)

    @property
    def errors(self) -> list[str]:
        """The page's uncaught errors and unhandled rejections since `goto`. (Classic
        WebDriver has no log of them and no script that runs before the page's own: the
        trap is set once the page loaded, which for this single-page app is before any
        room or game screen is drawn.)"""
        return self.js("window.__wkErrors || []")

    def js(self, expr: str, *args) -> Any:
        """The value of `expr` (`args` as args[0..], as in tests/browser/firefox.py)."""
        return self.cmd("POST", "/execute/sync",
                        {"script": f"const args = arguments; return ({expr});", "args": list(args)})

    def state(self, expr: str) -> Any:
        return self.js(f"(() => {{ if (!window.__sussurro) return null; const s = window.__sussurro.state; "
                       f"return {expr}; }})()")

    def find(self, selector: str, timeout: float = 15.0) -> str:
        deadline = time.monotonic() + timeout
        while True:
            found = self.cmd("POST", "/elements", {"using": "css selector", "value": selector})
            for el in found or []:
                eid = el[ELEMENT]
                try:
                    if self.cmd("GET", f"/element/{eid}/displayed"):
                        return eid
                except RuntimeError:
                    pass   # redrawn between the two calls
            if time.monotonic() > deadline:
                raise AssertionError(f"no visible {selector!r} in {timeout} s")
            time.sleep(0.1)

    def wait(self, selector: str, timeout: float = 15.0) -> None:
        self.find(selector, timeout)

    def click(self, selector: str) -> None:
        """A real click on the first visible match, scrolled to the middle of the screen
        first as a person would (WebDriver clicks the centre of an element only partly in
        view, which the lobby's sticky start button may cover); found again (at most
        twice) when the page redrew it between the look and the click (a view's update
        redraws a region)."""
        for attempt in range(3):
            try:
                eid = self.find(selector)
                self.js("args[0].scrollIntoView({block: 'center'})", {ELEMENT: eid})
                self.cmd("POST", f"/element/{eid}/click")
                return
            except RuntimeError as err:
                if "stale" not in str(err) or attempt == 2:
                    raise

    def fill(self, selector: str, text: str) -> None:
        eid = self.find(selector)
        self.cmd("POST", f"/element/{eid}/clear")
        self.cmd("POST", f"/element/{eid}/value", {"text": text})

    def text(self, selector: str) -> str:
        return self.js("document.querySelector(args[0])?.innerText ?? null", selector)

    def count(self, selector: str) -> int:
        return self.js("document.querySelectorAll(args[0]).length", selector)

    def close(self) -> None:
        try:
            if self.session:
                try:
                    self._http("DELETE", f"/session/{self.session}", timeout=15)
                except (OSError, RuntimeError):
                    pass
        finally:
            for proc in (self.driver, self.xvfb):
                if proc is not None and proc.poll() is None:
                    proc.terminate()
                    try:
                        proc.wait(timeout=10)
                    except subprocess.TimeoutExpired:
                        proc.kill()
                        proc.wait(timeout=10)
