"""The FastAPI application: HTTP endpoints, the WebSocket, static files.

`create_app(settings)` builds everything from one Settings object; no
module-level state, so tests can run several apps side by side.
docs/protocol.md documents every endpoint and message.

With `settings.redis` the app is one node of a cluster (docs/cluster.md):
rooms live in Redis, a room runs on the node that claims it, and any node
answers any request, by forwarding it to the room's node (server/cluster/forward.py)
or by adopting a room nobody holds. Sockets go to the room's node: a socket
that reaches another one gets `moved` and close 4010.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import hmac
import io
import ipaddress
import json
import logging
import os
import re
import secrets
import time
from contextlib import asynccontextmanager
from typing import Annotated, Any

import segno
from fastapi import FastAPI, Request, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.responses import (
    FileResponse,
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
)
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field, ValidationError

import game
from game import catalog
from server.cluster.forward import DEVICE
from server.config import Settings, check_voice_codec
from server.edge.forwarded import TrustedProxies
from server.edge.httpguard import BodyLimit, CrossSite, SecurityHeaders
from server.edge.metrics import render_metrics
from server.edge.offline import mount_offline
from server.reach.https import https_enabled
from server.rooms.codes import hash_token, normalise_code
from server.rooms.registry import Room, RoomError, Rooms
from server.rooms.voicelink import voice_module
from server.storage.seam import StoreUnavailable
from server.storage.sqlite import Store
from server.throttle import KeyedBuckets, TokenBucket
from server.wire import protocol as P
from server.wire.connection import Connection
from server.wire.wsdirect import RawSend

log = logging.getLogger(__name__)

# Each browser's device id (a random cookie, HttpOnly): a ban names the devices of the
# kicked seat, so that browser takes no pass and no seat under another name. Only its
# SHA-256 is stored. A browser that clears its cookies looks new: the host sees every
# pass (`passes` in `room`) and removes it.
DEVICE_COOKIE = "sussurro_device"
DEVICE_RE = re.compile(r"\A[A-Za-z0-9_-]{22,64}\Z")
DEVICE_AGE = 400 * 24 * 3600  # the longest a browser keeps a cookie

PLACEHOLDER = """<!doctype html><meta charset="utf-8"><title>Sussurro</title>
<h1>Sussurro</h1><p>The web client is not installed yet.</p>"""


class CreateRoom(BaseModel):
    model_config = ConfigDict(extra="ignore")
    name: Annotated[str, Field(max_length=100)]
    color: str | None = None
    preset: str | None = None
    lang: str | None = None


class JoinRoom(BaseModel):
    model_config = ConfigDict(extra="ignore")
    name: Annotated[str, Field(max_length=100)]
    color: str | None = None


def _error(status: int, code: str, message: str, **extra: Any) -> JSONResponse:
    headers = {}
    if "retry_after" in extra:
        headers["Retry-After"] = str(max(1, int(extra["retry_after"] + 0.999)))
    return JSONResponse({"code": code, "message": message, **extra}, status_code=status,
                        headers=headers)


def _loopback_host(request: Request) -> bool:
    """True when the page was asked for by a loopback name (localhost, 127.x, [::1]):
    a secure context even over plain http, so the machine itself needs no https."""
    host = (request.url.hostname or "").strip("[]").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _own_origins(settings: Settings, proxies: TrustedProxies, cluster: Any,
                 scope: dict[str, Any]) -> list[str]:
    """Where this server's own pages may come from, beside the request's Host: the public
    URL, the Host a trusted proxy was asked for, and in cluster mode every node's host
    (a page of one node opens its socket on the room's node) and `csp_connect`."""
    out = [settings.public_url] if settings.public_url else []
    peer = (scope.get("client") or ("",))[0]
    if proxies.trusts(peer):
        for key, value in scope.get("headers", ()):
            if key == b"x-forwarded-host":
                out.append("http://" + value.decode("latin-1").split(",")[-1].strip())
    if cluster is not None:
        for url in cluster.known_urls():
            host = url.split("://", 1)[-1].split("/", 1)[0]
            host = host.rsplit(":", 1)[0] if not host.endswith("]") else host
            out.append(f"http://{host}:*")
        out.extend(settings.csp_connect.split())
    return out


def _loopback_ip(text: str) -> bool:
    try:
        ip = ipaddress.ip_address(text)
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_loopback


# Headers a proxy adds; from a peer that is not a trusted proxy they say only that the
# real client is someone else, somewhere.
_FORWARDING = ("x-forwarded-for", "forwarded", "x-real-ip")


def _validation_message(exc: ValidationError | RequestValidationError, skip: int) -> str:
    first = exc.errors()[0] if exc.errors() else {}
    where = ".".join(str(p) for p in first.get("loc", ())[skip:]) or "body"
    return f"{where}: {first.get('msg', 'invalid request')}"


async def read_body(request: Request, model: type[BaseModel]) -> BaseModel | JSONResponse:
    """The request's JSON body as `model`, or the 422 `bad_request` to answer.

    Called by an endpoint after its throttle, so a refused request is never
    read; the body's size is already bounded by `BodyLimit`.
    """
    raw = await request.body()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return _error(422, "bad_request", "body: not UTF-8 JSON")
    if P.too_deep(text):
        return _error(422, "bad_request", f"body: nested deeper than {P.MAX_DEPTH} levels")
    try:
        return model.model_validate(P.loads(text))
    except (ValueError, RecursionError) as exc:
        if isinstance(exc, ValidationError):
            return _error(422, "bad_request", _validation_message(exc, 0))
        if isinstance(exc, P.BadText):
            return _error(422, "bad_request", f"body: {exc}")
        return _error(422, "bad_request", "body: not valid JSON")


def create_app(settings: Settings) -> FastAPI:
    """The whole server as an ASGI app; rooms are restored from the store at start-up."""
    proxies = TrustedProxies.parse(settings.trusted_proxies)  # a bad value stops start-up
    check_voice_codec(settings.voice_codec)  # so does an unknown codec
    cluster = forward = None
    if settings.redis:
        from server.cluster.forward import Forwarder
        from server.cluster.node import build_cluster

        store, cluster = build_cluster(settings)
        forward = Forwarder(lambda: cluster.secret)
    else:
        store = Store(settings.db)
    rooms = Rooms(store, settings, cluster=cluster)
    joins = KeyedBuckets(settings.join_rate, settings.join_burst)
    misses = KeyedBuckets(settings.lookup_rate, settings.lookup_burst)
    creates = KeyedBuckets(settings.create_rate, settings.create_burst)
    # WebSocket connects, per seat and per client address; sockets open per address.
    seat_connects = KeyedBuckets(settings.ws_connect_rate, settings.ws_connect_burst)
    address_connects = KeyedBuckets(settings.ws_address_connect_rate,
                                    settings.ws_address_connect_burst)
    open_sockets: dict[str, int] = {}
    started = time.time()
    # The rules' catalog (presets, powers, categories, timers) never changes while the
    # server runs: serialised once, served with an ETag.
    catalog_body = json.dumps(catalog(), ensure_ascii=False, separators=(",", ":")).encode()
    catalog_etag = '"' + hashlib.sha256(catalog_body).hexdigest()[:32] + '"'

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        try:  # before serving: no offer may come before the guard is in place
            from server.media.iceguard import guard_remote_candidates
        except ImportError:  # no voice layer installed
            pass
        else:
            guard_remote_candidates(settings.rtc_allow_local_candidates)
        if settings.rtc_addresses:
            from server.media.rtc import restrict_host_addresses

            restrict_host_addresses(settings.rtc_addresses.split(","))
        # Import the voice stack (aiortc, av, numpy) and read the rules' text tables off
        # the event loop now, rather than stall every room for a second at the first
        # player's welcome or the first clue of a language.
        warm = [asyncio.create_task(asyncio.to_thread(voice_module)),
                asyncio.create_task(asyncio.to_thread(game.warm_up))]
        if cluster is not None:
            # Join only once both are done: doing it later would stall the event loop
            # (the first welcome imports the voice stack) past the claims' expiry.
            await asyncio.gather(*warm)
            await cluster.start(rooms)
        n = await rooms.restore()
        if cluster is None:
            log.info("sussurro: %d live room(s) restored from %s", n, settings.db)
        try:
            yield
        finally:
            for task in warm:
                task.cancel()
            await rooms.close()
            if cluster is not None:
                await cluster.stop()
                await forward.close()
                await cluster.r.aclose()
            else:
                store.close()

    async def drain() -> None:
        """SIGTERM in cluster mode (server/main.py): hand every room over before exiting."""
        if cluster is not None:
            await cluster.drain(settings.drain_timeout)

    # The API is documented in docs/protocol.md; its machine-readable schema and the
    # interactive page are served only when asked for (they list every endpoint).
    docs = "/docs" if settings.api_docs else None
    app = FastAPI(title="Sussurro", lifespan=lifespan, docs_url=docs, redoc_url=None,
                  openapi_url="/openapi.json" if settings.api_docs else None)
    app.state.settings, app.state.rooms, app.state.store = settings, rooms, store
    app.state.cluster, app.state.drain = cluster, drain
    # Another site's page is refused before any endpoint (and so before any throttle).
    app.add_middleware(CrossSite, also=functools.partial(_own_origins, settings, proxies,
                                                         cluster))
    app.add_middleware(BodyLimit, max_body=settings.max_body)
    # A WebSocket's scope keeps uvicorn's own send: its frames' way past the writer task
    # (server/wire/wsdirect.py). HTTP passes untouched.
    app.add_middleware(RawSend)
    # Outermost, so that refusals (413, 429) carry the headers too. The docs page (when
    # on) loads its own scripts: it keeps the other headers but not the policy.
    app.add_middleware(SecurityHeaders, exempt=[docs, "/docs/oauth2-redirect"] if docs else [],
                       nodes=cluster.known_urls if cluster is not None else None,
                       extra=settings.csp_connect if cluster is not None else "")

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, exc: RequestValidationError):
        # The same {code, message} shape as every other refusal.
        return _error(422, "bad_request", _validation_message(exc, 1))

    def client_ip(request: Request | WebSocket) -> str:
        """The address every per-client throttle and cap is keyed by: the peer's own,
        or what a trusted proxy says in X-Forwarded-For (server/edge/forwarded.py)."""
        peer = request.client.host if request.client else None
        return proxies.client(peer, request.headers)

    def scheme(request: Request | WebSocket) -> str:
        """"http" or "https" as the player reached us (through a trusted proxy or not)."""
        peer = request.client.host if request.client else None
        return proxies.scheme(peer, request.headers, request.url.scheme)

    def base_url(request: Request) -> str:
        """The address players are given: `public_url`, else the one this request used."""
        if cluster is not None:  # this node's own URL ({port} filled in)
            return cluster.url
        if settings.public_url:
            return settings.public_url.rstrip("/")
        host = request.headers.get("host") or request.url.netloc
        return f"{scheme(request)}://{host}"

    def device_of(request: Request | WebSocket) -> tuple[str, str | None]:
        """(the hash of this browser's device id, a new id to set as its cookie or None).
        A request another node forwarded names the device (hashed) in a header."""
        if isinstance(request, Request) and internal(request):
            return request.headers.get(DEVICE, ""), None
        raw = request.cookies.get(DEVICE_COOKIE, "")
        if DEVICE_RE.fullmatch(raw):
            return hash_token(raw), None
        if isinstance(request, WebSocket):
            return "", None
        new = secrets.token_urlsafe(24)
        return hash_token(new), new

    def with_device(response: Response, request: Request, new: str | None) -> Response:
        if new is not None:
            response.set_cookie(DEVICE_COOKIE, new, max_age=DEVICE_AGE, path="/", httponly=True,
                                samesite="lax", secure=scheme(request) == "https")
        return response

    def throttled(buckets: KeyedBuckets, key: str, what: str) -> JSONResponse | None:
        bucket = buckets.bucket(key)
        if bucket.take():
            return None
        return _error(429, P.RATE_LIMITED, f"too many {what}; slow down",
                      retry_after=bucket.retry_after())

    def internal(request: Request) -> bool:
        """A request another node of the cluster forwarded (already throttled there)."""
        return forward is not None and forward.internal(request)

    async def find_room(request: Request, raw: str, method: str = "GET", path: str = "",
                        body: dict[str, Any] | None = None, device: str = "") -> Room | Response:
        """The loaded room of a code, or the response to send instead.

        Embedded: the room or 404 (429 for guessers). Cluster mode: a room
        running on another node is answered by that node (the request is
        forwarded as `method path body`), a room nobody holds is adopted.
        """
        inside = internal(request)
        misses_left = misses.bucket(client_ip(request))
        wait = 0.0 if inside else misses_left.retry_after()
        if wait > 0:
            # Out of misses: even real codes wait, or guessing could go on through here.
            return _error(429, P.RATE_LIMITED, "too many unknown room codes; slow down",
                          retry_after=wait)
        code = normalise_code(raw)
        room = rooms.get(code) if code else None
        if room is None and cluster is not None and code:
            found = await cluster_room(code, method, path, body, inside, device)
            if found is not None:
                return found
        if room is None:
            misses_left.take()
            return _error(404, "unknown_room", "no room with that code")
        return room

    async def cluster_room(code: str, method: str, path: str, body: dict[str, Any] | None,
                           inside: bool, device: str = "") -> Room | Response | None:
        """Where a room not loaded here is served: its room, the owner's answer, or None."""
        where = await cluster.where(code)
        if where.state == "gone":
            return None
        if where.state in ("here", "orphan"):
            if where.state == "orphan" and not inside:
                target = await cluster.target_for_new_room()
                if target is not None and target.id != cluster.id:
                    answer = await forward.send(target.url, method, path, body)
                    if answer is not None:
                        return answer
            if await cluster.adopt(code) and rooms.get(code) is not None:
                return rooms.get(code)
        elif where.url and not inside:
            answer = await forward.send(where.url, method, path, body, device=device)
            if answer is not None:
                return answer
        # Claimed by a node that does not answer (yet, or any more): ask again shortly.
        return _error(503, P.ROOM_MOVED, "the room is moving to another server; retry",
                      retry_after=1)

    def node_fields(code: str) -> dict[str, Any]:
        """Cluster mode: the URL of the node serving the room (sockets go there)."""
        return {"node": cluster.url} if cluster is not None else {}

    # HTTP API -----------------------------------------------------------------

    @app.post("/api/rooms")
    async def create_room(request: Request):
        inside = internal(request)
        if not inside:
            limited = throttled(creates, client_ip(request), "rooms created")
            if limited is not None:
                return limited  # before the body is read
        body = await read_body(request, CreateRoom)
        if isinstance(body, Response):
            return body
        device, new = device_of(request)
        if cluster is not None:
            if not inside:
                # The least-loaded live node creates it (maybe this one).
                target = await cluster.target_for_new_room()
                if target is not None and target.id != cluster.id:
                    answer = await forward.send(target.url, "POST", "/api/rooms",
                                                body.model_dump(exclude_none=True),
                                                client=client_ip(request), device=device)
                    if answer is not None and answer.status_code < 500:
                        return with_device(answer, request, new)
            if cluster.draining:
                return _error(503, "draining", "this server is shutting down; try again",
                              retry_after=1)
        try:
            # A forwarded create counts against the client the forwarding node named: each
            # node caps the live rooms it holds per address.
            address = forward.client(request) if inside else client_ip(request)
            room, pid, token = await rooms.create(body.name, body.color, body.preset, body.lang,
                                                  address=address, device=device)
        except RoomError as exc:
            return _error(exc.status, exc.code, exc.message)
        return with_device(JSONResponse({"code": room.code, "player": pid, "token": token,
                                         **node_fields(room.code)}), request, new)

    # Cluster mode: a page served by one node may ask another where its room went.
    cors = {"Access-Control-Allow-Origin": "*"} if cluster is not None else {}

    @app.get("/api/rooms/{code}")
    async def room_info(code: str, request: Request):
        room = await find_room(request, code, "GET", f"/api/rooms/{code}")
        if isinstance(room, Response):
            room.headers.update(cors)
            return room
        return JSONResponse({**room.public_info(), **node_fields(room.code)}, headers=cors)

    @app.post("/api/rooms/{code}/join")
    async def join_room(code: str, request: Request):
        if not internal(request):
            limited = throttled(joins, client_ip(request), "joins")
            if limited is not None:
                return limited  # before the body is read
        body = await read_body(request, JoinRoom)
        if isinstance(body, Response):
            return body
        device, new = device_of(request)
        room = await find_room(request, code, "POST", f"/api/rooms/{code}/join",
                               body.model_dump(exclude_none=True), device)
        if isinstance(room, Response):
            return with_device(room, request, new)
        body = await read_body(request, JoinRoom)
        if isinstance(body, Response):
            return body
        try:
            pid, token = await room.call(room.cmd_add_member, body.name, body.color, device)
        except RoomError as exc:
            return with_device(_error(exc.status, exc.code, exc.message), request, new)
        return with_device(JSONResponse({"player": pid, "token": token, "code": room.code,
                                         **node_fields(room.code)}), request, new)

    @app.post("/api/rooms/{code}/watch")
    async def watch_room(code: str, request: Request):
        """A spectator pass: a token for a shared screen (no seat, no name)."""
        if not internal(request):
            limited = throttled(joins, client_ip(request), "joins")
            if limited is not None:
                return limited
        device, new = device_of(request)
        room = await find_room(request, code, "POST", f"/api/rooms/{code}/watch", {}, device)
        if isinstance(room, Response):
            return with_device(room, request, new)
        try:
            sid, token = await room.call(room.cmd_add_spectator, device)
        except RoomError as exc:
            return with_device(_error(exc.status, exc.code, exc.message), request, new)
        return with_device(JSONResponse({"spectator": sid, "token": token, "code": room.code,
                                         **node_fields(room.code)}), request, new)

    @functools.lru_cache(maxsize=256)
    def qr_svg(link: str, code: str) -> bytes:
        # Drawing a QR code costs milliseconds: once per link, not once per request.
        out = io.BytesIO()
        segno.make(link, error="m").save(out, kind="svg", scale=8, border=2, dark="#111",
                                         light="#fff", title=f"Sussurro {code}")
        return out.getvalue()

    @app.get("/api/rooms/{code}/qr.svg")
    async def room_qr(code: str, request: Request):
        room = await find_room(request, code, "GET", f"/api/rooms/{code}/qr.svg")
        if isinstance(room, Response):
            return room
        return Response(qr_svg(f"{base_url(request)}/r/{room.code}", room.code),
                        media_type="image/svg+xml",
                        headers={"Cache-Control": "public, max-age=3600"})

    @app.get("/api/catalog")
    async def game_catalog(request: Request):
        headers = {"Cache-Control": "public, max-age=300", "ETag": catalog_etag}
        if catalog_etag in request.headers.get("if-none-match", ""):
            return Response(status_code=304, headers=headers)
        return Response(catalog_body, media_type="application/json", headers=headers)

    @app.get("/api/links")
    async def links(request: Request):
        # The base of the room links and QR codes, so the lobby shows the same address
        # as its QR (with --lan: the https LAN address, even on https://localhost).
        return JSONResponse({"base": base_url(request)}, headers={"Cache-Control": "no-cache"})

    def operator(request: Request) -> bool:
        """May read the operational figures: this machine itself (a loopback peer, or the
        loopback client a trusted proxy names), or whoever holds `metrics_token`. Their
        counts move with a game's secret actions (a seer's look, the wolves' pick)."""
        token = settings.metrics_token
        given = request.headers.get("authorization", "")
        if token and given[:7].lower() == "bearer " and hmac.compare_digest(
                given[7:].strip().encode(), token.encode()):
            return True
        peer = request.client.host if request.client else None
        if not proxies.trusts(peer) and any(h in request.headers for h in _FORWARDING):
            return False  # an unconfigured proxy on this machine: its client is anyone
        return _loopback_ip(client_ip(request))

    @app.get("/healthz")
    async def healthz(request: Request):
        ok, body = True, {}
        if cluster is not None:
            # A draining node, or one cut off from Redis, asks load balancers to look
            # elsewhere.
            c = cluster.stats()
            ok = not c["draining"] and c["since_renewal"] <= cluster.ttl
            body = dict(node=c["node"], url=c["url"], draining=c["draining"],
                        claims=c["claims"])
        # To anyone else: up or not, and no figure a game could move.
        body = ({"ok": ok, "rooms": len(rooms.rooms), "uptime": round(time.time() - started, 3),
                 **body} if operator(request) else {"ok": ok})
        return JSONResponse(body, status_code=200 if ok else 503)

    @app.get("/metrics")
    async def metrics(request: Request):
        if not operator(request):
            return _error(403, "forbidden", "the figures are for this machine, or for a"
                          " bearer token (the metrics_token setting)")
        stats = rooms.stats()
        if cluster is not None:
            stats["cluster"] = {**cluster.stats(), "forwarded": forward.count,
                                "forward_failures": forward.failures}
        return PlainTextResponse(render_metrics(stats), media_type="text/plain; version=0.0.4")

    # The web client -------------------------------------------------------------

    index = os.path.join(settings.web_dir, "index.html")
    guide = os.path.join(settings.web_dir, "guide.html")
    https_on = https_enabled(settings)
    # --lan without a real certificate: phones meet a warning about the self-made one.
    self_made = settings.lan and not settings.certfile

    def client_page(request: Request) -> Response:
        if https_on and scheme(request) == "http" and not _loopback_host(request):
            # No microphone over plain http on another device: send the player to https
            # (after the page that explains the certificate warning, for a self-made one).
            if self_made and os.path.isfile(guide):
                return FileResponse(guide, media_type="text/html",
                                    headers={"Cache-Control": "no-cache"})
            return RedirectResponse(str(request.url.replace(scheme="https")), status_code=308)
        if os.path.isfile(index):
            return FileResponse(index, media_type="text/html",
                                headers={"Cache-Control": "no-cache"})
        return HTMLResponse(PLACEHOLDER)

    @app.get("/")
    async def home(request: Request):
        return client_page(request)

    @app.get("/r/{code}")
    async def room_page(code: str, request: Request):
        return client_page(request)

    @app.get("/r/{code}/tv")
    async def tv_page(code: str, request: Request):
        # The shared screen: the same page, which reads /tv and asks for a spectator pass.
        return client_page(request)

    @app.get("/api/rooms/{code}/tv-qr.svg")
    async def tv_qr(code: str, request: Request):
        room = await find_room(request, code, "GET", f"/api/rooms/{code}/tv-qr.svg")
        if isinstance(room, Response):
            return room
        return Response(qr_svg(f"{base_url(request)}/r/{room.code}/tv", room.code),
                        media_type="image/svg+xml",
                        headers={"Cache-Control": "public, max-age=3600"})

    # The one-phone page (the core in the browser, offline): web/offline/, offline-build/.
    mount_offline(app, settings)
    if os.path.isdir(settings.web_dir):
        app.mount("/static", StaticFiles(directory=settings.web_dir), name="static")

    # The WebSocket ---------------------------------------------------------------

    async def refuse(ws: WebSocket, code: str, message: str, close: int,
                     retry_after: float | None = None) -> None:
        error = P.error(code, message)
        if retry_after is not None:
            error["retry_after"] = round(retry_after, 1)
        with contextlib.suppress(Exception):
            await ws.send_json(error)
            await ws.close(close)

    @app.websocket("/ws")
    async def websocket(ws: WebSocket, token: str = ""):
        address = client_ip(ws)
        await ws.accept()
        if open_sockets.get(address, 0) >= settings.max_sockets_per_address:
            await refuse(ws, P.TOO_MANY_CONNECTIONS, "too many sockets open from this address",
                         P.CLOSE_SLOW)
            return
        open_sockets[address] = open_sockets.get(address, 0) + 1
        try:
            await _socket(ws, address, token)
        finally:
            open_sockets[address] -= 1
            if not open_sockets[address]:
                del open_sockets[address]

    async def _socket(ws: WebSocket, address: str, token: str) -> None:
        # Throttles before any work: the address first (no lookup), then the seat.
        bucket = address_connects.bucket(address)
        if not bucket.take():
            await refuse(ws, P.RATE_LIMITED, "too many connections from this address; slow down",
                         P.CLOSE_SLOW, bucket.retry_after())
            return
        try:
            found = await rooms.resolve(token)
            if not isinstance(found, str) and isinstance(found[0], str):
                found = await cluster_socket(ws, *found)
        except StoreUnavailable:
            found = None
        if found is None:  # told where to go, or the store is unreachable: come back
            with contextlib.suppress(Exception):
                await ws.close(1013 if cluster is None else P.CLOSE_MOVED)
            return
        if isinstance(found, str):
            # Guessing tokens costs the same as guessing codes.
            misses.take(address)
            message, close = {
                P.BAD_TOKEN: ("unknown or expired token", P.CLOSE_BAD_TOKEN),
                P.KICKED: ("the host removed you from this room", P.CLOSE_KICKED),
                P.LEFT: ("you left this room", P.CLOSE_LEFT),
            }[found]
            await refuse(ws, found, message, close)
            return
        room, pid = found
        bucket = seat_connects.bucket(f"{room.code}/{pid}")
        if not bucket.take():
            await refuse(ws, P.RATE_LIMITED, "this seat reconnects too often; slow down",
                         P.CLOSE_SLOW, bucket.retry_after())
            return
        conn = Connection(ws, settings.send_queue, token_hash=hash_token(token),
                          device=device_of(ws)[0])
        conn.start()
        try:
            if not await room.call(room.cmd_attach, pid, conn):
                return
            await _read_loop(ws, room, pid, conn, settings)
        except RoomError as exc:
            if exc.code == P.ROOM_MOVED:  # handed over or taken over: look it up again
                conn.send({"type": "moved", "room": room.code, "node": None})
                conn.close(P.CLOSE_MOVED, "moved")
            else:  # the room closed under this socket
                conn.send(P.error("room_closed", "this room is closed"))
                conn.close(P.CLOSE_ROOM_CLOSED, "room closed")
        finally:
            with contextlib.suppress(Exception):
                room.post(room.cmd_detach, pid, conn)
            await conn.stop()

    async def cluster_socket(ws: WebSocket, code: str, pid: str) -> tuple[Room, str] | None:
        """A seat of a room not loaded here: adopt it if nobody holds it, else say where."""
        where = await cluster.where(code)
        if where.state in ("orphan", "here") and await cluster.adopt(code):
            room = rooms.get(code)
            if room is not None:
                return room, pid
        url = where.url if where.state == "there" else None
        with contextlib.suppress(Exception):
            await ws.send_json({"type": "moved", "room": code, "node": url})
        return None

    return app


async def _read_loop(ws: WebSocket, room: Any, pid: str, conn: Connection,
                     settings: Settings) -> None:
    """Validate every frame, rate-limit it, hand it to the room actor in order."""
    rate = TokenBucket(settings.ws_rate, settings.ws_burst)
    # Rejections allowed before the socket is closed; refills slowly.
    abuse = TokenBucket(settings.ws_rate / 4, float(settings.ws_abuse_close))
    while not conn.closed:
        try:
            frame = await ws.receive()
        except (WebSocketDisconnect, RuntimeError):
            return
        if frame["type"] == "websocket.disconnect":
            return
        data = frame.get("text")
        if data is None:
            data = frame.get("bytes") or b""
        if not rate.take():
            if not abuse.take():
                conn.send(P.error(P.RATE_LIMITED, "far too many messages; disconnected"))
                conn.close(P.CLOSE_ABUSE, "flood")
                return
            conn.send(P.error(P.RATE_LIMITED, "too many messages; this one was dropped"))
            continue
        try:
            msg = P.parse(data, settings.max_frame)
        except P.ProtocolError as exc:
            conn.send(P.error(exc.code, exc.message, exc.ref))
            continue
        try:
            await room.call(room.cmd_message, pid, conn, msg)
        except RoomError as exc:
            if exc.code != P.STORE_UNAVAILABLE:
                raise
            conn.send(P.error(exc.code, exc.message, msg.ref))
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("room %s: message %s from %s failed", room.code, msg.type, pid)
            conn.send(P.error(P.INTERNAL, "the server failed on that message", msg.ref))
