"""The server's one settings object: defaults, then environment, then CLI flags.

Every field can be overridden by an environment variable named
``SUSSURRO_<FIELD>`` in upper case (``SUSSURRO_PORT=9000``,
``SUSSURRO_JOIN_BURST=1000``); the CLI flags of ``sussurro serve`` override the
environment. ``SUSSURRO_ICE_SERVERS`` is a JSON list of RTCIceServer-like
objects, e.g. ``[{"urls": "stun:stun.l.google.com:19302"}]``.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

ENV_PREFIX = "SUSSURRO_"
# `Settings.voice_codec`'s choices (server/media/opus.py `OpusSettings.for_codec`)
VOICE_CODECS = ("celt", "silk")


def check_voice_codec(codec: str) -> str:
    """`codec` if it is one of VOICE_CODECS, else ValueError naming them."""
    if codec not in VOICE_CODECS:
        raise ValueError(f"voice_codec: {codec!r} is not one of {', '.join(VOICE_CODECS)}")
    return codec


@dataclass(frozen=True)
class Settings:
    """Everything the server can be told. Immutable once built."""

    host: str = "127.0.0.1"
    port: int = 8000
    db: str = "sussurro.db"
    log_level: str = "info"
    # Empty by default: no STUN, so nothing leaves the LAN unless configured.
    ice_servers: tuple[dict[str, Any], ...] = ()
    # Comma-separated local addresses offered as ICE host candidates. Empty: every
    # interface but 127.0.0.1 (aioice's default), what phones on a LAN need. The
    # tests set "127.0.0.1" so that all their WebRTC traffic stays on loopback.
    rtc_addresses: str = ""
    # What a client can make the server send ICE checks to (docs/protocol.md, "Voice"):
    # remote candidates per offer, offers per seat per minute, and whether candidates on
    # loopback, link-local or the server's own addresses are used (tests: on loopback).
    rtc_max_candidates: int = 20
    rtc_offers_per_minute: int = 12
    rtc_allow_local_candidates: bool = False
    # How the server codes each listener's mono mix: "celt" (Opus's CELT alone: less
    # CPU and 4 ms less delay, ~75 kb/s a listener) or "silk" (Opus's SILK/hybrid at
    # 32 kb/s with in-band FEC: half the bandwidth, for links short of it). A stereo
    # mix (voices around the table) is CELT either way. bench/ROOM.md has the figures.
    voice_codec: str = "celt"
    # Where the static web client lives (index.html, ES modules).
    web_dir: str = field(default_factory=lambda: _default_web_dir())
    # What the one-phone page needs offline (Pyodide, the core archive), built by
    # scripts/offline_assets.py (run by scripts/setup.sh) and served under /offline/.
    offline_dir: str = field(default_factory=lambda: _default_offline_dir())
    # Language folders beside game/langs/ (os.pathsep between them; each a language folder
    # or a folder of them): a language added by data alone (docs/languages.md).
    langs_dir: str = ""
    # Public base URL for QR codes and links; empty: derived from the request
    # (with --lan: the https address on the machine's main LAN address).
    public_url: str = ""

    # Network (docs/deploy.md). `lan`: every interface, HTTPS on the same port as
    # HTTP with a certificate made for the machine's LAN addresses and names (kept
    # in `tls_dir`; empty: a "sussurro-tls" folder beside the database).
    lan: bool = False
    # Set by `serve` (not meant to be given) when --lan finds no address phones could
    # reach: the lobby then says so instead of showing a loopback link (GET /api/links).
    no_lan_address: bool = False
    # A real certificate and its key (PEM): HTTPS with these instead of a self-made one.
    certfile: str = ""
    keyfile: str = ""
    tls_dir: str = ""
    # Reverse proxies whose X-Forwarded-For/-Proto are believed: comma-separated
    # addresses or CIDRs. Empty: none, not even 127.0.0.1.
    trusted_proxies: str = ""
    # TURN servers handed to clients with short-lived credentials (TURN REST
    # convention): comma-separated URLs ("turn:turn.example.org:3478?transport=udp"),
    # the secret shared with the TURN server (coturn's static-auth-secret), and how
    # long each seat's credentials stay valid (seconds). REST credentials cannot be
    # revoked, so they live minutes, not an evening: every welcome brings fresh ones,
    # and a client asks for fresh ones (`ice`) before they run out.
    turn_urls: str = ""
    turn_secret: str = ""
    turn_ttl: float = 600.0
    # Whether spectator passes (anonymous shared screens) get TURN credentials too: off,
    # so nobody with just the code gets relay bandwidth; turn it on where the TV sits
    # behind a network that lets no UDP in and should play the table's voice.
    turn_spectators: bool = False

    # Rooms.
    max_players: int = 16
    # Spectator passes (a TV or laptop for the room: no seat, public view and voice).
    max_spectators: int = 8
    # A pass whose screen is not connected is dropped after this long (seconds), so it
    # cannot hold a place for ever; one never connected at all, sooner.
    spectator_idle_ttl: float = 300.0
    spectator_claim_ttl: float = 60.0
    max_rooms: int = 1000
    # Live rooms one client address may have created (so one address cannot fill max_rooms).
    max_rooms_per_address: int = 20
    # A room nobody has connected to for this long is closed and unloaded.
    room_idle_ttl: float = 6 * 3600.0
    # How long an offline host keeps the role before the next online seat gets it.
    host_grace: float = 60.0

    # WebSocket limits.
    max_frame: int = 16 * 1024
    ws_rate: float = 20.0  # messages per second, sustained
    ws_burst: float = 40.0
    # Consecutive rejected messages before the socket is closed.
    ws_abuse_close: int = 200
    send_queue: int = 512
    # Sockets open at once from one client address (a party behind one NAT shares it).
    max_sockets_per_address: int = 64
    # WebSocket connects (token buckets): per seat, and per client address.
    ws_connect_rate: float = 0.5
    ws_connect_burst: float = 10.0
    ws_address_connect_rate: float = 5.0
    ws_address_connect_burst: float = 60.0
    # Room roster changes closer together than this go out as one `room` message.
    room_broadcast_window: float = 0.2

    # Largest HTTP request body accepted (413 beyond, before reading it).
    max_body: int = 16 * 1024
    # Every request's head (request line and headers) must arrive within
    # `header_timeout` seconds and hold at most `max_header` bytes (431 beyond);
    # connections that have not sent a whole head yet, per client address (server/edge/headguard.py).
    header_timeout: float = 10.0
    max_header: int = 32 * 1024
    max_idle_per_address: int = 32
    # Serve /openapi.json and the /docs page (off: the API is documented in docs/).
    api_docs: bool = False
    # /metrics (and /healthz's figures) answer this machine (loopback, not through a
    # proxy) and, with this set, `Authorization: Bearer <metrics_token>` (Prometheus
    # elsewhere). Players never see them: they move with the game's secret actions.
    metrics_token: str = ""

    # HTTP throttles, per client IP (token buckets).
    join_rate: float = 1.0
    join_burst: float = 10.0
    lookup_rate: float = 0.5  # lookups of codes that do not exist
    lookup_burst: float = 10.0
    create_rate: float = 0.2
    create_burst: float = 5.0

    # Cluster mode (docs/cluster.md). Empty `redis`: the embedded default (one
    # process, SQLite). A URL (redis://HOST:PORT/N): this process is one node of a
    # cluster; rooms live in Redis and `public_url` is how clients reach this node.
    redis: str = ""
    redis_prefix: str = "sussurro:"
    # A node that has not beaten for this long is gone, and so are its claims.
    cluster_ttl: float = 5.0
    # Seconds over which a fresh node's placement handicap fades out.
    cluster_ramp: float = 60.0
    # Each write waits for this many Redis replicas (at most redis_wait_ms).
    redis_wait_replicas: int = 0
    redis_wait_ms: int = 100
    # SIGTERM: how long handing the rooms over may take before the node exits anyway.
    drain_timeout: float = 30.0
    # Origins (space-separated, e.g. "https://*.example.com wss://*.example.com") the
    # pages may also connect to: nodes on other hosts than the live ones' (which are
    # allowed on any port by themselves), such as nodes added later.
    csp_connect: str = ""
    # `sussurro serve --workers N`: N node processes on consecutive ports.
    workers: int = 1
    # This node's id in the registry; empty: host-port-random, new at each start.
    node_id: str = ""

    def with_overrides(self, values: Mapping[str, Any]) -> Settings:
        """A copy with the non-None values of `values` (field name -> raw value) applied."""
        changes: dict[str, Any] = {}
        by_name = {f.name: f for f in fields(self)}
        for name, raw in values.items():
            if raw is None or name not in by_name:
                continue
            changes[name] = _coerce(raw, getattr(self, name))
        return dataclasses.replace(self, **changes)


def _default_web_dir() -> str:
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.join(os.path.dirname(here), "web")


def _default_offline_dir() -> str:
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.join(os.path.dirname(here), "offline-build")


def _coerce(raw: Any, current: Any) -> Any:
    """Turn a string from the environment or a flag into the field's type."""
    if not isinstance(raw, str):
        if isinstance(current, tuple) and isinstance(raw, list):
            return tuple(raw)
        return raw
    if isinstance(current, bool):
        return raw.strip().lower() in {"1", "true", "yes", "on"}
    if isinstance(current, int):
        return int(raw)
    if isinstance(current, float):
        return float(raw)
    if isinstance(current, tuple):
        value = json.loads(raw) if raw.strip() else []
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            raise ValueError(f"expected a JSON list of objects, got {raw!r}")
        return tuple(value)
    return raw


def env_values(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The ``SUSSURRO_*`` variables that name a settings field, keyed by field name."""
    environ = os.environ if environ is None else environ
    names = {f.name for f in fields(Settings)}
    out: dict[str, str] = {}
    for key, value in environ.items():
        if key.startswith(ENV_PREFIX):
            name = key[len(ENV_PREFIX):].lower()
            if name in names:
                out[name] = value
    return out


def load_settings(
    cli: Mapping[str, Any] | None = None, environ: Mapping[str, str] | None = None
) -> Settings:
    """Defaults, overridden by the environment, overridden by CLI values (None = unset)."""
    return Settings().with_overrides(env_values(environ)).with_overrides(cli or {})
