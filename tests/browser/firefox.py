"""Drive Debian's Firefox ESR over WebDriver BiDi: a small synchronous client of its own.

Why not Playwright: Playwright drives only its own patched Firefox build (Juggler), which
cannot be downloaded here. Why not puppeteer-core: it would add Node and an npm package to
a Python suite whose bots, server and spectrum checks all live in pytest. Firefox ships a
WebDriver BiDi remote agent (`--remote-debugging-port`), a JSON protocol over one
WebSocket; the handful of commands a player needs fit in this file, on the `websockets`
package the server already depends on. Nothing is downloaded at run time.

Clicks and typing go through `input.performActions`: real pointer and key events, which
count as user gestures (autoplay, the microphone), unlike a script's `el.click()`.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import shutil
import subprocess
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

from websockets.sync.client import connect

FIREFOX = shutil.which("firefox-esr") or shutil.which("firefox") or "/usr/bin/firefox-esr"

# A fresh profile's user.js: no first-run noise, loopback WebRTC like Chromium's
# --allow-loopback-in-peer-connection, and (for `fake_mic`) Firefox's own fake
# microphone with no permission prompt. The autoplay policy stays Firefox's default:
# the page must earn its sound with real gestures, as on a phone.
BASE_PREFS: dict[str, Any] = {
    "browser.shell.checkDefaultBrowser": False,
    "browser.startup.homepage_override.mstone": "ignore",
    "datareporting.policy.dataSubmissionEnabled": False,
    "toolkit.telemetry.reportingpolicy.firstRun": False,
    "app.update.disabledForTesting": True,
    "network.captive-portal-service.enabled": False,
    "network.connectivity-service.enabled": False,
    # The server offers loopback candidates only (tests/support/server_proc.py). These
    # let a page's peer gather 127.0.0.1 in Chromium's way, but not in Firefox ESR 153's:
    # a page's addresses come from the parent process, which drops loopback whatever the
    # profile says (docs/browsers.md); `turn_over_loopback` is how a test's Firefox voice
    # stays on loopback. Host addresses are written out, not hidden behind mDNS names.
    "media.peerconnection.ice.loopback": True,
    "media.peerconnection.ice.obfuscate_host_addresses": False,
    "media.peerconnection.ice.default_address_only": False,
    "intl.accept_languages": "it-IT, it",
    # Why the page's AudioContext stayed "suspended" after real taps: this machine has no
    # sound device (no ALSA card, no PulseAudio). Firefox's audio graph runs on its output
    # stream (cubeb); with none it never starts, so every AudioContext stays "suspended"
    # and resume() neither resolves nor rejects, gesture or not. (Headless Chromium has a
    # fake output of its own.) A phone always has a speaker: the test browser gets
    # Firefox's mock output device, which runs the graph on a clock and plays nowhere.
    "media.cubeb.force_mock_context": True,
}
FAKE_MIC_PREFS: dict[str, Any] = {
    "media.navigator.streams.fake": True,
    "media.navigator.permission.disabled": True,
    "media.navigator.audio.fake_frequency": 1000,
}
# Firefox's fake microphone is a steady sine (MediaEngineFake: 1 kHz by default).
FAKE_TONE_HZ = 1000.0


def turn_over_loopback(turn_port: int, proxy_port: int) -> dict[str, Any]:
    """Prefs that keep Firefox's voice on loopback: its WebRTC reaches the TURN server at
    127.0.0.1:`turn_port` through the CONNECT proxy at 127.0.0.1:`proxy_port`
    (tests/support/connect_proxy.py), and nothing else goes through the proxy.

    Firefox offers no 127.0.0.1 host candidate (see BASE_PREFS), and a direct TURN/TCP
    socket is bound to a host address (coturn sees the machine's 192.0.2.2). Through an
    HTTP proxy the socket is necko's own, from 127.0.0.1; with the page's relay-only
    policy (`?relay=1`) its one candidate is coturn's relay on 127.0.0.1. The proxy
    auto-config names that one port (loopback is proxied at all only with
    `allow_hijacking_localhost`); `proxy_only_if_behind_proxy` sends WebRTC through it."""
    pac = (f"function FindProxyForURL(url, host) {{ return url.indexOf('127.0.0.1:{turn_port}') >= 0 ?"
           f" 'PROXY 127.0.0.1:{proxy_port}' : 'DIRECT'; }}")
    return {
        "network.proxy.type": 2,
        "network.proxy.autoconfig_url": "data:application/x-ns-proxy-autoconfig," + quote(pac),
        "network.proxy.allow_hijacking_localhost": True,
        "media.peerconnection.ice.proxy_only_if_behind_proxy": True,
    }


class BidiError(RuntimeError):
    """A command Firefox refused; `error` is BiDi's error code ("no such node", ...)."""

    def __init__(self, message: str, error: str = "") -> None:
        super().__init__(message)
        self.error = error


# Why an action's origin element could not be tapped because the page replaced it between
# its look-up and the tap (a region redrawn on a state change): BiDi's "stale element" and
# "no such node" codes, or Firefox's "move target out of bounds" for an element that "is
# not displayed" (detached). Firefox refuses the whole action before dispatching any event.
_GONE = ("stale element reference", "no such node", "no such element")


class Firefox:
    """One headless Firefox process with one tab, driven over WebDriver BiDi."""

    def __init__(self, profile: Path, *, fake_mic: bool = True, prefs: dict | None = None,
                 width: int = 360, height: int = 740, env: dict | None = None) -> None:
        profile.mkdir(parents=True, exist_ok=True)
        all_prefs = {**BASE_PREFS, **(FAKE_MIC_PREFS if fake_mic else {}), **(prefs or {})}
        (profile / "user.js").write_text(
            "".join(f"user_pref({json.dumps(k)}, {json.dumps(v)});\n" for k, v in all_prefs.items()))
        self.errors: list[str] = []    # uncaught errors of the page
        self.console: list[str] = []   # console errors and warnings
        self._ids = itertools.count(1)
        self._replies: dict[int, dict] = {}
        self._cond = threading.Condition()
        self.proc = subprocess.Popen(
            [FIREFOX, "--headless", "--no-remote", "--profile", str(profile),
             "--remote-debugging-port=0", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
            env={**os.environ, "MOZ_CRASHREPORTER_DISABLE": "1", **(env or {})})
        try:
            url = self._agent_url(timeout=60)
            self.ws = connect(url + "/session", max_size=64 * 2**20, open_timeout=30)
            self._reader = threading.Thread(target=self._read, daemon=True)
            self._reader.start()
            self.cmd("session.new", capabilities={"alwaysMatch": {"acceptInsecureCerts": True}})
            tree = self.cmd("browsingContext.getTree", maxDepth=0)
            self.context = tree["contexts"][0]["context"]
            self.cmd("browsingContext.setViewport", context=self.context,
                     viewport={"width": width, "height": height})
            self.cmd("session.subscribe", events=["log.entryAdded"])
        except BaseException:
            self.close()
            raise

    # ---- protocol ----
    def _agent_url(self, timeout: float) -> str:
        deadline = time.monotonic() + timeout
        lines = []
        while time.monotonic() < deadline:
            line = self.proc.stderr.readline()
            if not line:
                if self.proc.poll() is not None:
                    break
                continue
            lines.append(line)
            m = re.search(r"WebDriver BiDi listening on (ws://\S+)", line)
            if m:
                # Keep draining stderr so Firefox never blocks on a full pipe.
                threading.Thread(target=lambda: [None for _ in self.proc.stderr], daemon=True).start()
                return m.group(1)
        raise BidiError("Firefox's remote agent did not start: " + "".join(lines[-20:]))

    def _read(self) -> None:
        try:
            while True:
                msg = json.loads(self.ws.recv())
                if "id" in msg:
                    with self._cond:
                        self._replies[msg["id"]] = msg
                        self._cond.notify_all()
                elif msg.get("method") == "log.entryAdded":
                    p = msg["params"]
                    if p.get("type") == "javascript":
                        self.errors.append(p.get("text", ""))
                    elif p.get("level") in ("error", "warn"):
                        self.console.append(p.get("text", ""))
        except Exception:  # the socket closed: pending commands time out below
            pass

    def cmd(self, method: str, timeout: float = 30.0, **params) -> dict:
        i = next(self._ids)
        self.ws.send(json.dumps({"id": i, "method": method, "params": params}))
        deadline = time.monotonic() + timeout
        with self._cond:
            while i not in self._replies:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise BidiError(f"{method}: no reply in {timeout} s")
                self._cond.wait(left)
            msg = self._replies.pop(i)
        if msg.get("type") == "error":
            raise BidiError(f"{method}: {msg.get('error')}: {msg.get('message')}",
                            msg.get("error") or "")
        return msg["result"]

    # ---- the page ----
    def goto(self, url: str) -> None:
        self.cmd("browsingContext.navigate", context=self.context, url=url, wait="complete", timeout=60)

    def reload(self) -> None:
        self.cmd("browsingContext.reload", context=self.context, wait="complete", timeout=60)

    @property
    def url(self) -> str:
        return self.js("location.href")

    def js(self, expr: str, *args) -> Any:
        """The value of `expr` (a function body's expression; `args` as arguments[0..])."""
        return self.call(f"(...args) => ({expr})", *args)

    def call(self, fn: str, *args, element: dict | None = None, await_promise: bool = True) -> Any:
        res = self.cmd("script.callFunction", functionDeclaration=fn, awaitPromise=await_promise,
                       target={"context": self.context},
                       arguments=[{"type": "string", "value": a} if isinstance(a, str) else
                                  {"type": "number", "value": a} for a in args],
                       **({"this": element} if element else {}))
        if res.get("type") == "exception":
            raise BidiError(res["exceptionDetails"].get("text", "exception"))
        return _value(res["result"])

    def element(self, selector: str, timeout: float = 15.0) -> dict:
        """A shared reference to the first visible element matching `selector` (waits)."""
        deadline = time.monotonic() + timeout
        while True:
            res = self.cmd("script.callFunction", awaitPromise=False, target={"context": self.context},
                           functionDeclaration="""(sel) => {
                             const el = document.querySelector(sel);
                             if (!el) return null;
                             const r = el.getBoundingClientRect();
                             return r.width > 0 && r.height > 0 ? el : null; }""",
                           arguments=[{"type": "string", "value": selector}])
            r = res.get("result", {})
            if r.get("type") == "node":
                return {"sharedId": r["sharedId"]}
            if time.monotonic() > deadline:
                raise AssertionError(f"no visible {selector!r} in {timeout} s")
            time.sleep(0.1)

    def wait(self, selector: str, timeout: float = 15.0) -> None:
        self.element(selector, timeout)

    def count(self, selector: str) -> int:
        return self.js("document.querySelectorAll(args[0]).length", selector)

    def text(self, selector: str) -> str:
        return self.js("document.querySelector(args[0])?.innerText ?? null", selector)

    def click(self, selector: str, timeout: float = 15.0) -> None:
        """A real mouse click (pointer down and up) in the middle of the element.

        The page may redraw the element between its look-up and the tap (the lobby's mic
        card is rebuilt when the voice's state changes, right after the room appears):
        Firefox then refuses the action, before any event, for a node that is gone; the
        selector's element is looked up again and tapped, once, as a person taps what the
        screen shows now."""
        deadline = time.monotonic() + timeout
        while True:
            el = self.element(selector, max(deadline - time.monotonic(), 0.1))
            try:
                self.call("function () { this.scrollIntoView({block: 'center'}); }", element=el)
                self.cmd("input.performActions", context=self.context, actions=[{
                    "type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"},
                    "actions": [
                        {"type": "pointerMove", "x": 0, "y": 0,
                         "origin": {"type": "element", "element": el}},
                        {"type": "pointerDown", "button": 0},
                        {"type": "pointerUp", "button": 0},
                    ]}])
                return
            except BidiError as exc:
                if not _gone(exc) or time.monotonic() > deadline:
                    raise
            finally:
                self.cmd("input.releaseActions", context=self.context)

    def fill(self, selector: str, text: str) -> None:
        """Focus the field with a click, clear it, type `text` key by key."""
        self.click(selector)
        self.call("function () { this.select?.(); }", element=self.element(selector))
        keys = [{"type": "keyDown", "value": "\ue003"}, {"type": "keyUp", "value": "\ue003"}]
        for ch in text:
            keys += [{"type": "keyDown", "value": ch}, {"type": "keyUp", "value": ch}]
        self.cmd("input.performActions", context=self.context,
                 actions=[{"type": "key", "id": "keyboard", "actions": keys}])

    def evaluate(self, fn: str, arg: Any = None) -> Any:
        """Playwright's `page.evaluate(fn, arg)`: the function `fn` called with `arg` (any
        JSON value), its promise awaited (the benches share code between the drivers)."""
        return self.call(f"(a) => ({fn})(JSON.parse(a))", json.dumps(arg))

    def add_init_script(self, source: str) -> None:
        """Run `source` in every document before the page's own scripts."""
        self.cmd("script.addPreloadScript", functionDeclaration=f"() => {{ {source} }}")

    def state(self, expr: str) -> Any:
        """`expr` against window.__sussurro.state (null before the app booted)."""
        return self.js(f"(() => {{ if (!window.__sussurro) return null; const s = window.__sussurro.state; "
                       f"return {expr}; }})()")

    def levels(self, freqs: list[float]) -> list[float]:
        return self.call("(f) => window.__sussurro.toneLevels(JSON.parse(f))", json.dumps(freqs))

    def screenshot(self, path: Path) -> Path:
        import base64
        data = self.cmd("browsingContext.captureScreenshot", context=self.context)["data"]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(data))
        return path

    def close(self) -> None:
        try:
            if getattr(self, "ws", None) is not None:
                try:
                    self.cmd("browser.close", timeout=5)
                except Exception:
                    pass
                self.ws.close()
        finally:
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)


def _gone(exc: BidiError) -> bool:
    """True if `exc` says the action's origin element is no longer in the page."""
    return exc.error in _GONE or (exc.error == "move target out of bounds"
                                  and "is not displayed" in str(exc))


def _value(v: dict) -> Any:
    """A BiDi remote value as Python (primitives, arrays and plain objects)."""
    t = v.get("type")
    if t in ("undefined", "null"):
        return None
    if t == "number":
        x = v["value"]
        return {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf"),
                "-0": -0.0}.get(x, x) if isinstance(x, str) else x
    if t in ("string", "boolean"):
        return v["value"]
    if t == "array":
        return [_value(x) for x in v.get("value", [])]
    if t == "object":
        return {(k if isinstance(k, str) else _value(k)): _value(x) for k, x in v.get("value", [])}
    return v
