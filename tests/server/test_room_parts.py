"""Issue 30: the Room in parts. The dispatcher covers the protocol, and every part fits in
one head (no class in server/rooms over ~300 lines)."""

from __future__ import annotations

import ast
from pathlib import Path

from server.rooms.handlers import HANDLERS, SPECTATOR_HANDLERS
from server.rooms.spectators import SPECTATOR_MESSAGES
from server.wire.protocol import CLIENT_TYPES

ROOMS = Path(__file__).resolve().parents[2] / "server" / "rooms"


def test_issue30_every_client_message_type_has_exactly_one_handler_in_the_dispatch_table():
    assert set(HANDLERS) == set(CLIENT_TYPES)


def test_issue30_a_spectator_screen_is_dispatched_only_the_types_it_may_send():
    assert set(SPECTATOR_HANDLERS) == set(SPECTATOR_MESSAGES)
    assert SPECTATOR_HANDLERS["leave"] is not HANDLERS["leave"]  # it gives its pass back


def test_issue30_no_class_of_the_rooms_package_is_over_300_lines():
    long = []
    for path in sorted(ROOMS.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and node.end_lineno - node.lineno + 1 > 300:
                long.append(f"{path.relative_to(ROOMS)}:{node.name}")
    assert long == []
