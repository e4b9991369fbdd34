"""A server reads a language's lemma dictionaries when a game in it starts or is replayed,
not all of them at start-up (about a second of a core for the four, at every start of a
server or cluster node), and never on the loop that carries the rooms' voice.

/metrics says how many it has read (`sussurro_lemma_dictionaries`)."""

from __future__ import annotations

import re
import time

import httpx

from tests.server.roomkit import close_all, started


def _read(srv) -> int:
    text = httpx.get(srv.url("/metrics"), timeout=10).text
    m = re.search(r"^sussurro_lemma_dictionaries (\d+)$", text, re.M)
    assert m, text
    return int(m.group(1))


def _after_warm_up(srv) -> int:
    # The start-up warm-up runs in a thread after /healthz answers: its work (the voice
    # stack, the text tables) is done once the count stays put for a while.
    end, last, since = time.monotonic() + 20, None, time.monotonic()
    while time.monotonic() < end:
        now = _read(srv)
        if now != last:
            last, since = now, time.monotonic()
        elif time.monotonic() - since > 4:
            break
        time.sleep(0.5)
    return last


async def test_a_server_reads_the_dictionaries_of_the_languages_played(server):
    assert _after_warm_up(server) == 0          # before: all four at start-up
    clients = await started(server, 4, {"lang": "fr"})
    assert _read(server) == 1
    await close_all(clients)
    # A restart replays the French game: its dictionary is read again, and only it.
    server.restart()
    assert _after_warm_up(server) == 1
