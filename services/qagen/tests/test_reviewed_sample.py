"""The reviewed sample: 100 questions generated with one seed over every family from WikiTableQuestions
pages and TAT-QA's annual-report tables, each read by a person and noted (tests/data/questions_reviewed_100.jsonl:
gold right? unambiguous? natural? and how the gold was checked: recomputed from WTQ's own reference CSV of the
page's table or from TAT-QA's raw grid, not from livetab's derivation).

The file must be what qagen generates today (a change of wording or gold means the sample is read again), and
the question lint (the counts a release's quality report gives) must find on it only what the review found."""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

import pytest
from livetab.paths import shared_data
from livetab.question_lint import LINT_FLAGS, lint_counts, lint_question
from reviewed_sample import REVIEWED, sample_with_tables

pytestmark = pytest.mark.skipif(not (shared_data() / "tatqa").exists(), reason="shared data not present")


def _reviewed() -> list[dict[str, Any]]:
    return [json.loads(line) for line in REVIEWED.read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def today(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    return sample_with_tables(tmp_path_factory.mktemp("reviewed"))


def test_the_review_covers_every_family_both_sources_and_explains_every_flaw() -> None:
    reviewed = _reviewed()
    assert len(reviewed) == 100 and len({r["id"] for r in reviewed}) == 100
    families = Counter("closed_book" if r["closed_book"] else r["family"] for r in reviewed)
    assert set(families) == {"direct", "reasoning", "fact", "mcq", "insight", "imperfect", "closed_book"}, families
    sources = Counter(r["source"].split(":")[0] for r in reviewed)
    assert sources["wtq"] >= 60 and sources["tatqa"] >= 20, sources
    for r in reviewed:
        review = r["review"]
        assert review["note"].startswith("gold: "), r["id"]  # how the gold was checked, for every question
        assert review["flawless"] == (review["gold_right"] and review["unambiguous"] and review["natural"]), r["id"]
        assert review["flawless"] or "not natural" in review["note"] or "wrong" in review["note"], r["id"]
    assert all(r["review"]["gold_right"] and r["review"]["unambiguous"] for r in reviewed)
    assert sum(r["review"]["flawless"] for r in reviewed) >= 85


@pytest.mark.slow
def test_the_reviewed_sample_is_what_qagen_generates_today(today: tuple[list[dict[str, Any]], dict[str, Any]]) -> None:
    """Same seed, same tables: the same questions, word for word, with the same gold and options."""
    now, _ = today
    reviewed = _reviewed()
    assert [q["id"] for q in now] == [r["id"] for r in reviewed]
    assert [(q["question"], q["gold"], q["options"]) for q in now] == [(r["question"], r["gold"], r["options"])
                                                                       for r in reviewed]


@pytest.mark.slow
def test_the_lint_finds_on_the_sample_what_the_review_found(today: tuple[list[dict[str, Any]], dict[str, Any]]) -> None:
    """No doubled quotes, no "1 rows", no file names, no header or total rows as data, no "column N"; the one
    row keyed by an amount the review noted is flagged, and so are the locomotive numbers used as names (an
    identifier the lint cannot tell from an amount)."""
    now, tables = today
    items = [(q["question"], q["gold"], q["family"], tables[q["source"]]) for q in now]
    counts = lint_counts(items)
    assert set(counts) == {*LINT_FLAGS, "flagged"}
    flagged = {q["id"]: lint_question(*item) for q, item in zip(now, items, strict=True) if lint_question(*item)}
    keyed_by_amount = [q["id"] for q in now if "$5,424" in q["question"]]
    by_locomotive_number = [q["id"] for q in now if re.search(r'the number (?:is )?"5\d"', q["question"])]
    assert keyed_by_amount and set(keyed_by_amount) <= set(flagged)
    assert set(flagged) == set(keyed_by_amount) | set(by_locomotive_number), flagged
    assert counts == {**dict.fromkeys(LINT_FLAGS, 0), "key_on_numeric": len(flagged), "flagged": len(flagged)}
