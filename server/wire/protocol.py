"""The WebSocket protocol's edge: parse and validate every incoming frame.

`parse(text)` turns one frame into a typed message or raises `ProtocolError`
with a stable code. Nothing else in the server sees raw client JSON.
docs/protocol.md is the reference for every message, both directions.
"""

from __future__ import annotations

import json
import math
import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

MAX_FRAME = 16 * 1024
# No message needs more than a few levels ({"options": {"timers": {...}}}); deeper
# nesting is refused before anything recurses into it.
MAX_DEPTH = 16

# Stable error codes of the server itself (the game's GameError codes pass through).
TOO_LARGE = "too_large"
BAD_JSON = "bad_json"
UNKNOWN_TYPE = "unknown_type"
BAD_MESSAGE = "bad_message"
RATE_LIMITED = "rate_limited"
NOT_HOST = "not_host"
WRONG_PHASE = "wrong_phase"
WHISPER_NOT_ALLOWED = "whisper_not_allowed"
UNKNOWN_PLAYER = "unknown_player"
NAME_BANNED = "name_banned"
# The browser (its device cookie) belongs to someone the host removed: no seat, no pass.
BANNED = "banned"
NOT_BANNED = "not_banned"
BAD_TOKEN = "bad_token"
REPLACED = "replaced"
KICKED = "kicked"
LEFT = "left"
VOICE_UNAVAILABLE = "voice_unavailable"
TOO_MANY_CONNECTIONS = "too_many_connections"
INTERNAL = "internal"
# A spectator's socket sent something only a seated player may send.
SPECTATOR = "spectator"
# The room already has its `max_spectators` passes.
SPECTATORS_FULL = "spectators_full"
# Cluster mode: the room is served by another node now (a `moved` message names it).
ROOM_MOVED = "room_moved"
# The room store (Redis) could not be reached; nothing changed.
STORE_UNAVAILABLE = "store_unavailable"

# WebSocket close codes (4000-4999 are the application's).
CLOSE_REPLACED = 4000
CLOSE_BAD_TOKEN = 4001
CLOSE_KICKED = 4003
CLOSE_LEFT = 4004
CLOSE_ROOM_CLOSED = 4005
CLOSE_ABUSE = 4029
# Cluster mode: the room moved to another node; reconnect there (not a final close).
CLOSE_MOVED = 4010
CLOSE_SLOW = 1013  # "try again later": the client may reconnect


class ProtocolError(Exception):
    """A frame the server refuses; `code` is one of the stable codes above."""

    def __init__(self, code: str, message: str, ref: Any = None) -> None:
        super().__init__(message)
        self.code, self.message, self.ref = code, message, ref


class _Model(BaseModel):
    # Strict: "1" is not 1; unknown fields are a client bug worth reporting.
    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)


PlayerId = Annotated[str, Field(min_length=1, max_length=32)]
Ref = Annotated[str | int | None, Field(default=None)]


# Actions: the shape only, the same for every game. Which types exist, when and by whom,
# and what their fields mean is the game core's to say (game.apply refuses the rest with
# `bad_action`, `wrong_phase`, ...): the server knows no game's action names.
ACTION_KEY = re.compile(r"[a-z][a-z_]{0,23}")
MAX_ACTION_FIELDS = 8
MAX_ACTION_TEXT = 200
MAX_ACTION_LIST = 16


def check_action(action: Any) -> dict[str, Any]:
    """A game action as the core takes it: {"type": name, field: value, ...}.

    Field names are short snake_case words; values are short strings, whole or
    finite numbers, booleans, null, or short lists of strings and numbers.
    Raises ValueError with the first problem.
    """
    if not isinstance(action, dict):
        raise ValueError("action: an object with a 'type'")
    if len(action) > MAX_ACTION_FIELDS:
        raise ValueError(f"action: at most {MAX_ACTION_FIELDS} fields")
    if not isinstance(action.get("type"), str) or not ACTION_KEY.fullmatch(action["type"]):
        raise ValueError("action.type: a short snake_case name")
    for key, value in action.items():
        if not isinstance(key, str) or not ACTION_KEY.fullmatch(key):
            raise ValueError("action: field names are short snake_case words")
        items = value if isinstance(value, list) else [value]
        if isinstance(value, list) and len(value) > MAX_ACTION_LIST:
            raise ValueError(f"action.{key}: at most {MAX_ACTION_LIST} items")
        for item in items:
            if isinstance(item, list) or isinstance(item, dict):
                raise ValueError(f"action.{key}: no nested objects or lists")
            if isinstance(item, str) and len(item) > MAX_ACTION_TEXT:
                raise ValueError(f"action.{key}: at most {MAX_ACTION_TEXT} characters")
            if isinstance(item, float) and not math.isfinite(item):
                raise ValueError(f"action.{key}: not a finite number")
            if item is not None and not isinstance(item, (str, int, float, bool)):
                raise ValueError(f"action.{key}: not a JSON scalar")
    return action


# Client -> server messages.

class Hello(_Model):
    """Optional greeting; the server answers with welcome, room and view again."""

    type: Literal["hello"]
    ref: Ref = None
    client: Annotated[str, Field(max_length=64)] | None = None
    lang: Annotated[str, Field(max_length=8)] | None = None


class VoiceOptions(_Model):
    """The room's voice settings, the same for every game (docs/protocol.md, "Voice")."""

    spatial: bool | None = None  # voices placed around the table (stereo)


class SettingsMsg(_Model):
    type: Literal["settings"]
    ref: Ref = None
    options: dict[str, Any] = Field(default_factory=dict)
    preset: Annotated[str, Field(max_length=32)] | None = None
    voice: VoiceOptions | None = None


# A listener's own volumes: at most this many voices named in one message.
MAX_VOLUMES = 64
MAX_GAIN = 1.5
Gain = Annotated[float, Field(ge=0.0, le=MAX_GAIN)]


class Volumes(_Model):
    """The sender's own volume for other voices (0..1.5) and their personal mutes; the
    whole set each time (voices not named are at 1)."""

    type: Literal["volumes"]
    ref: Ref = None
    gains: Annotated[dict[PlayerId, Gain], Field(max_length=MAX_VOLUMES)] = Field(
        default_factory=dict)
    muted: Annotated[list[PlayerId], Field(max_length=MAX_VOLUMES)] = Field(default_factory=list)
    # one's own mix not placed by seat (one earbud), while the room places the voices
    mono: bool = False


class Start(_Model):
    type: Literal["start"]
    ref: Ref = None


class Kick(_Model):
    type: Literal["kick"]
    ref: Ref = None
    player: PlayerId


class Unban(_Model):
    """The host lets a kicked name back in (docs/protocol.md, "Kicks")."""

    type: Literal["unban"]
    ref: Ref = None
    name: Annotated[str, Field(min_length=1, max_length=100)]


class PassHost(_Model):
    type: Literal["pass_host"]
    ref: Ref = None
    player: PlayerId


class Rematch(_Model):
    type: Literal["rematch"]
    ref: Ref = None


class ActionMsg(_Model):
    type: Literal["action"]
    ref: Ref = None
    action: dict[str, Any]


class WhisperStart(_Model):
    type: Literal["whisper_start"]
    ref: Ref = None
    to: PlayerId


class WhisperStop(_Model):
    type: Literal["whisper_stop"]
    ref: Ref = None


class RtcOffer(_Model):
    type: Literal["rtc_offer"]
    ref: Ref = None
    sdp: Annotated[str, Field(min_length=1, max_length=MAX_FRAME)]


class RtcIce(_Model):
    type: Literal["rtc_ice"]
    ref: Ref = None
    # RTCIceCandidateInit as the browser gives it, or null at the end of gathering.
    candidate: dict[str, Any] | str | None = None


class Ping(_Model):
    type: Literal["ping"]
    ref: Ref = None
    t: float | int | None = None


class Leave(_Model):
    type: Literal["leave"]
    ref: Ref = None


class Ice(_Model):
    """Fresh ICE servers (TURN credentials live minutes); answered with `ice_servers`."""

    type: Literal["ice"]
    ref: Ref = None


ClientMessage = Annotated[
    Hello | SettingsMsg | Start | Kick | Unban | PassHost | Rematch | ActionMsg | WhisperStart
    | WhisperStop | RtcOffer | RtcIce | Ping | Leave | Volumes | Ice,
    Field(discriminator="type"),
]
CLIENT_TYPES = frozenset(
    {"hello", "settings", "start", "kick", "unban", "pass_host", "rematch", "action",
     "whisper_start", "whisper_stop", "rtc_offer", "rtc_ice", "ping", "leave", "volumes",
     "ice"}
)
_ADAPTER: TypeAdapter[Any] = TypeAdapter(ClientMessage)


_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_BRACKET = re.compile(r"[\[\]{}]")


def too_deep(text: str, limit: int = MAX_DEPTH) -> bool:
    """True if the JSON `text` nests arrays/objects more than `limit` levels (strings
    are skipped, so brackets inside them do not count). Linear, no recursion."""
    depth = 0
    for m in _BRACKET.finditer(_STRING.sub("", text)):
        if m.group() in "[{":
            depth += 1
            if depth > limit:
                return True
        else:
            depth -= 1
    return False


class OutOfRange(ValueError):
    """Valid JSON, but a number no float can hold (it would become infinity)."""


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise OutOfRange(f"number {text[:20]} out of range")
    return value


class BadText(ValueError):
    """Valid JSON, but a string holds a lone UTF-16 surrogate ("\\ud800"): not Unicode
    text, and it would fail later, wherever the text is encoded (the log, a reply)."""


_SURROGATE = re.compile("[\ud800-\udfff]")


def _check_text(value: Any, where: str) -> None:
    """Raise BadText naming the first string (value or key) with a surrogate in it."""
    if isinstance(value, str):
        if _SURROGATE.search(value):
            raise BadText(f"{where or 'message'}: text with a lone surrogate is not Unicode")
    elif isinstance(value, dict):
        for key, item in value.items():
            name = f"{where}.{key}" if where else str(key)
            if _SURROGATE.search(key):
                raise BadText(f"{where or 'message'}: a field name with a lone surrogate")
            _check_text(item, name)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _check_text(item, f"{where}.{i}" if where else str(i))


def loads(text: str) -> Any:
    """Strict JSON: NaN and Infinity, which JSON does not have, raise ValueError; a
    number that overflows to infinity raises OutOfRange (Python's json takes all three);
    a lone surrogate in a string raises BadText (Python's json decodes "\\ud800")."""
    value = json.loads(text, parse_constant=_no_constant, parse_float=_finite)
    if "\\u" in text:  # only an escape can make a surrogate: UTF-8 text holds none
        _check_text(value, "")
    return value


def parse(frame: str | bytes, max_frame: int = MAX_FRAME) -> Any:
    """Validate one WebSocket frame into a client message model.

    Raises ProtocolError with code too_large, bad_json, unknown_type or
    bad_message; the caller replies with an error and changes nothing.
    """
    size = len(frame) if isinstance(frame, bytes) else len(frame.encode("utf-8"))
    if size > max_frame:
        raise ProtocolError(TOO_LARGE, f"frame of {size} bytes exceeds {max_frame}")
    if isinstance(frame, bytes):
        try:
            frame = frame.decode("utf-8")
        except UnicodeDecodeError:
            raise ProtocolError(BAD_JSON, "frames are UTF-8 JSON text") from None
    if too_deep(frame):
        raise ProtocolError(BAD_MESSAGE, f"nested deeper than {MAX_DEPTH} levels")
    try:
        data = loads(frame)
    except (OutOfRange, BadText) as exc:
        raise ProtocolError(BAD_MESSAGE, str(exc)) from None
    except (ValueError, RecursionError):
        raise ProtocolError(BAD_JSON, "not valid JSON") from None
    if not isinstance(data, dict):
        raise ProtocolError(BAD_MESSAGE, "a message is a JSON object with a 'type'")
    ref = data.get("ref") if isinstance(data.get("ref"), str | int) else None
    kind = data.get("type")
    if not isinstance(kind, str):
        raise ProtocolError(BAD_MESSAGE, "missing or non-string 'type'", ref)
    if kind not in CLIENT_TYPES:
        raise ProtocolError(UNKNOWN_TYPE, f"unknown message type {kind[:40]!r}", ref)
    if kind == "action" and "action" in data:
        try:
            check_action(data["action"])
        except ValueError as exc:
            raise ProtocolError(BAD_MESSAGE, str(exc), ref) from None
    try:
        return _ADAPTER.validate_python(data)
    except ValidationError as exc:
        raise ProtocolError(BAD_MESSAGE, _describe(exc), ref) from None


def _describe(exc: ValidationError) -> str:
    """The first validation problem, short and readable."""
    err = exc.errors(include_url=False)[0]
    loc = ".".join(str(p) for p in err["loc"][1:]) or "message"
    return f"{loc}: {err['msg']}"


def action_dict(msg: ActionMsg) -> dict[str, Any]:
    """The action as the plain dict game.apply takes (and the log stores)."""
    return dict(msg.action)


def error(code: str, message: str = "", ref: Any = None, detail: Any = None) -> dict[str, Any]:
    """An outgoing error message."""
    out: dict[str, Any] = {"type": "error", "code": code, "message": message or code}
    if ref is not None:
        out["ref"] = ref
    if detail:
        out["detail"] = detail
    return out
