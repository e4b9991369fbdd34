"""Issue 8, names: "Ada" beside "Ada" + an invisible filler, a Cyrillic "А", a
full-width "Ａｄａ", or names made only of blank-looking characters were accepted,
so one seat could pose as another. Names are cleaned like clues, unique by their
look-alike skeleton, and need a visible letter or digit.
"""

from __future__ import annotations

import httpx
import pytest

from server.rooms.seats import RoomError, clean_name, pick_color, same_name

LOOK_ALIKES_OF_ADA = [
    "Ada\u3164",  # Hangul filler
    "A\u200bda",  # zero width space
    "Ada\u2060\u2060",  # word joiners
    "\u0410da",  # Cyrillic capital A
    "Ad\u0430",  # Cyrillic small a
    "Ａｄａ",  # full width
    "𝐀𝐝𝐚",  # mathematical bold
    "ADA",
    " ada ",
    "Adà",
]

BLANK_NAMES = [
    "\u3164",  # Hangul filler
    "\u3164\u3164\u3164",
    "\u2800\u2800",  # Braille blank
    "\u200b\u200b",
    "\u115f\u1160",  # Hangul choseong / jungseong fillers
    "\ufe0f",
    "\u0301\u0301",  # combining marks with nothing to sit on
    "\u202e\u202d",
    "...",
    "\U000e0041\U000e0042",  # tag characters
]


@pytest.mark.parametrize("other", LOOK_ALIKES_OF_ADA)
def test_look_alike_names_share_a_key(other):
    assert same_name(clean_name(other), "Ada")


@pytest.mark.parametrize("other", ["Adam", "Ida", "Ava", "Aba"])
def test_different_names_keep_different_keys(other):
    assert not same_name(clean_name(other), "Ada")


def test_a_capital_i_and_a_small_l_share_a_key():
    assert same_name("AI", "Al") and same_name("Al", "A1") and same_name("AI", "A1")


@pytest.mark.parametrize("other", ["ivan", "IVAN", "iVaN", "lvan"])
def test_names_differing_in_case_only_collide_even_with_a_capital_i(other):
    # The skeleton maps I to l before folding case: "Ivan" -> "lvan" but "ivan" -> "ivan".
    assert same_name("Ivan", other) and same_name(other, "Ivan")


@pytest.mark.parametrize("name", BLANK_NAMES)
def test_a_name_of_blank_looking_characters_is_refused(name):
    with pytest.raises(RoomError) as info:
        clean_name(name)
    assert info.value.code == "bad_name"


def test_the_stored_name_is_the_cleaned_one():
    assert clean_name("Ａｄａ\u200b  Lovelace\u3164") == "Ada Lovelace"
    assert clean_name("Zoë 🐱") == "Zoë 🐱"
    assert clean_name("R2-D2") == "R2-D2"


def test_join_refuses_a_look_alike_of_a_seated_name(shared_server):
    room = httpx.post(shared_server.url("/api/rooms"), json={"name": "Ada"}).json()
    join = shared_server.url(f"/api/rooms/{room['code']}/join")
    for other in ("Ada\u3164", "\u0410da", "Ａｄａ"):
        r = httpx.post(join, json={"name": other})
        assert r.status_code == 409 and r.json()["code"] == "name_taken", other
    for blank in ("\u3164\u3164", "\u2800", "\u200b"):
        r = httpx.post(join, json={"name": blank})
        assert r.status_code == 422 and r.json()["code"] == "bad_name", repr(blank)
    assert httpx.post(join, json={"name": "Bob\u200b"}).status_code == 200
    info = httpx.get(shared_server.url(f"/api/rooms/{room['code']}")).json()
    assert [p["name"] for p in info["players"]] == ["Ada", "Bob"]


def test_join_refuses_a_name_differing_in_case_only_from_one_with_a_capital_i(shared_server):
    room = httpx.post(shared_server.url("/api/rooms"), json={"name": "Ivan"}).json()
    join = shared_server.url(f"/api/rooms/{room['code']}/join")
    for other in ("ivan", "IVAN"):
        r = httpx.post(join, json={"name": other})
        assert r.status_code == 409 and r.json()["code"] == "name_taken", other


@pytest.mark.parametrize("color", ["#aabbcc\n", "#aabbcc ", " #aabbcc", "#aabbccdd", "#aabbc"])
def test_a_colour_is_exactly_rrggbb(color):
    # Issue 8: "$" let a trailing newline through.
    with pytest.raises(RoomError) as info:
        pick_color(color, set(), 1)
    assert info.value.code == "bad_color"
    assert pick_color("#AABBCC", set(), 1) == "#aabbcc"
