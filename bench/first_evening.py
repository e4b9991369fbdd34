"""From the README to the first voice heard: what a new group waits for, measured.

    .venv/bin/python bench/first_evening.py [--json]

What a new group does (README, "The two commands"):
1. on the computer that hosts the evening: get the code and run `./scripts/serve.sh`
   (it creates `.venv`, installs, fetches Pyodide for the one-phone mode, starts the
   server for the phones on the same Wi-Fi, and prints the address and its QR code);
2. the host opens the printed "On this computer" address, types a name, taps "Crea";
3. a friend scans the QR code (opens the printed LAN address), types a name, taps
   "Entra", and both tap "Attiva il microfono";
4. each hears the other.

This bench does each step as a machine would, and times it:
- a fresh `git clone` of this repository's HEAD into a temporary folder (no `.venv`, no
  `offline-build/`), then `./scripts/serve.sh --port P --db ...` there, unchanged: the
  time to the printed addresses includes every install (Python packages from the
  registry, through pip's cache if this machine has one, and Pyodide from the npm
  registry); then the server is stopped and `./scripts/serve.sh` run again in the same
  folder (the next evening, or a restart: nothing to install);
- two real Chromium pages (tests/browser/harness.py's flags, a fake microphone each
  with its own tone): the host on the "On this computer" address, the friend on the
  printed LAN address. NETWORK RULE: Chromium maps that address to 127.0.0.1
  (--host-resolver-rules) and the server offers WebRTC candidates on loopback only
  (SUSSURRO_RTC_ADDRESSES), so no packet leaves loopback;
- the first voice heard: the moment each page's received mix carries the other's tone
  above -50 dB (the same reading as the browser voice tests), polled every 50 ms.

What is not timed: people typing names, scanning the QR code and accepting the
certificate warning (a phone's browser warns once about the self-made certificate).
Printed: seconds for each step, and in all.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.browser.harness import launch_player, wait_until  # noqa: E402
from tests.server.test_evening_reach import read_until  # noqa: E402
from tests.support.server_proc import free_port  # noqa: E402

HEARD_DB = -50.0
HOST_TONE, FRIEND_TONE = 520.0, 760.0


def _serve(checkout: Path, port: int, db: Path) -> subprocess.Popen:
    env = {**os.environ, "PYTHONUNBUFFERED": "1",
           # WebRTC candidates on loopback only: no packet to this machine's LAN address
           "SUSSURRO_RTC_ADDRESSES": "127.0.0.1", "SUSSURRO_RTC_ALLOW_LOCAL_CANDIDATES": "1"}
    for key in ("SUSSURRO_HOST", "SUSSURRO_LAN", "PYTHONPATH", "VIRTUAL_ENV"):
        env.pop(key, None)
    return subprocess.Popen(["./scripts/serve.sh", "--port", str(port), "--db", str(db),
                             "--log-level", "warning"],
                            cwd=checkout, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True)


def _heard(player, freq: float) -> bool:
    return player.levels([freq])[0] > HEARD_DB


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--json", action="store_true", help="print the figures as JSON only")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    tmp = Path(tempfile.mkdtemp(prefix="sussurro-evening-"))
    checkout, figures = tmp / "sussurro", {}
    proc = None
    try:
        t0 = time.monotonic()
        subprocess.run(["git", "clone", "-q", str(ROOT), str(checkout)], check=True)
        figures["clone_s"] = round(time.monotonic() - t0, 2)
        port = free_port()
        t1 = time.monotonic()
        proc = _serve(checkout, port, tmp / "s.db")
        printed = read_until(proc, "On this computer:", timeout=900)
        figures["first_serve_sh_to_address_s"] = round(time.monotonic() - t1, 2)
        join = re.search(r"Players open:\s+(https://([0-9.]+):\d+)", printed)
        local = re.search(r"On this computer:\s+(http://\S+)", printed)
        if not (join and local):
            raise SystemExit(f"no addresses printed:\n{printed[-3000:]}")
        lan_ip = join.group(2)
        flags = [f"--host-resolver-rules=MAP {lan_ip} 127.0.0.1", "--ignore-certificate-errors"]
        with sync_playwright() as pw:
            host = launch_player(pw, tmp, "Ada", HOST_TONE, extra_args=flags)
            friend = launch_player(pw, tmp, "Bruno", FRIEND_TONE, extra_args=flags)
            try:
                t2 = time.monotonic()
                host.page.goto(local.group(1) + "/?testaudio=1")
                host.page.fill("#name", "Ada")
                host.page.click("#create-btn")
                host.page.wait_for_selector("#room-code")
                code = host.page.inner_text("#room-code").strip()
                figures["room_created_s"] = round(time.monotonic() - t2, 2)
                link = wait_until(lambda: host.page.inner_text("#room-link"), what="the link")
                t3 = time.monotonic()
                friend.page.goto(f"{link}?testaudio=1")
                friend.page.fill("#name", "Bruno")
                friend.page.click("#join-btn")
                friend.page.wait_for_selector("#room-code")
                assert friend.page.inner_text("#room-code").strip() == code
                figures["friend_joined_s"] = round(time.monotonic() - t3, 2)
                t4 = time.monotonic()
                host.page.click("#mic-enable")
                friend.page.click("#mic-enable")
                heard = {}
                deadline = t4 + 60
                while len(heard) < 2 and time.monotonic() < deadline:
                    if "host_hears_friend_s" not in heard and _heard(host, FRIEND_TONE):
                        heard["host_hears_friend_s"] = round(time.monotonic() - t4, 2)
                    if "friend_hears_host_s" not in heard and _heard(friend, HOST_TONE):
                        heard["friend_hears_host_s"] = round(time.monotonic() - t4, 2)
                    time.sleep(0.05)
                if len(heard) < 2:
                    raise SystemExit(f"no voice heard in 60 s: {heard}")
                figures.update(heard)
                figures["errors"] = host.errors + friend.errors
            finally:
                host.context.close()
                friend.context.close()
        figures["readme_to_first_voice_s"] = round(time.monotonic() - t0, 2)
        # The next evening (or a restart): the same command in the same folder.
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(15)
        t1 = time.monotonic()
        proc = _serve(checkout, port, tmp / "s.db")
        read_until(proc, "On this computer:", timeout=120)
        figures["next_serve_sh_to_address_s"] = round(time.monotonic() - t1, 2)
    finally:
        if proc is not None:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(15)
        shutil.rmtree(tmp, ignore_errors=True)
    figures["pip_cache"] = (Path.home() / ".cache" / "pip").is_dir()
    figures["load_1min"] = os.getloadavg()[0]
    if args.json:
        print(json.dumps(figures))
        return
    for key, value in figures.items():
        print(f"{key:>26}: {value}")


if __name__ == "__main__":
    main()
