"""Which row labels say "total" (livetab.total_labels): the scraper's marks and qagen's data rows read them."""

from __future__ import annotations

import pytest
from livetab.total_labels import is_total_label, total_words


@pytest.mark.parametrize(("label", "language"), [
    ("Total", "en"), ("TOTAL", "en"), ("Totals", "en"), ("Subtotal", "en"), ("Sub-total", "en"),
    ("Grand total", "en"), ("Segment total", "en"), ("Total (1):", "en"), ("Overall", "en"),
    ("المجموع", "ar"), ("إجمالي الصادرات", "ar"), ("اجمالي الصادرات", "ar"), ("عدد السكان الإجمالي", "ar"),
    ("Insgesamt", "de"), ("Gesamtergebnis", "de"), ("Totales", "es"), ("Totaux", "fr"), ("Totaal", "nl"),
    ("Итого", "ru"), ("Всего", "ru"), ("Totalt", "sv"),
    ("Total", "fr"), ("Total", "sv"),  # English in another language's table
])
def test_total_labels(label: str, language: str) -> None:
    assert is_total_label(label, language)


@pytest.mark.parametrize(("label", "language"), [
    ("Totalled", "en"), ("Summer", "en"), ("Sumatra", "en"), ("Tottenham", "en"), ("", "en"),
    ("مجموعة أ", "ar"),  # "group A": a word that starts like "total" is no total
    ("Ensemble", "fr"),  # a French party, not "all together"
    ("Gesamtschule Nord", "de"),
])
def test_labels_that_are_no_total(label: str, language: str) -> None:
    assert not is_total_label(label, language)


def test_every_pack_reads_english_and_arabic_and_its_own_words() -> None:
    start, end = total_words("de")
    assert {"total", "insgesamt", "المجموع"} <= set(start) and "insgesamt" in end
    assert total_words("xx") == total_words("en")  # a language without a pack: English and Arabic
