"""coturn's turnserver on 127.0.0.1 for a test: TURN over UDP and TCP on one port, and (with
`tls=True`) TURN over TLS on another with a certificate made here for 127.0.0.1. It relays
from 127.0.0.1 only and may reach peers on loopback (the server's voice is there in tests).

    with Coturn(tmp, secret) as turn:
        turn.urls["tcp"]     # "turn:127.0.0.1:PORT?transport=tcp"
        turn.urls["tls"]     # "turns:127.0.0.1:PORT?transport=tcp" (tls=True)
        turn.log             # its verbose log (sessions, their remote addresses)

`Coturn.available(tls)` says whether this machine has what it takes (scripts/test.sh
installs coturn)."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from pathlib import Path

from tests.support.server_proc import free_port


def _listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


class Coturn:
    def __init__(self, tmp: Path, secret: str, *, tls: bool = False) -> None:
        self.tmp, self.secret, self.tls = tmp, secret, tls
        self.port = free_port()
        self.tls_port = free_port() if tls else None
        self.log = tmp / "turn.log"
        self.urls = {"tcp": f"turn:127.0.0.1:{self.port}?transport=tcp"}
        if tls:
            self.urls["tls"] = f"turns:127.0.0.1:{self.tls_port}?transport=tcp"
        self.proc: subprocess.Popen | None = None

    @staticmethod
    def available(tls: bool = False) -> bool:
        return shutil.which("turnserver") is not None and (not tls or shutil.which("openssl") is not None)

    def __enter__(self) -> Coturn:
        self.tmp.mkdir(parents=True, exist_ok=True)
        args = [shutil.which("turnserver") or "turnserver", "-n", "--listening-ip", "127.0.0.1",
                "--listening-port", str(self.port), "--relay-ip", "127.0.0.1",
                "--use-auth-secret", "--static-auth-secret", self.secret,
                "--realm", "sussurro.test", "--no-dtls", "--no-cli",
                "--allow-loopback-peers",  # the server's voice is on loopback here
                "--min-port", "49152", "--max-port", "65535",
                "--userdb", str(self.tmp / "turndb"), "--pidfile", str(self.tmp / "turn.pid"),
                "--log-file", "stdout", "--simple-log", "--verbose"]
        if self.tls:
            cert, key = self.tmp / "cert.pem", self.tmp / "key.pem"
            subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                            "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                            "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
            args += ["--tls-listening-port", str(self.tls_port), "--cert", str(cert), "--pkey", str(key)]
        else:
            args += ["--no-tls"]
        self.proc = subprocess.Popen(args, stdout=self.log.open("wb"), stderr=subprocess.STDOUT)
        ports = [self.port] + ([self.tls_port] if self.tls else [])
        deadline = time.monotonic() + 10
        while not all(_listening(p) for p in ports):
            if time.monotonic() > deadline or self.proc.poll() is not None:
                self.__exit__()
                raise RuntimeError(f"coturn did not listen: {self.log.read_text(errors='replace')[-2000:]}")
            time.sleep(0.1)
        return self

    def __exit__(self, *exc) -> None:
        if self.proc is None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)
        self.proc = None
