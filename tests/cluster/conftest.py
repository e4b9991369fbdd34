"""Fixtures of the cluster tests: a real redis-server per module, a fresh key prefix per test."""

from __future__ import annotations

import itertools

import pytest

from tests.support.redis_proc import RedisProc

_prefixes = itertools.count(1)


@pytest.fixture(scope="module")
def redis_proc(tmp_path_factory):
    """One real redis-server for the module (tests keep apart by key prefix)."""
    proc = RedisProc(tmp_path_factory.mktemp("redis"))
    proc.start()
    try:
        yield proc
    finally:
        proc.stop()


@pytest.fixture
def prefix() -> str:
    """A key prefix no other test of the module uses."""
    return f"t{next(_prefixes)}:"


@pytest.fixture
async def aredis(redis_proc):
    """An asyncio client of the module's Redis, closed after the test."""
    from redis.asyncio import Redis

    client = Redis.from_url(redis_proc.url, decode_responses=True)
    try:
        yield client
    finally:
        await client.aclose()
