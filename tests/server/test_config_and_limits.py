"""Settings precedence, token buckets, codes and tokens (pure units, no server)."""

from __future__ import annotations

import json

from server.config import Settings, load_settings
from server.rooms.codes import ALPHABET, hash_token, new_room_code, new_token, normalise_code
from server.throttle import KeyedBuckets, TokenBucket


def test_environment_overrides_defaults_and_flags_override_the_environment():
    env = {"SUSSURRO_PORT": "9001", "SUSSURRO_DB": "/tmp/x.db", "SUSSURRO_HOST": "0.0.0.0",
           "SUSSURRO_LOG_LEVEL": "debug", "SUSSURRO_JOIN_BURST": "3",
           "SUSSURRO_ICE_SERVERS": json.dumps([{"urls": "stun:stun.example.org:3478"}]),
           "UNRELATED": "1"}
    s = load_settings({"port": 9002, "db": None}, env)
    assert s.port == 9002 and s.db == "/tmp/x.db" and s.host == "0.0.0.0"
    assert s.log_level == "debug" and s.join_burst == 3.0
    assert s.ice_servers == ({"urls": "stun:stun.example.org:3478"},)
    assert load_settings({}, {}) == Settings()
    assert Settings().ice_servers == () and Settings().host == "127.0.0.1"


def test_a_token_bucket_allows_a_burst_then_the_rate():
    now = [0.0]
    bucket = TokenBucket(rate=1.0, burst=10, clock=lambda: now[0])
    assert [bucket.take() for _ in range(11)] == [True] * 10 + [False]
    assert bucket.retry_after() == 1.0
    now[0] += 2.5
    assert [bucket.take() for _ in range(3)] == [True, True, False]


def test_keyed_buckets_are_independent_and_forget_idle_keys():
    now = [0.0]
    buckets = KeyedBuckets(rate=1.0, burst=2, max_keys=4, clock=lambda: now[0])
    assert buckets.take("a") and buckets.take("a") and not buckets.take("a")
    assert buckets.take("b")
    for key in "cdefgh":
        buckets.take(key)
    assert len(buckets._buckets) <= 4


def test_room_codes_and_tokens():
    codes = {new_room_code() for _ in range(500)}
    assert all(len(c) == 5 and set(c) <= set(ALPHABET) for c in codes)
    assert len(codes) > 490
    assert normalise_code(" k7qmx ") == "K7QMX" and normalise_code("K0QMX") is None
    token = new_token()
    assert len(token) == 32 and hash_token(token) != token and len(hash_token(token)) == 64


def test_game_events_become_cues_for_the_right_listeners():
    from game.cues import cues_for

    everyone = ["p1", "p2", "p3"]
    events = [{"type": "phase", "phase": "clues"}, {"type": "turn", "player": "p2"},
              {"type": "vote_open"}, {"type": "eliminated", "player": "p3"},
              {"type": "game_over", "winners": ["p1", "p3"]}]
    assert cues_for(events, everyone) == [
        ("your_turn", ["p2"]), ("vote_open", everyone), ("elimination", everyone),
        ("victory", ["p1", "p3"]), ("defeat", ["p2"])]
    assert cues_for([{"type": "game_over", "winners": everyone}], everyone) == [
        ("victory", everyone)]  # nobody to tell "defeat"


def test_mouths_show_only_what_the_policy_allows_and_silence_once():
    from server.rooms.voicelink import VoiceLink

    sent: list[dict] = []
    allowed = {"p1", "p2"}
    link = VoiceLink("ROOMS", [], lambda text: sent.append(json.loads(text)), lambda: allowed,
                     lambda: None)
    link._on_mouths({"p1": 0.51234, "p2": 0.0, "p3": 0.9})  # p3 muted: closed, as p2
    assert sent == [{"type": "mouths", "levels": {"p1": 0.512}}]
    link._on_mouths({"p1": 0.0, "p2": 0.0, "p3": 0.7})
    link._on_mouths({"p1": 0.0, "p2": 0.0, "p3": 0.7})  # silence again: not repeated
    assert sent[1:] == [{"type": "mouths", "levels": {}}]


async def test_the_voice_codec_setting_reaches_the_rooms_encoders_and_a_bad_one_stops_start_up():
    import pytest

    from server.edge.app import create_app
    from server.media.opus import OpusSettings
    from server.rooms.voicelink import VoiceLink, routing

    assert load_settings({}, {"SUSSURRO_VOICE_CODEC": "silk"}).voice_codec == "silk"
    assert Settings().voice_codec == "celt"
    for codec, application in (("celt", "lowdelay"), ("silk", "voip")):
        link = VoiceLink("ROOMS", [], lambda text: None, lambda: (), lambda: routing(()),
                         codec=codec)
        voice = await link._ensure()
        try:
            assert voice._opus == OpusSettings.for_codec(codec)
            assert voice._opus.application == application
        finally:
            await link.stop()
    with pytest.raises(ValueError, match="voice_codec"):
        create_app(Settings(voice_codec="mp3", db=":memory:"))
