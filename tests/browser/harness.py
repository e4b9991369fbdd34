"""Drive real Chromium pages as players: one browser per player, each with its own
fake microphone (a WAV of one steady tone), a fresh profile, phone-sized window."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import soundfile as sf

CHROMIUM = "/usr/bin/chromium"
PHONE = {"width": 360, "height": 740}
SCREENS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screens"

BASE_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    # The server offers loopback ICE candidates only (tests/support/server_proc.py).
    "--allow-loopback-in-peer-connection",
    "--disable-component-update", "--disable-sync", "--no-first-run",
    "--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream",
    "--autoplay-policy=no-user-gesture-required",
]

# A name that reaches the server on loopback without being "localhost" (which browsers
# treat as a secure context even over http), as a phone on the LAN sees the server; and
# the server's self-made certificate accepted, in this test browser only.
LAN_NAME = "sussurro.test"
LAN_ARGS = [f"--host-resolver-rules=MAP {LAN_NAME} 127.0.0.1", "--ignore-certificate-errors"]


def tone_wav(path: Path, freq: float, seconds: float = 4.0, rate: int = 48000,
             on: float = 0.4, off: float = 0.1) -> Path:
    """A tone spoken in syllables (48 kHz mono 16-bit) for Chromium's fake capture.

    `on` seconds of sine then `off` of silence, with 10 ms raised-cosine edges (a hard
    edge would splash energy over every frequency). The pauses matter: the server's
    mouth meter takes a steady sound for background noise within 1.5 s, as it should
    for a fan, so an unbroken tone would stop moving the mouth. Chromium loops the
    file; its length is a whole number of syllables.
    """
    period = on + off
    n = round(round(seconds / period) * period * rate)
    t = np.arange(n) / rate
    phase = np.mod(t, period)
    ramp = 0.010
    envelope = np.clip(np.minimum(phase, on - phase) / ramp, 0.0, 1.0)
    envelope = 0.5 - 0.5 * np.cos(np.pi * envelope)
    envelope[phase >= on] = 0.0
    sf.write(str(path), 0.2 * envelope * np.sin(2 * np.pi * freq * t), rate, subtype="PCM_16")
    return path


@dataclass
class Player:
    name: str
    freq: float
    context: object
    page: object
    errors: list = field(default_factory=list)
    console: list = field(default_factory=list)  # console errors and warnings, as text

    # ---- reading the page ----
    def state(self, expr: str):
        """Evaluate `expr` against window.__sussurro.state (the page's own state)."""
        # null while the page (re)loads and the app has not booted yet
        return self.page.evaluate(
            f"(() => {{ if (!window.__sussurro) return null; const s = window.__sussurro.state; return {expr}; }})()")

    @property
    def pid(self) -> str:
        return self.state("s.player")

    def view(self) -> dict | None:
        return self.state("s.view")

    def levels(self, freqs: list[float]) -> list[float]:
        return self.page.evaluate("(f) => window.__sussurro.toneLevels(f)", freqs)

    def csp_violations(self) -> list[str]:
        """What the page's Content-Security-Policy refused so far (event and console)."""
        seen = self.page.evaluate("window.__csp || []")
        return seen + [m for m in self.console if "Content Security Policy" in m]

    def overflow(self) -> tuple[int, int]:
        return tuple(self.page.evaluate(
            "[document.documentElement.scrollWidth, document.documentElement.clientWidth]"))

    def shot(self, name: str) -> Path:
        SCREENS.mkdir(parents=True, exist_ok=True)
        path = SCREENS / f"{name}.png"
        self.page.screenshot(path=str(path), full_page=True)
        return path


def launch_player(pw, tmp: Path, name: str, freq: float, *, viewport=PHONE, locale="it-IT",
                  mic: str = "tone", extra_args: list[str] | None = None) -> Player:
    """`mic`: "tone" (a fake mic playing `freq`), "denied" (the player refuses the
    permission prompt) or "missing" (the device has no microphone). `extra_args`: more
    Chromium flags (e.g. LAN_ARGS for a name that is not localhost)."""
    profile = tmp / f"profile-{name}"
    profile.mkdir(parents=True, exist_ok=True)
    if mic == "tone":
        wav = tone_wav(tmp / f"{name}.wav", freq)
        args = [*BASE_ARGS, f"--use-file-for-fake-audio-capture={wav}"]
    elif mic == "denied":   # a fake device, but no auto-accepting prompt: headless refuses
        args = [a for a in BASE_ARGS if a != "--use-fake-ui-for-media-stream"]
    else:                   # no fake device at all: nothing to capture
        args = [a for a in BASE_ARGS if "fake" not in a]
    args = [*args, *(extra_args or [])]
    context = pw.chromium.launch_persistent_context(
        user_data_dir=str(profile),
        executable_path=CHROMIUM,
        headless=True,
        args=args,
        viewport=viewport,
        locale=locale,
        permissions=["microphone"] if mic == "tone" else [],
    )
    page = context.pages[0] if context.pages else context.new_page()
    page.set_default_timeout(15000)
    player = Player(name=name, freq=freq, context=context, page=page)
    page.on("pageerror", lambda e: player.errors.append(str(e)))
    page.on("console", lambda m: player.console.append(m.text)
            if m.type in ("error", "warning") else None)
    # Content-Security-Policy refusals, as the page sees them (securitypolicyviolation).
    page.add_init_script("""window.__csp = [];
document.addEventListener("securitypolicyviolation",
  (e) => window.__csp.push(e.violatedDirective + " " + e.blockedURI));""")
    return player


def wait_until(fn, timeout: float = 15.0, step: float = 0.1, what: str = "condition"):
    """Poll `fn` until it returns a truthy value (bounded)."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = fn()
        if last:
            return last
        time.sleep(step)
    raise AssertionError(f"timed out waiting for {what} (last={last!r})")


LANGS_DIR = Path(__file__).resolve().parents[2] / "game" / "langs"


def ui_langs() -> list[str]:
    """The codes of the languages the web client speaks (a folder of game/langs/ with a
    language.json and ui/ strings), in menu order: what /i18n/langs.json offers."""
    found = []
    for meta_path in LANGS_DIR.glob("*/language.json"):
        if any((meta_path.parent / "ui").glob("*.json")):
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
            found.append((meta["order"], meta["code"]))
    return [code for _, code in sorted(found)]


def i18n(lang: str) -> dict[str, str]:
    """The web client's dictionary for `lang` (what a player reads on screen): every
    area of game/langs/LANG/ui/, merged as the server's /i18n/LANG.json is."""
    out: dict[str, str] = {}
    for path in sorted((LANGS_DIR / lang / "ui").glob("*.json")):
        out.update(json.loads(path.read_text(encoding="utf-8")))
    return out


def open_rules(page) -> None:
    """Unfold the lobby's detailed rules (folded by default, issue 31 §3.6), as a host who
    changes them does; they stay open across the lobby's redraws."""
    page.wait_for_selector("#lobby-rules", state="attached")
    page.evaluate("() => { const d = document.querySelector('#lobby-rules');"
                  " if (d && !d.open) d.querySelector('summary').click(); }")


def create_room(server, player: Player, query: str = "") -> str:
    """`player` creates a room from the home page; returns its code."""
    player.page.goto(server.url("/" + query))
    player.page.fill("#name", player.name)
    player.page.click("#create-btn")
    player.page.wait_for_selector("#room-code")
    open_rules(player.page)
    return player.page.inner_text("#room-code").strip()


def join_room(server, player: Player, code: str, *, by: str = "link", query: str = "") -> None:
    """`player` joins room `code` by its link `/r/CODE` or by typing the code at home."""
    if by == "link":
        player.page.goto(server.url(f"/r/{code}{query}"))
    else:
        player.page.goto(server.url("/" + query))
        player.page.fill("#code", code.lower())  # codes are typed any case
    player.page.fill("#name", player.name)
    player.page.click("#join-btn")
    player.page.wait_for_selector("#room-code")
    open_rules(player.page)


def seat_text_only(server, players: list[Player]) -> str:
    """The first player creates a room, the others join by link, all skip the mic.

    Returns the room code once the host sees every seat taken.
    """
    host = players[0]
    code = create_room(server, host)
    for p in players[1:]:
        join_room(server, p, code)
    for p in players:
        p.page.click("#mic-skip")
    wait_until(lambda: host.page.locator(".player-row").count() == len(players),
               what=f"{len(players)} seated")
    return code
