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


# The parts name small protocols of what they need of the room (server/rooms/ports.py),
# not the Room facade, so the package has no import circle (the `acyclic` contract).
# No type checker runs in the test command: these two tests keep the protocols honest.

def _port_members(port: type) -> set[str]:
    """The attributes and methods a protocol of server/rooms/ports.py names (its bases' too)."""
    from server.rooms import ports

    names: set[str] = set()
    for cls in port.__mro__:
        if cls.__module__ == ports.__name__:
            names |= set(cls.__dict__.get("__annotations__", {}))
            names |= {k for k, v in vars(cls).items() if callable(v) and not k.startswith("_")}
    return names


def test_issue30_the_room_facade_meets_every_port_of_its_parts():
    from server.config import Settings
    from server.rooms import ports
    from server.rooms.room import Room

    room = Room("ABCD", None, Settings())  # the constructor only keeps the store
    for port in (ports.Parts, ports.Choices, ports.Game, ports.Presence,
                 ports.GameRoom, ports.LiveRoom, ports.StoredRoom):
        missing = sorted(n for n in _port_members(port) if not hasattr(room, n))
        assert missing == [], f"Room lacks {port.__name__}'s {missing}"
    for name in ("now", "schedule", "post"):
        assert callable(getattr(room, name))


def _room_functions():
    """(module, function node, its port) for every part function whose first argument is
    `room: <a port>`."""
    import importlib

    from server.rooms import ports

    for path in sorted(ROOMS.rglob("*.py")):
        rel = path.relative_to(ROOMS.parent.parent).with_suffix("")
        name = ".".join(rel.parts).removesuffix(".__init__")
        module = importlib.import_module(name)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.args.args:
                first = node.args.args[0]
                ann = first.annotation
                if first.arg == "room" and isinstance(ann, ast.Name):
                    assert ann.id != "Room", f"{name}.{node.name} names the facade"
                    if isinstance(getattr(ports, ann.id, None), type):
                        yield module, node, getattr(ports, ann.id)


def _callee(module, func: ast.expr):
    """A called name resolved in `module` (`f` or `mod.f`), or None."""
    if isinstance(func, ast.Name):
        return getattr(module, func.id, None)
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        return getattr(getattr(module, func.value.id, None), func.attr, None)
    return None


def test_issue30_each_part_uses_only_what_its_port_names():
    """Every `room.x` a part function reads or writes is in its port, and a function it
    hands the room to asks for no more than that port (what a type checker would say)."""
    from server.rooms import handlers, ports

    wrong, checked = [], 0
    for module, node, port in _room_functions():
        have = _port_members(port)
        where = f"{module.__name__}.{node.name} ({port.__name__})"
        for sub in ast.walk(node):
            if (isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name)
                    and sub.value.id == "room" and sub.attr not in have):
                wrong.append(f"{where} uses room.{sub.attr}")
            if isinstance(sub, ast.Call) and any(
                    isinstance(a, ast.Name) and a.id == "room" for a in sub.args):
                target = _callee(module, sub.func)
                need = getattr(ports, getattr(target, "__annotations__", {}).get("room", ""),
                               None)
                if isinstance(need, type):
                    more = _port_members(need) - have
                    if more:
                        wrong.append(f"{where} hands the room to {target.__name__} "
                                     f"({need.__name__}), which also needs {sorted(more)}")
        checked += 1
    # The dispatcher hands its room to every handler of its tables.
    have = _port_members(getattr(ports, handlers.dispatch.__annotations__["room"]))
    for handler in {**handlers.HANDLERS, **handlers.SPECTATOR_HANDLERS}.values():
        need = _port_members(getattr(ports, handler.__annotations__["room"]))
        if need - have:
            wrong.append(f"dispatch cannot give {handler.__name__} {sorted(need - have)}")
    assert checked > 40  # the parts' functions were all found
    assert wrong == []
