"""A relation's anchor named by another of its words: "Who succeeded Georg Kaiser?" answered with "Kaiser" alone.
Before, only the anchor's first word ("Georg") was looked for, so an answer naming the anchor by its surname
escaped the relation check and "Bruno Lemke came before Kaiser." was judged correct (a false accept, found by
the mutation work on `relations`). Every word of the anchor's name counts now; the right side stays correct."""

from __future__ import annotations

import pytest
from livetab.rubric import judge_text
from livetab.rubric.locale import get_locale
from livetab.rubric.relations import AFTER, question_relations
from livetab.rubric.text import fold, key

CASES = [
    ("en", "Who succeeded Georg Kaiser?", "Bruno Lemke", [
        ("Bruno Lemke came before Kaiser.", "incorrect"), ("Bruno Lemke was succeeded by Kaiser.", "incorrect"),
        ("Kaiser succeeded Bruno Lemke.", "incorrect"),
        ("Bruno Lemke came after Kaiser.", "correct"), ("Bruno Lemke succeeded Kaiser.", "correct"),
        ("Kaiser was succeeded by Bruno Lemke.", "correct"), ("Kaiser preceded Bruno Lemke.", "correct"),
        ("Georg Kaiser was succeeded by Bruno Lemke.", "correct"), ("Bruno Lemke.", "correct")]),
    ("de", "Wer folgte auf Georg Kaiser?", "Bruno Lemke", [
        ("Bruno Lemke wurde von Kaiser abgelöst.", "incorrect"), ("Bruno Lemke kam vor Kaiser.", "incorrect"),
        ("Bruno Lemke folgte auf Kaiser.", "correct"), ("Kaiser wurde von Bruno Lemke abgelöst.", "correct")]),
    ("nl", "Wie volgde Gerard Kok op?", "Bram Lemmens", [
        ("Bram Lemmens werd door Kok opgevolgd.", "incorrect"), ("Bram Lemmens volgde Kok op.", "correct"),
        ("Kok werd opgevolgd door Bram Lemmens.", "correct")]),
    ("ar", "من جاء بعد أحمد العتيبي؟", "خالد سعيد", [
        ("خالد سعيد جاء قبل العتيبي", "incorrect"), ("خالد سعيد جاء بعد العتيبي", "correct"),
        ("جاء خالد سعيد بعد أحمد العتيبي", "correct")]),
]


@pytest.mark.parametrize(("lang", "question", "gold", "response", "expected"),
                         [(lang, q, g, r, e) for lang, q, g, cases in CASES for r, e in cases])
def test_the_anchor_by_any_word_of_its_name(lang: str, question: str, gold: str, response: str, expected: str) -> None:
    assert judge_text(response, gold, question=question, language=lang).verdict == expected


def test_the_anchor_is_the_run_of_content_words_after_the_relation_word() -> None:
    loc = get_locale("en")
    tokens = key(fold("Who succeeded Georg Kaiser as mayor of Berlin?")).split()
    assert question_relations(tokens, loc) == ((AFTER, "georg"), (AFTER, "kaiser"))  # "as" ends the name
    tokens = key(fold("Which team finished after the Blue Jays?")).split()
    assert question_relations(tokens, loc) == ((AFTER, "blue"), (AFTER, "jays"))  # a leading "the" does not end it
