"""Booleans, multiple choice, imperfect tables, dates, durations and free-form golds via Question."""

from __future__ import annotations

import pytest
from livetab.questions import Gold, Question
from livetab.rubric import judge_answer, judge_text


def question(gold: Gold, *, lang: str = "en", options: list[str] | None = None, text: str = "q?") -> Question:
    return Question(id=f"t-{gold.kind}-{gold.text}-{lang}", table_id="t", family="fact", text=text, gold=gold,
                    language=lang, options=options or [])


@pytest.mark.parametrize(("response", "truth", "lang", "verdict"), [
    ("True", True, "en", "correct"), ("Yes", True, "en", "correct"), ("yes.", True, "en", "correct"),
    ("The statement is true.", True, "en", "correct"), ("That is correct.", True, "en", "correct"),
    ("False", True, "en", "incorrect"), ("No", False, "en", "correct"),
    ("That is not correct.", False, "en", "correct"), ("The statement is false.", False, "en", "correct"),
    ("This is not true, the table shows 12.", False, "en", "correct"),
    ("صح", True, "ar", "correct"), ("نعم", True, "ar", "correct"), ("بيان صحيح", True, "ar", "correct"),
    ("العبارة صحيحة", True, "ar", "correct"),
    ("خطأ", False, "ar", "correct"), ("غير صحيح", False, "ar", "correct"), ("بيان كاذب", False, "ar", "correct"),
    ("لا", False, "ar", "correct"), ("غير صحيح", True, "ar", "incorrect"), ("صح", False, "ar", "incorrect"),
    ("It depends on the season.", True, "en", "uncertain"),
    ("True or false, hard to say: true for 2001, false for 2002.", True, "en", "uncertain"),
])
def test_booleans(response: str, truth: bool, lang: str, verdict: str) -> None:
    q = question(Gold(kind="boolean", boolean=truth, text="true" if truth else "false"), lang=lang)
    assert judge_answer(response, q).verdict == verdict


OPTIONS = ["10 MHz", "15 MHz", "20 MHz", "5 MHz"]


@pytest.mark.parametrize(("response", "verdict"), [
    ("Option 3", "correct"), ("3", "correct"), ("(c)", "correct"), ("C)", "correct"), ("c.", "correct"),
    ("\\boxed{3}", "correct"), ("The answer is 20 MHz.", "correct"), ("20 MHz", "correct"),
    ("Option 2", "incorrect"), ("(a)", "incorrect"), ("5 MHz", "incorrect"),
    ("Either option 2 or option 3", "uncertain"), ("I cannot tell", "incorrect"),
    ("الخيار 3", "correct"),
])
def test_multiple_choice(response: str, verdict: str) -> None:
    q = question(Gold(kind="option", option=3, text="20 MHz"), options=OPTIONS)
    assert judge_answer(response, q).verdict == verdict


def test_multiple_choice_arabic_letters() -> None:
    q = question(Gold(kind="option", option=2, text="ب"), options=["أحمر", "أزرق", "أخضر"], lang="ar")
    assert judge_answer("ب", q).verdict == "correct"
    assert judge_answer("الخيار ب", q).verdict == "correct"
    assert judge_answer("أزرق", q).verdict == "correct"
    assert judge_answer("أحمر", q).verdict == "incorrect"


@pytest.mark.parametrize(("response", "kind", "lang", "verdict"), [
    ("Insufficient information.", "insufficient", "en", "correct"),
    ("The price of apples is missing, so the total cannot be determined.", "insufficient", "en", "correct"),
    ("The table is contradictory: row 2 and row 5 give different prices.", "contradictory", "en", "correct"),
    ("معلومات غير كافية", "insufficient", "ar", "correct"),
    ("لا يمكن تحديد الإجابة من الجدول", "insufficient", "ar", "correct"),
    ("الجدول متناقض", "contradictory", "ar", "correct"),
    ("42", "insufficient", "en", "incorrect"),
    ("The total is 42 apples.", "contradictory", "en", "incorrect"),
    ("٤٢", "insufficient", "ar", "incorrect"),
    ("The answer cannot be determined.", "contradictory", "en", "uncertain"),
    ("Answer: 42 (the table is inconsistent)", "contradictory", "en", "incorrect"),
])
def test_imperfect_tables(response: str, kind: str, lang: str, verdict: str) -> None:
    q = question(Gold(kind=kind, text=kind), lang=lang)
    assert judge_answer(response, q).verdict == verdict


def test_refusal_of_an_answerable_question_is_incorrect() -> None:
    assert judge_text("The table does not provide enough information.", "2003").verdict == "incorrect"
    assert judge_text("معلومات غير كافية", "الرياض", language="ar").verdict == "incorrect"


@pytest.mark.parametrize(("response", "gold", "verdict"), [
    ("2004-05-03", "3 May 2004", "correct"),
    ("3 May 2004", "2004-05-03", "correct"),
    ("May 3, 2004", "2004-05-03", "correct"),
    ("It aired on May 3, 2004.", "2004-05-03", "correct"),
    ("13/05/2004", "2004-05-13", "correct"),
    ("03/05/2004", "2004-05-03", "uncertain"),  # 3 May or March 5
    ("05/05/2004", "2004-05-05", "correct"),  # both readings agree
    ("4 May 2004", "2004-05-03", "incorrect"),
    ("May 2004", "2004-05-03", "incorrect"),
    ("September 29, 2012", "xxxx-09-29", "correct"),
    ("3 مايو 2004", "2004-05-03", "correct"),
    ("3 أيار 2004", "2004-05-03", "correct"),
])
def test_dates(response: str, gold: str, verdict: str) -> None:
    lang = "ar" if any("\u0600" <= c <= "\u06ff" for c in response) else "en"
    assert judge_text(response, gold, language=lang).verdict == verdict


def test_durations() -> None:
    assert judge_text("5 hours, 29 minutes and 10 seconds", "5h 29' 10\"").verdict == "correct"
    assert judge_text("5 hours and 30 minutes", "5h 29' 10\"").verdict == "incorrect"


def test_number_and_text_golds_through_question() -> None:
    q = question(Gold(kind="number", number=38000.0, text="38000"), lang="ar")
    assert judge_answer("38 ألف", q).verdict == "correct"
    q = question(Gold(kind="number", number=25.0, text="25%", unit="%"))
    assert judge_answer("0.25", q).verdict == "correct"
    q = question(Gold(kind="list", items=["فندق ب", "فندق أ"]), lang="ar")
    assert judge_answer("فندق أ و فندق ب", q).verdict == "correct"
    q = question(Gold(kind="text", text="Paris"))
    assert judge_answer("The capital is Paris.", q).verdict == "correct"


def test_free_gold_is_uncertain() -> None:
    q = question(Gold(kind="free", text="an insight"))
    assert judge_answer("Team A scored most.", q).verdict == "uncertain"


def test_verdict_carries_extraction_and_rationale() -> None:
    v = judge_text("Let me see.\nAnswer: forty", "40")
    assert v.extracted == "forty"
    assert "number matches" in v.rationale and "marker" in v.rationale


TIMES = ["2:10", "3:45", "1:16", "0:58"]  # option 3 is "1:16"; "3:45" is option 2


@pytest.mark.parametrize(("response", "verdict"), [
    ("C. 1:16", "correct"),  # the letter and the text name the same option
    ("(c) 1:16", "correct"), ("C) 1:16", "correct"), ("Option 3: 1:16", "correct"), ("c. 1:16.", "correct"),
    ("C", "correct"), ("c.", "correct"), ("(c)", "correct"),  # a bare letter is judged by the letter
    ("1:16", "correct"),
    ("C. 3:45", "uncertain"),  # C is option 3, but 3:45 is option 2's text
    ("(c) 3:45", "uncertain"), ("Option 3: 3:45", "uncertain"),
    ("C. 4:30", "uncertain"),  # C is option 3, but 4:30 is no option's text
    ("B. 3:45", "incorrect"),  # letter and text agree on option 2
    ("B", "incorrect"), ("3:45", "incorrect"),
])
def test_multiple_choice_label_and_text_must_agree(response: str, verdict: str) -> None:
    q = question(Gold(kind="option", option=3, text="1:16"), options=TIMES)
    got = judge_answer(response, q)
    assert got.verdict == verdict, got


def test_multiple_choice_label_text_disagreement_is_explained() -> None:
    q = question(Gold(kind="option", option=3, text="1:16"), options=TIMES)
    assert "option(s) [2]" in judge_answer("C. 3:45", q).rationale
    assert "no option's" in judge_answer("C. 4:30", q).rationale
