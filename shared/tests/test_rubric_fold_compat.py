"""`text.fold` on compatibility characters: styled letters ("𝐔𝐒𝐀", "ℍ𝕠𝕟𝕕𝕒"), letterlike symbols,
small and fullwidth forms.

`fold` lower-cased before its NFKD step, so a styled capital came out as a capital ("𝐔𝐒𝐀" -> "USA") and
never matched the gold's "usa": "𝐔𝐒𝐀" was judged wrong for "USA", "𝐍𝐨" had no polarity. Models write
such letters for emphasis in plain-text answers. Folding a folded text also gave another text, which every
rule that folds a span again (`key`, `option_key`) relies on not happening.
"""

from __future__ import annotations

import pytest
from livetab.rubric import judge_text
from livetab.rubric.text import fold, key

# the blocks where NFKD changes letters and signs: Latin-1 and Latin Extended, Greek, Arabic, modifier
# letters, superscripts and subscripts, letterlike symbols, CJK squared units, Arabic presentation forms,
# small and fullwidth forms, mathematical alphanumerics
_BLOCKS = [(0x00A0, 0x0250), (0x0370, 0x0400), (0x0600, 0x0700), (0x1D2C, 0x1D6B), (0x1E00, 0x2000),
           (0x2070, 0x20A0), (0x2100, 0x2150), (0x2460, 0x2500), (0x3300, 0x3400), (0xFB00, 0xFB50),
           (0xFB50, 0xFE00), (0xFE50, 0xFE70), (0xFE70, 0xFF00), (0xFF00, 0xFFF0), (0x1D400, 0x1D800)]


def test_fold_is_idempotent_on_compatibility_characters() -> None:
    changed = [hex(cp) for lo, hi in _BLOCKS for cp in range(lo, hi)
               if fold(fold(chr(cp))) != fold(chr(cp))]
    assert changed == []


@pytest.mark.parametrize(("styled", "plain"), [
    ("𝐔𝐒𝐀", "usa"), ("ℍ𝕠𝕟𝕕𝕒", "honda"), ("𝑵𝑶", "no"), ("℃", "°c"), ("™", "tm"), ("Ｔｏｋｙｏ", "tokyo"),
    ("﹘", "-"),  # small em dash -> em dash -> "-"
])
def test_fold_of_a_compatibility_form_is_the_fold_of_its_letters(styled: str, plain: str) -> None:
    assert fold(styled) == plain
    assert key(styled) == key(plain)


@pytest.mark.parametrize(("response", "gold", "language", "rationale"), [
    ("𝐔𝐒𝐀", ["USA"], "en", "text matches [whole]"),
    ("The answer is **𝐁𝐌𝐖**.", ["BMW"], "en", "text matches [marker]"),
    ("𝐋𝐀 𝐆𝐚𝐥𝐚𝐱𝐲", ["LA Galaxy"], "en", "text matches [whole]"),
    ("𝐍𝐨", ["no"], "en", "polarity matches [whole]"),
    ("Answer: 𝑵𝑶", ["false"], "en", "polarity matches [marker]"),
    ("الإجابة: 𝐁𝐌𝐖", ["BMW"], "ar", "text matches [marker]"),
    ("الإجابة: 𝐋𝐀 𝐆𝐚𝐥𝐚𝐱𝐲", ["LA Galaxy"], "ar", "text matches [marker]"),
])
def test_styled_letters_are_judged_as_their_letters(response: str, gold: list[str], language: str,
                                                   rationale: str) -> None:
    v = judge_text(response, gold, language=language)
    assert (v.verdict, v.rationale) == ("correct", rationale)


@pytest.mark.parametrize(("response", "gold", "language"), [
    ("𝐔𝐊", ["USA"], "en"), ("𝐘𝐞𝐬", ["no"], "en"), ("الإجابة: 𝐀𝐔𝐃𝐈", ["BMW"], "ar"),
])
def test_styled_letters_of_another_answer_stay_wrong(response: str, gold: list[str], language: str) -> None:
    assert judge_text(response, gold, language=language).verdict == "incorrect"
