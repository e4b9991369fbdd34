"""Clue and guess checks, named after the RULES.md / rules 000 sentences they check."""

from __future__ import annotations

import pytest

from game.errors import GameError
from game.text import (
    MAX_CLUE_CHARS,
    check_clue,
    clue_words,
    fold,
    guess_matches,
    is_emoji_only,
    repeat_candidates,
)


def refused(text, secret, lang, **kw) -> GameError:
    with pytest.raises(GameError) as info:
        check_clue(text, secret, lang, **kw)
    return info.value


# --- folding ---------------------------------------------------------------


def test_fold_ignores_case_and_accents():
    assert fold("Caffè") == "caffe"
    assert fold("  ÉCHECS  ") == "echecs"
    assert fold("Cœur") == "coeur"


def test_fold_normalises_apostrophes_and_punctuation():
    assert fold("L’acqua,  fresca!") == "l'acqua fresca"
    assert fold("arc–en–ciel") == "arc-en-ciel"


def test_clue_words_keep_elisions_and_count_each_emoji():
    assert clue_words("L'acqua è fresca") == ["l'acqua", "e", "fresca"]
    assert clue_words("🐱🐯 felino") == ["🐱", "🐯", "felino"]
    assert clue_words("👨‍👩‍👧 🇮🇹") == ["👨‍👩‍👧", "🇮🇹"]


# --- a clue is 1 to 4 words (000 §3) ---------------------------------------


@pytest.mark.parametrize("lang", ["it", "fr", "en"])
@pytest.mark.parametrize("text", ["", "   ", "?!", "\n\t"])
def test_a_clue_is_at_least_one_word(text, lang):
    assert refused(text, "tigre", lang).code == "clue_empty"


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("animale con i baffi lunghi", "it"),
        ("il a des longues moustaches", "fr"),
        ("it has long white whiskers", "en"),
    ],
)
def test_a_clue_is_at_most_four_words(text, lang):
    err = refused(text, "tigre" if lang != "en" else "tiger", lang)
    assert err.code == "clue_too_long"
    assert err.detail["words"] == 5


def test_a_clue_of_four_words_is_accepted():
    assert check_clue("animale  con i baffi", "gatto", "it") == "animale con i baffi"


def test_a_clue_is_also_limited_in_characters():
    long_word = "a" * (MAX_CLUE_CHARS + 1)
    assert refused(long_word, "gatto", "it").code == "clue_too_long"
    assert check_clue("a" * MAX_CLUE_CHARS, "gatto", "it")


def test_an_elided_article_is_not_a_word_of_its_own():
    assert check_clue("l'acqua dell'oceano è salata", "mare", "it")


# --- the clue may not contain the player's own word -------------------------


@pytest.mark.parametrize(
    ("text", "secret", "lang"),
    [
        ("gatto", "gatto", "it"),
        ("GATTO nero", "gatto", "it"),
        ("un bel gattone", "gatto", "it"),
        ("caffe forte", "caffè", "it"),
        ("Plage", "plage", "fr"),
        ("le Thé vert", "thé", "fr"),
        ("beach", "beach", "en"),
        ("Beachball", "beach", "en"),
        ("supergatto", "gatto", "it"),
        ("pesce-gatto", "gatto", "it"),
        ("pineapple", "apple", "en"),
        ("cacciavite", "vite", "it"),
        ("pesce rosso", "pesce rosso", "it"),
        ("pescerosso", "pesce rosso", "it"),
        ("un pesce", "pesce rosso", "it"),
        ("souris", "chauve-souris", "fr"),
        ("tea", "tea", "en"),
        ("sciare", "sci", "it"),
        ("teas", "tea", "en"),
        ("salle de bain", "salle de bain", "fr"),
    ],
)
def test_a_clue_may_not_contain_the_players_own_word(text, secret, lang):
    err = refused(text, secret, lang)
    assert err.code == "clue_uses_secret_word"
    assert "word" in err.detail


def test_a_several_word_secret_said_as_a_phrase_is_named_whole():
    assert refused("un pesce rosso", "pesce rosso", "it").detail["word"] == "pesce rosso"
    assert refused("la salle de bain", "salle de bain", "fr").detail["word"] == "salle de bain"


@pytest.mark.parametrize(
    ("text", "secret", "lang"),
    [
        ("sete notturna", "tè", "it"),
        ("teatro", "tè", "it"),
        ("steam", "tea", "en"),
        ("merci", "mer", "fr"),
        ("parco", "tiro con l'arco", "it"),
        ("salle de bain", "dés", "fr"),
        ("brain train", "rain", "en"),
        ("opera", "pera", "it"),
        ("sciarpa", "arpa", "it"),
    ],
)
def test_a_short_secret_is_not_found_inside_unrelated_words(text, secret, lang):
    assert check_clue(text, secret, lang)


# --- ... nor a word of its family (same stem, case and accents ignored) -----


@pytest.mark.parametrize(
    ("text", "secret", "lang", "word"),
    [
        ("gattino", "gatto", "it", "gattino"),
        ("i gatti", "gatto", "it", "gatti"),
        ("nuotare", "nuoto", "it", "nuotare"),
        ("Nuotatore", "nuoto", "it", "nuotatore"),
        ("montagne innevate", "montagna", "it", "montagne"),
        ("fiorista", "fiore", "it", "fiorista"),
        ("gatto", "gattino", "it", "gatto"),
        ("un panino", "pane", "it", "panino"),
        ("barista", "bar", "it", "barista"),
        ("marino", "mare", "it", "marino"),
        ("Plagiste", "plage", "fr", "plagiste"),
        ("cuisinier", "cuisine", "fr", "cuisinier"),
        ("des chevaux", "cheval", "fr", "chevaux"),
        ("Dancing", "dance", "en", "dancing"),
        ("big cities", "city", "en", "cities"),
        ("babies", "baby", "en", "babies"),
        ("pesci", "pesce rosso", "it", "pesci"),
        ("sunny", "sun", "en", "sunny"),
        ("runner", "run", "en", "runner"),
    ],
)
def test_a_clue_may_not_contain_a_word_of_its_family(text, secret, lang, word):
    err = refused(text, secret, lang)
    assert err.code == "clue_same_family"
    assert err.detail["word"] == word


def test_a_clue_word_containing_the_secret_is_refused_before_the_family_check():
    assert refused("piscines", "piscine", "fr").code == "clue_uses_secret_word"
    assert refused("swimming", "swim", "en").code == "clue_uses_secret_word"
    assert refused("chaton", "chat", "fr").code == "clue_uses_secret_word"


def test_the_family_check_uses_the_rooms_language():
    # The Italian stemmer makes "piscine" a plural of "piscina"; for a
    # French room the same word is simply the secret itself.
    assert refused("piscine", "piscina", "it").code == "clue_same_family"
    assert refused("nuotare", "nuoto", "it").code == "clue_same_family"
    assert check_clue("nuotare", "nuoto", "en")


@pytest.mark.parametrize(
    ("text", "secret", "lang"),
    [
        ("acqua clorata", "piscina", "it"),
        ("pastore", "pasta", "it"),
        ("melone", "mela", "it"),
        ("barber", "bar", "en"),
        ("felin rayé", "tigre", "fr"),
        ("sand and waves", "pool", "en"),
    ],
)
def test_an_unrelated_clue_is_accepted(text, secret, lang):
    assert check_clue(text, secret, lang) == text


def test_the_fantasma_has_no_word_so_only_the_shape_is_checked():
    assert check_clue("gatto", None, "it") == "gatto"
    assert refused("uno due tre quattro cinque", None, "it").code == "clue_too_long"
    assert refused("", None, "it").code == "clue_empty"


# --- Muto: the clue must be emoji only (000 §7) -----------------------------


def test_muto_clue_of_emoji_is_accepted():
    assert check_clue(" 🐱 🏖️ ", "gatto", "it", emoji_only=True) == "🐱 🏖️"
    assert check_clue("👨‍👩‍👧🇮🇹", None, "fr", emoji_only=True)
    assert check_clue("🌊☀️", "beach", "en", emoji_only=True) == "🌊☀️"


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("miao", "it"),
        ("🐱 miao", "it"),
        ("🐱!", "it"),
        ("🐱 1", "it"),
        ("🐱 miaou", "fr"),
        ("meow 🐱", "en"),
    ],
)
def test_muto_clue_with_text_is_refused(text, lang):
    err = refused(text, "tigre", lang, emoji_only=True)
    assert err.code == "clue_not_emoji"
    assert err.detail["word"]


def test_muto_clue_counts_each_emoji_as_a_word():
    assert check_clue("🐱🐯🦁🐆", "gatto", "it", emoji_only=True)
    assert refused("🐱🐯🦁🐆🐈", "gatto", "it", emoji_only=True).code == "clue_too_long"


def test_muto_flags_and_families_are_single_emoji():
    england = "\U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f"
    assert check_clue(england + " 🇫🇷", None, "en", emoji_only=True) == england + " 🇫🇷"
    assert clue_words(england) == [england]


def test_invisible_characters_do_not_hide_the_secret_word():
    assert refused("gat\u200bto", "gatto", "it").code == "clue_uses_secret_word"
    assert check_clue("acqua\tclorata\n", "piscina", "it") == "acqua clorata"


def test_is_emoji_only():
    assert is_emoji_only("🐱 ❤️ 👍🏽")
    assert not is_emoji_only("")
    assert not is_emoji_only("  ")
    assert not is_emoji_only("🐱a")


# --- Pappagallo: the clue must repeat a word of the previous clue (000 §7) --


@pytest.mark.parametrize(
    ("text", "previous", "lang"),
    [
        ("animale domestico", "Animale feroce", "it"),
        ("Très doux", "très grand", "fr"),
        ("cold WATER", "water everywhere", "en"),
        ("caffè amaro", "caffe", "it"),
        ("acqua fredda", "l'acqua", "it"),
    ],
)
def test_pappagallo_repeating_a_word_is_accepted(text, previous, lang):
    assert check_clue(text, "gatto", lang, must_repeat_from=previous)


@pytest.mark.parametrize(
    ("text", "previous", "lang"),
    [
        ("animale domestico", "bestia feroce", "it"),
        ("doux", "très grand", "fr"),
        ("cold", "water everywhere", "en"),
    ],
)
def test_pappagallo_not_repeating_a_word_is_refused(text, previous, lang):
    err = refused(text, "gatto", lang, must_repeat_from=previous)
    assert err.code == "clue_must_repeat"
    assert err.detail["previous"] == previous


def test_pappagallo_after_a_muto_repeats_an_emoji():
    assert check_clue("🐱 felino", "tigre", "it", must_repeat_from="🐱🐾")
    assert refused("felino", "tigre", "it", must_repeat_from="🐱🐾").code == "clue_must_repeat"


def test_pappagallo_is_free_when_there_is_no_previous_clue():
    assert check_clue("felino", "tigre", "it", must_repeat_from=None)
    assert check_clue("felino", "tigre", "it", must_repeat_from="")


def test_pappagallo_still_may_not_say_the_secret_word():
    assert refused("gatto", "gatto", "it", must_repeat_from="gatto").code == "clue_uses_secret_word"


@pytest.mark.parametrize(
    ("previous", "secret", "lang"),
    [
        ("gatto", "gatto", "it"),  # issue 8: the clue before him is his own word
        ("Gatti!", "gatto", "it"),  # ... or a word of its family
        ("il gattino", "gatto", "it"),  # an article beside it gives nothing to repeat
        ("knives", "knife", "en"),
        ("le", "chat", "fr"),  # a previous clue of function words only
    ],
)
def test_pappagallo_is_free_when_every_word_of_the_previous_clue_is_forbidden(
    previous, secret, lang
):
    # RULES.md: free if every word of that clue is his own word or its family.
    assert check_clue("felino domestico", secret, lang, must_repeat_from=previous)


def test_pappagallo_repeat_candidates_are_the_words_that_count():
    assert repeat_candidates("il gatto nero", "tigre", "it") == ["gatto", "nero"]
    assert repeat_candidates("gatti neri", "gatto", "it") == ["neri"]
    assert repeat_candidates("l'acqua 🐱", None, "it") == ["l'acqua", "acqua", "🐱"]
    assert repeat_candidates("the", "cat", "en") == []


def test_pappagallo_must_repeat_the_word_he_may_say():
    # "gatti" is of his family; "neri" is not: he repeats "neri".
    assert check_clue("neri come pece", "gatto", "it", must_repeat_from="gatti neri")
    err = refused("animale domestico", "gatto", "it", must_repeat_from="gatti neri")
    assert err.code == "clue_must_repeat"


@pytest.mark.parametrize(
    ("text", "previous", "lang"),
    [
        ("il topo", "il gatto", "it"),  # issue 8: an article alone satisfied him
        ("l'oceano", "l'acqua", "it"),
        ("la mer", "la plage", "fr"),
        ("the sea", "the beach", "en"),
        ("a cup of tea", "a pot of coffee", "en"),
    ],
)
def test_pappagallo_repeating_only_a_function_word_is_refused(text, previous, lang):
    err = refused(text, "tigre", lang, must_repeat_from=previous)
    assert err.code == "clue_must_repeat"


# --- guesses (RULES.md: case, accents, article, small typos) ----------------


@pytest.mark.parametrize(
    ("guess", "target", "other", "lang"),
    [
        ("SPIAGGIA", "spiaggia", "piscina", "it"),
        ("caffe", "caffè", "tè", "it"),
        ("la spiaggia", "spiaggia", "piscina", "it"),
        ("l'acqua", "acqua", "ghiaccio", "it"),
        ("l’ acqua", "acqua", "ghiaccio", "it"),
        ("un'ape", "ape", "vespa", "it"),
        ("gli scacchi", "scacchi", "dama", "it"),
        ("Le Thé", "thé", "café", "fr"),
        ("l'hôpital", "hôpital", "pharmacie", "fr"),
        ("des échecs", "échecs", "dames", "fr"),
        ("The Beach", "beach", "pool", "en"),
        ("an apple", "apple", "pear", "en"),
    ],
)
def test_a_guess_ignores_case_accents_and_a_leading_article(guess, target, other, lang):
    assert guess_matches(guess, target, other, lang)


def test_a_guess_tolerates_one_typo_up_to_five_letters():
    assert guess_matches("gato", "gatto", "tigre", "it")  # 5 letters, 1 edit
    assert not guess_matches("gaot", "gatto", "tigre", "it")  # 5 letters, 2 edits
    assert not guess_matches("pian", "plage", None, "fr")


def test_a_guess_tolerates_two_typos_above_five_letters():
    assert guess_matches("spiagia", "spiaggia", "piscina", "it")  # 1 edit
    assert guess_matches("spiagie", "spiaggia", "piscina", "it")  # 2 edits
    assert not guess_matches("spiagiee", "spiaggia", "piscina", "it")  # 3 edits
    assert guess_matches("teatri", "teatro", None, "it")  # 6 letters, 1 edit
    assert guess_matches("tetri", "teatro", None, "it")  # 6 letters, 2 edits


def test_a_guess_counts_only_when_the_target_is_the_closest_word():
    # "mar" is one edit from "mare" and far from "lago": counts.
    assert guess_matches("mar", "mare", "lago", "it")
    # The other word itself never counts for the target.
    assert not guess_matches("piscina", "spiaggia", "piscina", "it")
    # "cat" vs "cap": both one edit from "cas" -> a tie does not count.
    assert not guess_matches("cas", "cat", "cap", "en")
    # Closer to the other word than to the target: does not count.
    assert not guess_matches("caps", "cat", "cap", "en")


def test_a_wrong_guess_does_not_count():
    assert not guess_matches("cane", "gatto", "tigre", "it")
    assert not guess_matches("", "gatto", "tigre", "it")
    assert not guess_matches("il", "gatto", "tigre", "it")


def test_an_unknown_language_is_refused():
    with pytest.raises(GameError):
        check_clue("ciao", "gatto", "de")
