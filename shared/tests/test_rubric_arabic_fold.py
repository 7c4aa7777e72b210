"""Arabic spelling variants a reader does not notice are not errors (AraTable: minor spelling is ignored):
the hamza seats and the wasla on alef, taa marbuta as haa, alef maqsura as yaa, hamza on waw and yaa, the
Persian yeh and keheh, tatweel and short-vowel marks. Short answers are where this matters: under five
letters no spelling slip is forgiven, so only the fold can make "ابها" the same answer as "أبها".

Each fold is checked through the judge, on answers short enough that fuzzy matching cannot stand in."""

from __future__ import annotations

import pytest
from livetab.questions import Gold, Question
from livetab.rubric import judge_answer
from livetab.rubric.text import key


def _judge(gold: str, response: str) -> str:
    q = Question(id=f"ar-{gold}", table_id="t", family="direct", text="ما هي المدينة؟",
                 gold=Gold(kind="text", text=gold), language="ar")
    return judge_answer(response, q).verdict


VARIANTS = [
    ("أبها", "ابها"),  # hamza above alef (Abha)
    ("إربد", "اربد"),  # hamza below alef (Irbid)
    ("آب", "اب"),  # madda on alef (August)
    ("ٱبن بطوطة", "ابن بطوطة"),  # alef wasla (Ibn Battuta)
    ("جدة", "جده"),  # taa marbuta / haa (Jeddah)
    ("منى", "مني"),  # alef maqsura / yaa (Mina)
    ("مؤتة", "موتة"),  # hamza on waw (Mu'tah)
    ("بئر", "بير"),  # hamza on yaa (a well)
    ("کرج", "كرج"),  # Persian keheh / Arabic kaf (Karaj)
    ("نی", "ني"),  # Persian yeh / Arabic yaa (a reed)
    ("مـصـر", "مصر"),  # tatweel (Egypt)
    ("مِصْر", "مصر"),  # short-vowel marks
]


@pytest.mark.parametrize(("gold", "response"), VARIANTS)
def test_spelling_variants_are_the_same_answer(gold: str, response: str) -> None:
    assert key(gold) == key(response)
    assert _judge(gold, response) == "correct"
    assert _judge(response, gold) == "correct"  # whichever side carries the variant


@pytest.mark.parametrize(("gold", "response"), [
    ("أبها", "بها"), ("جدة", "جد"), ("منى", "من"), ("إربد", "أربع"), ("مصر", "قصر"),
])
def test_other_words_stay_other_words(gold: str, response: str) -> None:
    assert _judge(gold, response) == "incorrect"


def test_variants_inside_a_sentence() -> None:
    assert _judge("أبها", "الإجابة هي ابها.") == "correct"
    assert _judge("ٱبن بطوطة", "ابن بطوطة") == "correct"


@pytest.mark.parametrize("response", ["أحمد وعلي", "أحمد و علي", "أحمد، علي"])
def test_a_name_that_folds_into_a_preposition_still_counts_as_a_name(response: str) -> None:
    """"علي" (Ali) folds into "على" (on): while "على" was an Arabic stopword, "أحمد وعلي" (Ahmed and Ali) was
    judged correct for the gold "أحمد" — a second name ignored. A preposition in a sentence still reads."""
    assert _judge("أحمد", response) == "uncertain"


def test_the_preposition_in_a_sentence_does_not_block_the_gold() -> None:
    assert _judge("أحمد", "حصل على المركز الأول أحمد") == "correct"


@pytest.mark.parametrize(("gold", "response"), [("جدة", "ﺟﺪﺓ"), ("القاهرة", "ﺍﻟﻘﺎﻫﺮﺓ"), ("أبها", "ﺃﺑﻬﺎ")])
def test_presentation_forms_read_as_their_letters(gold: str, response: str) -> None:
    """Contextual letter shapes (U+FB50–U+FEFF, from PDFs and old pages) are the same letters: before, the fold
    unified letters before NFKD turned the shapes into letters, so "ﺟﺪﺓ" kept its taa marbuta and was judged
    wrong for "جدة" (too short for a spelling slip), and folding twice gave another text."""
    assert _judge(gold, response) == "correct"
    assert key(response) == key(key(response)) == key(gold)
