"""The protocol edge: any frame is either a typed message or a ProtocolError with a stable code."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.wire.protocol import CLIENT_TYPES, ProtocolError, action_dict, parse

CODES = {"too_large", "bad_json", "unknown_type", "bad_message"}

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                   max_size=4),
    max_leaves=12,
)
messages = st.fixed_dictionaries(
    {"type": st.sampled_from(sorted(CLIENT_TYPES) + ["nope"])},
    optional={"action": json_values, "player": json_values, "to": json_values,
              "options": json_values, "sdp": json_values, "t": json_values, "ref": json_values,
              "extra": json_values},
)


@settings(max_examples=150, deadline=None)
@given(st.one_of(json_values, messages))
def test_any_json_is_a_message_or_a_stable_refusal(value):
    try:
        msg = parse(json.dumps(value))
    except ProtocolError as exc:
        assert exc.code in CODES
    else:
        assert msg.type in CLIENT_TYPES


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=64) | st.text(max_size=64))
def test_any_bytes_or_text_never_crash_the_parser(frame):
    try:
        parse(frame)
    except ProtocolError as exc:
        assert exc.code in CODES


@pytest.mark.parametrize("action", [
    {"type": "bind", "target": "p2"},
    {"type": "intoxicate", "targets": ["p2", "p3"]},
    {"type": "clue", "text": "miagola"},
    {"type": "ready"},
    {"type": "swap", "target": "p4"},
    {"type": "vote", "target": "p1"},
    {"type": "judge", "target": "p1"},
    {"type": "avenge", "target": "p1"},
    {"type": "guess", "word": "gatto"},
])
def test_every_action_of_the_contract_table_passes_unchanged(action):
    msg = parse(json.dumps({"type": "action", "action": action}))
    assert action_dict(msg) == action


@pytest.mark.parametrize("frame, code", [
    ("x" * 20000, "too_large"),
    ("{", "bad_json"),
    ('"hello"', "bad_message"),
    ('{"type": 3}', "bad_message"),
    ('{"type": "dance"}', "unknown_type"),
    ('{"type": "ping", "t": "now"}', "bad_message"),
    ('{"type": "kick", "player": ""}', "bad_message"),
    ('{"type": "action", "action": {"type": "clue", "text": {"a": 1}}}', "bad_message"),
    ('{"type": "action", "action": {"type": "clue", "text": [[1]]}}', "bad_message"),
    ('{"type": "action", "action": {"type": "CLUE"}}', "bad_message"),
    ('{"type": "action", "action": {"type": "vote", "Target": "p1"}}', "bad_message"),
    ('{"type": "action", "action": {"type": "vote", "t": 1e999}}', "bad_message"),
    ('{"type": "action", "action": {"type": "vote", "a": 1, "b": 2, "c": 3, "d": 4, "e": 5, '
     '"f": 6, "g": 7, "h": 8}}', "bad_message"),
    ('{"type": "action", "action": "vote"}', "bad_message"),
    ('{"type": "action", "action": {"type": "clue", "text": "' + "a" * 201 + '"}}',
     "bad_message"),
    ('{"type": "start", "sneaky": true}', "bad_message"),
])
def test_refusal_codes(frame, code):
    with pytest.raises(ProtocolError) as info:
        parse(frame)
    assert info.value.code == code
