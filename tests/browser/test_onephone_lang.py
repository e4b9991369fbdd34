"""Issue 37 item 6, the one-phone page (web/offline/) in real Chromium at 390x844:

- every visible text follows a change of language, a refusal shown before it included: the
  Italian vote screen once kept "That cannot be done in this phase." from the English page
  (the page keeps the refusal's code and words it again in the new language);
- the options' labels (the timers' grid above all: "Dibattit/o", "Vendicat/ore") wrap
  between words, never inside one, in every language of the manifest (game/langs/) for every game offered.
"""

from __future__ import annotations

import pytest

from tests.browser.harness import SCREENS, i18n, ui_langs
from tests.browser.onephone import countdown, launch, setup_game, step, wait_js, wait_playable
from tests.browser.test_offline import built  # noqa: F401 (the fixture)
from tests.support.server_proc import ServerProc

pytestmark = [pytest.mark.slow, pytest.mark.browser, pytest.mark.timeout(300)]

PHONE_390 = {"width": 390, "height": 844}
LANGS = ui_langs()
NAMES = ["Ada", "Bruno", "Carla", "Dario", "Elena"]

# Each word of the labels drawn on more than one line: a word broken inside itself.
BROKEN_WORDS_JS = r"""(sel) => {
  const out = [];
  for (const el of document.querySelectorAll(sel)) {
    if (!el.getClientRects().length || el.closest('.sr-only')) continue;
    const walk = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let n = walk.nextNode(); n; n = walk.nextNode()) {
      if (n.parentElement.closest('.sr-only, select, option')) continue;
      const re = /\S+/g;
      let m;
      while ((m = re.exec(n.textContent))) {
        const r = document.createRange();
        r.setStart(n, m.index);
        r.setEnd(n, m.index + m[0].length);
        const lines = new Set([...r.getClientRects()].filter((x) => x.width > 0).map((x) => Math.round(x.top)));
        if (lines.size > 1) out.push(`"${m[0]}" in "${el.textContent.trim().slice(0, 40)}"`);
      }
    }
  }
  return out;
}"""
LABELS = ".onephone-setup label, .onephone-setup legend, .onephone-setup .timer > span"


def set_lang(page, lang: str) -> None:
    page.select_option("#topbar select", lang)
    wait_js(page, f"document.documentElement.lang === '{lang}'")


@pytest.fixture(scope="module")
def phone(pw, tmp_path_factory, built):  # noqa: F811
    tmp = tmp_path_factory.mktemp("oplang")
    with ServerProc(tmp / "s.db") as srv:
        ctx, page, errors = launch(pw, tmp / "profile", locale="en-GB")
        try:
            page.set_viewport_size(PHONE_390)
            page.goto(srv.url("/offline/"))
            wait_playable(page)
            yield page, errors
        finally:
            ctx.close()


def test_item6_option_labels_wrap_between_words_at_390_px(phone):
    page, errors = phone
    page.wait_for_selector(".onephone-setup .timers")
    presets = page.eval_on_selector_all("#opt-preset option", "os => os.map((o) => o.value)")
    assert len(presets) >= 3, presets
    broken = {}
    for lang in LANGS:
        set_lang(page, lang)
        for preset in presets:
            page.select_option("#opt-preset", preset)
            wait_js(page, f"document.querySelector('#opt-preset').value === '{preset}'"
                          " && document.querySelector('.onephone-setup .timer')")
            found = page.evaluate(BROKEN_WORDS_JS, LABELS)
            if found:
                broken[f"{lang} {preset}"] = found
                page.screenshot(path=str(SCREENS / f"issue37_item6_broken_{lang}_{preset}.png"),
                                full_page=True)
    assert not broken, broken
    assert not errors, errors


def test_item6_a_refusal_shown_follows_a_change_of_language(phone):
    """The page in English; the setup's "type the names" and then the table's vote refused by
    the core (the phase moved on behind the page's back, as a second tap would find it):
    each in English, then in Italian after the change of language."""
    page, errors = phone
    en, it = i18n("en"), i18n("it")
    set_lang(page, "en")
    # On the setup screen first: no names typed, the start refused, then Italian.
    for field in page.locator(".name-input").all():
        field.fill("")
    page.click("#start")
    need = "offline.need_names"
    wait_js(page, f"document.querySelector('#setup-error').textContent === {en[need].replace('{min}', '3')!r}")
    set_lang(page, "it")
    assert page.text_content("#setup-error") == it[need].replace("{min}", "3")
    set_lang(page, "en")
    setup_game(page, NAMES, "intruso")
    for _ in range(200):
        if step(page, vote=False) == "countdown":
            break
    else:
        pytest.fail("no vote reached")
    countdown(page)
    page.wait_for_selector(".pick-grid .avatar")
    # The vote taken in the core itself, as if from another tap: the page's own tap is late.
    target = page.get_attribute(".pick-grid .avatar >> nth=0", "data-pid")
    page.evaluate("""async (target) => {
      const rec = window.__onephone.record();
      const now = Math.max(0, ...rec.log.map((e) => e.t)) + 5;
      const voter = rec.players[0].id;
      await window.__onephone.call('act', {player: voter, action: {type: 'table_vote', tally: {[target]: 1}}, now});
    }""", target)
    page.click(".pick-grid .avatar >> nth=0")
    wait_js(page, "!document.querySelector('#toast').hidden")
    shown = page.text_content("#toast").strip()
    keys = [k for k, v in en.items() if k.startswith("error.") and v == shown]
    assert keys, f"not an English refusal: {shown!r}"
    page.screenshot(path=str(SCREENS / "issue37_item6_refusal_en.png"))
    set_lang(page, "it")
    assert not page.locator("#toast").is_hidden()
    assert page.text_content("#toast").strip() == it[keys[0]], (keys[0], page.text_content("#toast"))
    page.screenshot(path=str(SCREENS / "issue37_item6_refusal_it.png"))
    assert not errors, errors


def test_the_tab_title_follows_the_language(phone):
    """The page's title (the tab, the installed app's window) is in the language shown,
    not Italian's whatever the language (web/offline/index.html's static title)."""
    page, errors = phone
    for lang in ("en", "it", "en"):
        set_lang(page, lang)
        assert page.title() == f"Sussurro · {i18n(lang)['offline.title']}", (lang, page.title())
    assert not errors, errors
