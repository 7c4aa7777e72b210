"""An answer that names the gold's cell by a part no other cell of the asked column has, right after a word
the question and the gold share ("Which bank ...?" answered "Bank America" for "Bank of America"; "أي جامعة
...؟" answered "جامعة سعود" for "جامعة الملك سعود"): the part is read from the word after the shared one, and
the answer is correct. Without that word of the question the same answers are correct too."""

from __future__ import annotations

import pytest
from livetab.rubric import judge_text

BANKS = [["Bank", "Country"], ["Bank of America", "USA"], ["Bank of China", "China"], ["Bank of Japan", "Japan"]]
UNIVERSITIES = [["الجامعة", "المدينة"], ["جامعة الملك سعود", "الرياض"], ["جامعة الملك عبدالعزيز", "جدة"],
                ["جامعة الملك فيصل", "الأحساء"]]
GULF_BANKS = [["البنك", "الدولة"], ["بنك الخليج الدولي", "البحرين"], ["بنك الخليج الأول", "الإمارات"],
              ["بنك قطر الوطني", "قطر"]]
UNIQUE = "the answer names part of the gold, which no other cell of its column has [whole]"


@pytest.mark.parametrize(("response", "gold", "language", "question", "table"), [
    ("Bank America", "Bank of America", "en", "Which bank is based in the USA?", BANKS),
    ("It is Bank America.", "Bank of America", "en", "Which bank has the most branches?", BANKS),
    ("Bank China", "Bank of China", "en", "Which bank?", BANKS),
    ("Bank America", "Bank of America", "en", "", BANKS),
    ("جامعة سعود", "جامعة الملك سعود", "ar", "أي جامعة في الرياض؟", UNIVERSITIES),
    ("جامعة فيصل", "جامعة الملك فيصل", "ar", "أي جامعة تقع في الأحساء؟", UNIVERSITIES),
    ("جامعة سعود", "جامعة الملك سعود", "ar", "ما اسم الجامعة؟", UNIVERSITIES),
    ("بنك الدولي", "بنك الخليج الدولي", "ar", "أي بنك في البحرين؟", GULF_BANKS),
    ("بنك الوطني", "بنك قطر الوطني", "ar", "أي بنك في قطر؟", GULF_BANKS),
])
def test_a_unique_part_after_a_word_of_the_question_names_the_gold(response: str, gold: str, language: str,
                                                                   question: str, table: list[list[str]]) -> None:
    v = judge_text(response, gold, language=language, question=question, table=table)
    assert (v.verdict, v.rationale) == ("correct", UNIQUE)


@pytest.mark.parametrize(("response", "gold", "language", "question", "table"), [
    ("Bank China", "Bank of America", "en", "Which bank is based in the USA?", BANKS),
    ("جامعة فيصل", "جامعة الملك سعود", "ar", "أي جامعة في الرياض؟", UNIVERSITIES),
])
def test_the_unique_part_of_another_cell_is_wrong(response: str, gold: str, language: str, question: str,
                                                  table: list[list[str]]) -> None:
    assert judge_text(response, gold, language=language, question=question, table=table).verdict == "incorrect"
