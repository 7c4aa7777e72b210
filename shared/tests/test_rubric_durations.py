"""Durations as race tables and answers write them: clock times, unit words, primes, Arabic units."""

from __future__ import annotations

import pytest
from livetab.rubric import judge_text
from livetab.rubric.durations import find_durations
from livetab.rubric.text import fold


def durations(text: str) -> list[float]:
    return find_durations(fold(text))


@pytest.mark.parametrize(("text", "seconds"), [
    ("1:47.61", [107.61]),  # minutes:seconds with hundredths (a 800 m final)
    ("12:58", [778.0]),
    ("2:05:37", [7537.0]),  # hours:minutes:seconds (a marathon)
    ("2:05:37.5", [7537.5]),
    ("5 hours", [18000.0]),
    ("5 minutes", [300.0]),
    ("1h 5m", [3900.0]),
    ("5h 29' 10\"", [19750.0]),
    ("5' 10''", [310.0]),  # two apostrophes are seconds, not a second "minutes" mark
    ("5 hours, 29 minutes and 10 seconds", [19750.0]),
    ("ran 42 km in 2 hours and 5 minutes", [7500.0]),
    ("3 ساعات و 20 دقيقة", [12000.0]),
    ("20 دقيقة و 10 ثواني", [1210.0]),
])
def test_one_duration(text: str, seconds: list[float]) -> None:
    assert durations(text) == pytest.approx(seconds)


def test_groups_split_on_a_repeated_unit_or_other_words() -> None:
    # a unit already in the group starts a new duration; a lone trailing minutes-only group after an
    # earlier duration is not read as one (it is usually a gap: "3 minutes behind")
    assert durations("2 minutes, 3 minutes") == [120.0]
    assert durations("5 hours blah blah 10 minutes") == [18000.0]
    assert durations("1:47.61 and 3 minutes") == pytest.approx([107.61])
    # a trailing group with hours, or with two units, is a duration of its own
    assert durations("1:47.61 and 5 hours") == pytest.approx([107.61, 18000.0])
    assert durations("1:47.61, 2 minutes 5 seconds") == pytest.approx([107.61, 125.0])
    assert durations("2 hours 5 minutes, then 1 hour 2 minutes") == [7500.0, 3720.0]


@pytest.mark.parametrize(("answer", "gold", "verdict"), [
    ("1:47.61", "1 minute 47.61 seconds", "correct"),
    ("107.61 seconds", "1:47.61", "correct"),
    ("The winning time was 1:47.61.", "1 min 47.61 s", "correct"),
    ("2:05:37", "2 hours 5 minutes 37 seconds", "correct"),
    ("2 hours, 5 minutes and 37 seconds", "2:05:37", "correct"),
    ("2:05:38", "2:05:37", "incorrect"),
    ("5' 10''", "5 minutes 10 seconds", "correct"),
    ("3 ساعات و 20 دقيقة", "3:20:00", "correct"),
])
def test_duration_answers(answer: str, gold: str, verdict: str) -> None:
    lang = "ar" if any("\u0600" <= c <= "\u06ff" for c in answer) else "en"
    assert judge_text(answer, gold, language=lang).verdict == verdict


@pytest.mark.parametrize(("answer", "gold", "verdict"), [
    # A time given more precisely than the gold, within the numbers' band (|a - b| <= 2 * 0.005 s, as
    # "1.883" states "1.889"): it states the gold. Before 1 December 2026 durations had to agree within
    # 0.005 s (strictly), so "1:47.615" (0.005 s off, the gold rounded to hundredths) was judged wrong.
    ("1:47.615", "1:47.61", "correct"),
    ("He won the final in 1:47.615.", "1:47.61", "correct"),
    ("1:47.605", "1:47.61", "correct"),
    ("1 minute 47.615 seconds", "1:47.61", "correct"),
    ("2:05:37.004", "2:05:37", "correct"),
    ("1:47.63", "1:47.61", "incorrect"),  # 0.02 s: another time
    ("1:47.59", "1:47.61", "incorrect"),
    ("1:47.6215", "1:47.61", "incorrect"),  # just outside the band
    ("فاز في السباق بزمن 1:47.615.", "1:47.61", "correct"),
    ("فاز في السباق بزمن 1:47.63.", "1:47.61", "incorrect"),
])
def test_more_precise_time(answer: str, gold: str, verdict: str) -> None:
    lang = "ar" if any("\u0600" <= c <= "\u06ff" for c in answer) else "en"
    assert judge_text(answer, gold, language=lang).verdict == verdict


def test_duration_band_follows_the_tolerance() -> None:
    # the judge's absolute tolerance sets the band for durations as for numbers
    assert judge_text("1:47.64", "1:47.61", tolerance=0.02).verdict == "correct"
    assert judge_text("1:47.64", "1:47.61").verdict == "incorrect"
