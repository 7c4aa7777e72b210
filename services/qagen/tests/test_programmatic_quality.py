"""Near-duplicate removal and balancing on real generated questions."""

from __future__ import annotations

import copy
from collections import Counter

from livetab_qagen import generate
from livetab_qagen.quality import balance, dedupe, normalise_text
from realtables import wtq_tables


def test_normalise_text() -> None:
    assert normalise_text("  How MANY rows?? ") == normalise_text("how many rows")
    assert normalise_text("كم عدد الصفوف؟ ٣") == normalise_text("كَمْ عدد الصفوف 3")


def test_near_duplicates_are_dropped() -> None:
    questions = generate(wtq_tables(1)[0], families=["direct"], per_family=3).questions
    twin = copy.deepcopy(questions[0])
    twin.id = "q_twin"
    twin.text = twin.text.upper() + "  "
    kept, dropped = dedupe([*questions, twin])
    assert [q.id for q in kept] == [q.id for q in questions]
    assert dropped == [("near_duplicate", f"q_twin repeats {questions[0].id}")]


def test_balance_to_configured_proportions() -> None:
    questions = [q for t in wtq_tables(4) for q in generate(t, families=["direct", "reasoning", "fact"], per_family=4).questions]
    kept, dropped = balance(questions, {"family": {"direct": 1, "reasoning": 1, "fact": 2}}, seed=1)
    counts = Counter(q.family for q in kept)
    assert counts["fact"] == 2 * counts["direct"] == 2 * counts["reasoning"] > 0
    assert len(kept) + len(dropped) == len(questions)


def test_generate_applies_balance() -> None:
    table = wtq_tables(1)[0]
    result = generate(table, families=["direct", "fact"], per_family=4, proportions={"family": {"direct": 1, "fact": 1}})
    counts = Counter(q.family for q in result.questions)
    assert counts["direct"] == counts["fact"] > 0
