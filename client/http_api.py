"""The HTTP side of the protocol as a client speaks it: posts that take seats, and where
a room is served (any node answers both in cluster mode)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from typing import Any

import httpx


class HttpError(Exception):
    """The server refused an HTTP request."""

    def __init__(self, status: int, body: Any) -> None:
        self.status = status
        self.body = body
        self.code = body.get("code") if isinstance(body, dict) else None
        super().__init__(f"HTTP {status}: {body}")


async def post(base_url: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
    """POST `body` as JSON; the JSON answer, or HttpError."""
    async with httpx.AsyncClient(base_url=base_url, timeout=10) as http:
        r = await http.post(path, json=body)
    data = r.json() if r.headers.get("content-type", "").startswith("application/json") else r.text
    if r.status_code != 200:
        raise HttpError(r.status_code, data)
    return data


async def locate(bases: Callable[[], Iterable[str | None]], code: str,
                 timeout: float = 10.0) -> str:
    """The URL of the node serving room `code` now, asked of the first of `bases()` (read
    again each round: the nodes a client knows change) that answers, round after round
    until `timeout` (TimeoutError); ConnectionError if the room is gone."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while True:
        for base in dict.fromkeys(bases()):
            if not base:
                continue
            try:
                async with httpx.AsyncClient(timeout=3) as http:
                    r = await http.get(f"{base}/api/rooms/{code}")
            except httpx.HTTPError:
                continue
            if r.status_code == 200:
                return (r.json().get("node") or base).rstrip("/")
            if r.status_code == 404:
                raise ConnectionError(f"room {code} is gone")
        if loop.time() > end:
            raise TimeoutError(f"room {code}: no node answers for it")
        await asyncio.sleep(0.25)
