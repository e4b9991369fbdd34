"""A host who edits the lobby's settings in a row keeps every edit, in each game's form
(Intruso's family, Impostore, Lupi Mannari).

Each timer field sends only the timer it changed, and each category tick the list as it
stands after the ticks before it: a field that sent what the form last drew would put
back the edits made just before, whenever the room's answer to them had not come back
yet (a host tabbing through the form). And the room's answer, which redraws the form,
leaves the field being typed in focused, with its text (a file picker keeps its focus
only: its value is no text to put back).
"""

from __future__ import annotations

import pytest

from tests.browser.harness import create_room, launch_player, wait_until

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# Per preset: each timer field and the value typed into it (every one off its default).
EDITS = {
    "intruso": {"clue": 20, "debate": 90, "vote": 25, "guess": 15, "pick": 10, "powers": 15},
    "classica": {"clue": 20, "discuss": 65, "guess": 15},
    "lupi": {"night": 5, "seer": 5, "wolves": 8, "day": 60, "vote": 40, "defence": 15},
}


# Two ticks in one go, before the room answers the first: both must count.
UNTICK_TWO = """() => {
  const boxes = [...document.querySelectorAll("input[name=category]")].slice(0, 2);
  for (const box of boxes) {
    box.checked = false;
    box.dispatchEvent(new Event("change", { bubbles: true }));
  }
  return boxes.map((b) => b.value);
}"""

# Every field given its value and committed (its `change`) in one go, before the room can
# answer any of them: what a host tabbing through the form does, without a test driver
# racing the redraws.
COMMIT_ALL = """(edits) => {
  for (const [key, seconds] of Object.entries(edits)) {
    const el = document.getElementById(`opt-timer-${key}`);
    el.value = String(seconds);
    el.dispatchEvent(new Event("change", { bubbles: true }));
  }
}"""


@pytest.fixture(scope="module")
def host(pw, tmp_path_factory):
    """One host page for the whole file (a browser start is most of each test's time);
    each test opens its own room on the module's server."""
    player = launch_player(pw, tmp_path_factory.mktemp("lobby"), "Ada", 520.0)
    yield player
    player.context.close()


def choose(host, server, preset: str) -> None:
    """A new room of `host`'s, set to `preset`."""
    create_room(server, host)
    if preset != "intruso":
        host.page.select_option("#opt-preset", preset)
    wait_until(lambda: host.state("s.room.settings.preset") == preset, what=preset)


@pytest.mark.parametrize("preset", list(EDITS))
def test_timers_edited_in_a_row_are_all_kept(shared_server, host, preset):
    choose(host, shared_server, preset)
    edits = EDITS[preset]
    for key in edits:
        host.page.wait_for_selector(f"#opt-timer-{key}")

    def held() -> dict:
        return host.state("s.room.settings.options.timers")

    def holding(want: dict) -> None:
        try:
            wait_until(lambda: all(held().get(k) == v for k, v in want.items()),
                       what=f"the timers {want}")
        except AssertionError as e:
            raise AssertionError(f"the room holds {held()}, typed {want}") from e

    host.page.evaluate(COMMIT_ALL, edits)
    holding(edits)
    for key, seconds in edits.items():
        assert host.page.input_value(f"#opt-timer-{key}") == str(seconds), key

    # Typing in the last field when the room's answer to the first one redraws the
    # form: the field keeps the focus (a phone keeps its keyboard) and the digits.
    first, last = list(edits)[0], list(edits)[-1]
    host.page.focus(f"#opt-timer-{last}")
    host.page.keyboard.press("Control+A")
    host.page.keyboard.type("12")
    host.page.evaluate(COMMIT_ALL, {first: edits[first] + 5})
    holding({first: edits[first] + 5})
    assert host.page.evaluate("document.activeElement.id") == f"opt-timer-{last}"
    assert host.page.input_value(f"#opt-timer-{last}") == "12"
    host.page.keyboard.type("0")
    host.page.keyboard.press("Tab")  # leaving the field commits it
    holding({first: edits[first] + 5, last: 120})
    assert not host.errors, host.errors


@pytest.mark.parametrize("preset", list(EDITS))
def test_a_redraw_between_selecting_a_timer_and_typing_over_it_keeps_the_selection(
        shared_server, host, preset):
    """A host selects a timer's value to type over it; someone's arrival (here: the
    room's answer to another field) redraws the form before the first digit. The new
    field keeps the selection, so the digits replace the old value: they are not appended
    to it (45 then "60" was 4560, refused as over the maximum, the old 45 kept without a word)."""
    choose(host, shared_server, preset)
    edits = EDITS[preset]
    first, last = list(edits)[0], list(edits)[-1]
    host.page.wait_for_selector(f"#opt-timer-{last}")
    host.page.evaluate(COMMIT_ALL, edits)  # every field holds a value (Impostore's may not)
    wait_until(lambda: host.state("s.room.settings.options.timers") | edits
               == host.state("s.room.settings.options.timers"), what=f"the timers {edits}")
    before = host.page.input_value(f"#opt-timer-{last}")
    assert before == str(edits[last]) != "35"
    host.page.focus(f"#opt-timer-{last}")
    host.page.keyboard.press("Control+A")
    host.page.evaluate(COMMIT_ALL, {first: edits[first] + 5})
    wait_until(lambda: host.state(f"s.room.settings.options.timers.{first}") == edits[first] + 5,
               what=f"{first} redrawn")
    assert host.page.evaluate("document.activeElement.id") == f"opt-timer-{last}"
    assert host.page.evaluate("[document.activeElement.selectionStart, document.activeElement.selectionEnd]") \
        == [0, len(before)]
    host.page.keyboard.type("35")
    host.page.keyboard.press("Tab")
    wait_until(lambda: host.state(f"s.room.settings.options.timers.{last}") == 35,
               what=f"{last} 35, typed over {before}")
    assert not host.errors, host.errors


def test_a_timer_out_of_range_is_refused_aloud_and_changes_nothing(shared_server, host):
    choose(host, shared_server, "lupi")
    host.page.wait_for_selector("#opt-timer-vote")
    held = host.state("s.room.settings.options.timers.vote")
    field = host.page.locator("#opt-timer-vote")
    assert field.get_attribute("inputmode") == "numeric"  # a phone shows its digit keys
    for typed in ("99999", "4x", "2"):  # too long, not digits, under the minimum
        field.fill(typed)
        field.dispatch_event("change")
        assert field.get_attribute("aria-invalid") == "true", typed
        message = field.evaluate("(el) => el.validationMessage")
        assert "secondi" in message and "5" in message, (typed, message)
        host.page.wait_for_timeout(300)  # what a wrongly sent edit would need to come back
        assert host.state("s.room.settings.options.timers.vote") == held, typed
    field.fill("50")  # typing again clears the mark; a good value is sent
    assert field.get_attribute("aria-invalid") is None
    field.dispatch_event("change")
    wait_until(lambda: host.state("s.room.settings.options.timers.vote") == 50, what="vote 50")
    assert not host.errors, host.errors


@pytest.mark.parametrize("preset", ["intruso", "classica"])
def test_categories_unticked_in_a_row_are_all_kept(shared_server, host, preset):
    choose(host, shared_server, preset)
    host.page.uncheck("#opt-cat-all")  # every category listed, each ticked
    wait_until(lambda: host.state("Array.isArray(s.room.settings.options.categories)"),
               what="the category list")
    every = host.state("s.room.settings.options.categories")
    host.page.wait_for_selector("input[name=category]")
    gone = host.page.evaluate(UNTICK_TWO)
    assert len(gone) == 2 and set(gone) <= set(every)
    want = [c for c in every if c not in gone]
    wait_until(lambda: host.state("s.room.settings.options.categories") == want,
               what=f"the categories without {gone}")
    assert not host.errors, host.errors


def test_a_redraw_while_a_word_file_is_chosen_keeps_the_form_working(shared_server, host):
    """The word list's file picker keeps its focus through a redraw; its value (a file
    name) is no typed text to put back, and the form goes on drawing."""
    choose(host, shared_server, "intruso")
    host.page.wait_for_selector("#opt-words-file")
    host.page.set_input_files("#opt-words-file", files=[{
        "name": "parole.txt", "mimeType": "text/plain", "buffer": b"gatto, cane\n"}])
    host.page.focus("#opt-words-file")
    host.page.evaluate(COMMIT_ALL, {"clue": 35})
    wait_until(lambda: host.state("s.room.settings.options.timers.clue") == 35, what="clue 35")
    assert host.page.evaluate("document.activeElement.id") == "opt-words-file"
    host.page.evaluate(COMMIT_ALL, {"clue": 40})  # and the next answer still redraws
    wait_until(lambda: host.page.input_value("#opt-timer-clue") == "40", what="redrawn")
    assert not host.errors, host.errors


def test_impostore_roles_ticked_in_a_row_are_all_kept(shared_server, host):
    choose(host, shared_server, "classica")
    host.page.wait_for_selector("input[name=role]")
    before = host.state("s.room.settings.options.roles") or []
    added = host.page.evaluate("""() => {
      const boxes = [...document.querySelectorAll("input[name=role]")].filter((b) => !b.checked).slice(0, 2);
      for (const box of boxes) {
        box.checked = true;
        box.dispatchEvent(new Event("change", { bubbles: true }));
      }
      return boxes.map((b) => b.value);
    }""")
    assert len(added) == 2 and not set(added) & set(before)
    wait_until(lambda: set(host.state("s.room.settings.options.roles") or []) == {*before, *added},
               what=f"the roles {before} and {added}")
    assert not host.errors, host.errors


def test_sosia_timers_start_empty_and_an_emptied_field_clears_one(shared_server, host):
    """Issue 29, item 13 (002 Varianti: "Timer: nessuno di base"): Sosia's lobby shows
    every timer empty ("nessuno"); a typed value sets one, an emptied field clears it."""
    choose(host, shared_server, "sosia")
    host.page.wait_for_selector("#opt-timer-clue")
    timers = host.state("s.room.settings.options.timers")
    assert timers and all(v is None for v in timers.values()), timers
    for key in timers:
        assert host.page.input_value(f"#opt-timer-{key}") == "", key
        assert host.page.get_attribute(f"#opt-timer-{key}", "placeholder") in (
            "nessuno", "aucun", "none"), key
    host.page.fill("#opt-timer-clue", "30")
    host.page.press("#opt-timer-clue", "Tab")
    wait_until(lambda: host.state("s.room.settings.options.timers.clue") == 30, what="clue 30")
    host.page.fill("#opt-timer-clue", "")
    host.page.press("#opt-timer-clue", "Tab")
    wait_until(lambda: host.state("s.room.settings.options.timers.clue") is None,
               what="clue cleared")
    assert not host.errors, host.errors


def test_the_moment_to_read_ones_card_is_the_hosts_to_set(shared_server, host):
    """Issue 31 item 11: Intruso's `reading_time` (the moment to read one's card before the
    first clue) is in the host's lobby, not only in the engine: a value in 0-60 is kept,
    anything else refused aloud."""
    choose(host, shared_server, "intruso")
    host.page.wait_for_selector("#opt-timer-reading")
    field = host.page.locator("#opt-timer-reading")
    assert field.input_value() == str(host.state("s.room.settings.options.reading_time"))
    field.fill("61")
    field.dispatch_event("change")
    assert field.get_attribute("aria-invalid") == "true"
    field.fill("30")
    field.dispatch_event("change")
    wait_until(lambda: host.state("s.room.settings.options.reading_time") == 30, what="30 s")
    field = host.page.locator("#opt-timer-reading")
    field.fill("0")
    field.dispatch_event("change")
    wait_until(lambda: host.state("s.room.settings.options.reading_time") == 0, what="none")
    assert not host.errors, host.errors
