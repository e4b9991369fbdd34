"""The FastAPI application: assembled from the edge's route modules, with its lifespan.

`create_app(settings)` builds everything from one Settings object; no
module-level state, so tests can run several apps side by side.
docs/protocol.md documents every endpoint and message.

| module | routes |
|---|---|
| `api` | the rooms API (create, look up, join, watch, QR), the catalog, the links' base |
| `health` | /healthz and /metrics |
| `pages` | the web client's pages, the TV page's QR, the offline and static files |
| `sockets` | /ws: admission, throttles, the read loop |

They share one `Edge` (server/edge/context.py): settings, rooms, store,
throttles, trusted proxies and the cluster.

With `settings.redis` the app is one node of a cluster (docs/cluster.md):
rooms live in Redis, a room runs on the node that claims it, and any node
answers any request, by forwarding it to the room's node (server/cluster/forward.py)
or by adopting a room nobody holds. Sockets go to the room's node: a socket
that reaches another one gets `moved` and close 4010.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError

import game
from server.config import Settings, check_voice_codec
from server.edge.api import add_api_routes
from server.edge.context import Edge, Throttles
from server.edge.forwarded import TrustedProxies
from server.edge.health import add_health_routes
from server.edge.httpguard import BodyLimit, CrossSite, SecurityHeaders
from server.edge.langs import languages_for
from server.edge.pages import add_page_routes, mount_files
from server.edge.replies import error, validation_message
from server.edge.sockets import add_socket_route
from server.rooms.registry import Rooms
from server.rooms.voicelink import voice_module
from server.storage.sqlite import Store
from server.wire.wsdirect import RawSend

log = logging.getLogger(__name__)


def _own_origins(edge: Edge, scope: dict[str, Any]) -> list[str]:
    """Where this server's own pages may come from, beside the request's Host: the public
    URL, the Host a trusted proxy was asked for, and in cluster mode every node's host
    (a page of one node opens its socket on the room's node) and `csp_connect`."""
    settings = edge.settings
    out = [settings.public_url] if settings.public_url else []
    peer = (scope.get("client") or ("",))[0]
    if edge.proxies.trusts(peer):
        for key, value in scope.get("headers", ()):
            if key == b"x-forwarded-host":
                out.append("http://" + value.decode("latin-1").split(",")[-1].strip())
    if edge.cluster is not None:
        for url in edge.cluster.known_urls():
            host = url.split("://", 1)[-1].split("/", 1)[0]
            host = host.rsplit(":", 1)[0] if not host.endswith("]") else host
            out.append(f"http://{host}:*")
        out.extend(settings.csp_connect.split())
    return out


def _build_edge(settings: Settings) -> Edge:
    """The app's shared context: the store (SQLite, or Redis in cluster mode) and rooms."""
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
    return Edge(settings, rooms, store, proxies, Throttles.from_settings(settings),
                cluster=cluster, forward=forward)


def _lifespan(edge: Edge):
    """Start-up (the ICE guard, warm imports, joining the cluster, restoring rooms) and
    shut-down (closing rooms, leaving the cluster, closing the store)."""
    settings, rooms, cluster = edge.settings, edge.rooms, edge.cluster

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
        # player's welcome. A language's dictionaries are read when a room's game in it
        # starts or is replayed (server/rooms/play.py), also off the loop: only the
        # languages played are read (about a second of a core for all four).
        warm = [asyncio.create_task(asyncio.to_thread(voice_module)),
                asyncio.create_task(asyncio.to_thread(game.warm_up, ()))]
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
                await edge.forward.close()
                await cluster.r.aclose()
            else:
                edge.store.close()

    return lifespan


def create_app(settings: Settings) -> FastAPI:
    """The whole server as an ASGI app; rooms are restored from the store at start-up."""
    # The languages first: the extra folders reach the game core before anything reads it
    # (the catalog, a restored room in such a language).
    langs = languages_for(settings)
    edge = _build_edge(settings)
    cluster = edge.cluster

    async def drain() -> None:
        """SIGTERM in cluster mode (server/main.py): hand every room over before exiting."""
        if cluster is not None:
            await cluster.drain(settings.drain_timeout)

    # The API is documented in docs/protocol.md; its machine-readable schema and the
    # interactive page are served only when asked for (they list every endpoint).
    docs = "/docs" if settings.api_docs else None
    app = FastAPI(title="Sussurro", lifespan=_lifespan(edge), docs_url=docs, redoc_url=None,
                  openapi_url="/openapi.json" if settings.api_docs else None)
    app.state.settings, app.state.rooms, app.state.store = settings, edge.rooms, edge.store
    app.state.cluster, app.state.drain = cluster, drain
    # Another site's page is refused before any endpoint (and so before any throttle).
    app.add_middleware(CrossSite, also=functools.partial(_own_origins, edge))
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
        return error(422, "bad_request", validation_message(exc, 1))

    # In this order: the routes' order is the OpenAPI schema's (with `api_docs`).
    add_api_routes(app, edge)
    add_health_routes(app, edge)
    add_page_routes(app, edge)
    mount_files(app, edge, langs)
    add_socket_route(app, edge)
    return app
