"""The edge's refusals in their one {code, message} shape, and the JSON body reader."""

from __future__ import annotations

from typing import Any

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ValidationError

from server.throttle import KeyedBuckets
from server.wire import protocol as P


def error(status: int, code: str, message: str, **extra: Any) -> JSONResponse:
    """The refusal `{code, message, **extra}`; a `retry_after` also goes in Retry-After."""
    headers = {}
    if "retry_after" in extra:
        headers["Retry-After"] = str(max(1, int(extra["retry_after"] + 0.999)))
    return JSONResponse({"code": code, "message": message, **extra}, status_code=status,
                        headers=headers)


def validation_message(exc: ValidationError | RequestValidationError, skip: int) -> str:
    """The first validation error as `where: what`, its location less `skip` leading parts."""
    first = exc.errors()[0] if exc.errors() else {}
    where = ".".join(str(p) for p in first.get("loc", ())[skip:]) or "body"
    return f"{where}: {first.get('msg', 'invalid request')}"


def throttled(buckets: KeyedBuckets, key: str, what: str) -> JSONResponse | None:
    """None when `key` may go on, else the 429 that says when to come back."""
    bucket = buckets.bucket(key)
    if bucket.take():
        return None
    return error(429, P.RATE_LIMITED, f"too many {what}; slow down",
                 retry_after=bucket.retry_after())


async def read_body(request: Request, model: type[BaseModel]) -> BaseModel | JSONResponse:
    """The request's JSON body as `model`, or the 422 `bad_request` to answer.

    Called by an endpoint after its throttle, so a refused request is never
    read; the body's size is already bounded by `BodyLimit`.
    """
    raw = await request.body()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return error(422, "bad_request", "body: not UTF-8 JSON")
    if P.too_deep(text):
        return error(422, "bad_request", f"body: nested deeper than {P.MAX_DEPTH} levels")
    try:
        return model.model_validate(P.loads(text))
    except (ValueError, RecursionError) as exc:
        if isinstance(exc, ValidationError):
            return error(422, "bad_request", validation_message(exc, 0))
        if isinstance(exc, P.BadText):
            return error(422, "bad_request", f"body: {exc}")
        return error(422, "bad_request", "body: not valid JSON")
