"""30 Arabic questions generated from TaTA tables, read and checked by a person.

The tables come through the scraper's `tata` source (headerless charts recognised, columns named from
the title and unit of measure, sections and totals read) and the questions through the normal qagen
path (`livetab_qagen.generate`). `tests/data/arabic_tata_questions_reviewed.jsonl` holds the 30
questions as they were read, each with the reviewer's note (gold checked against the table by hand,
unambiguous, natural Arabic). This test regenerates them from the data and asserts that the text and
gold are still those that were reviewed: a change in the source, the templates or the generator that
alters any of them fails here, and the file has to be reviewed again.

Regenerate (keeps the notes of questions whose text and gold did not change):
    python tests/test_arabic_tata_questions.py --write
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

from livetab.paths import shared_data
from livetab.questions import Question
from livetab_qagen import generate
from livetab_scraper.sources.tata import read_tata

REVIEWED = Path(__file__).parent / "data" / "arabic_tata_questions_reviewed.jsonl"
FAMILIES = ("direct", "reasoning", "fact", "mcq")
SEED = 17
N = 30


def _tables() -> list[tuple[str, object]]:
    path = shared_data() / "arabic" / "tata_ar_dev_test.jsonl"
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        out.append((rec["example_id"], read_tata(rec).table))
    return out


def sample() -> list[tuple[str, Question]]:
    """The seeded sample: tables in a seeded order, one question each, the families in turn (a table
    that gives no question of its turn's family is passed over)."""
    tables = _tables()
    random.Random(SEED).shuffle(tables)
    out: list[tuple[str, Question]] = []
    for example_id, table in tables:
        family = FAMILIES[len(out) % len(FAMILIES)]
        got = generate(table, families=[family], per_family=2, seed=SEED)  # type: ignore[arg-type]
        if got.questions:
            out.append((example_id, got.questions[0]))
        if len(out) == N:
            break
    return out


def _record(example_id: str, q: Question) -> dict[str, object]:
    return {"example_id": example_id, "family": q.family, "operation": q.operation, "text": q.text,
            "options": q.options, "gold": q.gold.text, "gold_kind": q.gold.kind}


def _read() -> list[dict[str, object]]:
    return [json.loads(line) for line in REVIEWED.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_the_reviewed_arabic_questions_are_regenerated_unchanged() -> None:
    reviewed = _read()
    assert len(reviewed) == N
    assert all(str(r.get("note", "")).strip() for r in reviewed), "every question carries its reviewer's note"
    assert all(r["gold_right"] is True and r["unambiguous"] is True for r in reviewed)
    assert sum(r["natural"] is True for r in reviewed) >= 27  # the rest: "heavy" (long unit names) or "weak"
    got = [_record(e, q) for e, q in sample()]
    assert [(r["example_id"], r["text"], r["gold"]) for r in got] == \
        [(r["example_id"], r["text"], r["gold"]) for r in reviewed]
    assert [r["options"] for r in got] == [r["options"] for r in reviewed]


def test_the_sample_covers_the_families_and_several_tables() -> None:
    reviewed = _read()
    assert {r["family"] for r in reviewed} == set(FAMILIES)
    assert len({r["example_id"] for r in reviewed}) == N
    assert len({r["operation"] for r in reviewed}) >= 4
    for r in reviewed:  # the fixes the review asked for
        assert "««" not in str(r["text"]) and "»»" not in str(r["text"]), r["text"]
        assert "العمود " not in str(r["text"]), r["text"]  # no unnamed "column N"


REVIEW_FIELDS = ("note", "gold_right", "unambiguous", "natural")


def _write() -> None:
    old = {(r["example_id"], r["text"], r["gold"]): r for r in _read()} if REVIEWED.exists() else {}
    with REVIEWED.open("w", encoding="utf-8") as f:
        for e, q in sample():
            rec = _record(e, q)
            seen = old.get((e, q.text, q.gold.text), {})
            rec.update({k: seen.get(k, "") for k in REVIEW_FIELDS})  # unreviewed: empty, and the test fails
            f.write(json.dumps(rec, ensure_ascii=False) + "\n")


if __name__ == "__main__" and "--write" in sys.argv:
    _write()


def test_shares_are_summed_only_when_they_are_parts_of_one_whole() -> None:
    """What the review found: "the sum over all rows" of different indicators' percentages."""
    from livetab_qagen.frame import Frame

    tables = dict(_tables())
    indicators = Frame(tables["SR280-ar-9"])  # four indicators, each a percentage of children (68, 63, 55, 53)
    distribution = Frame(tables["FR359-ar-51"])  # who assisted the delivery: 0.43 + 0.2 + 0.22 + 0.03 + 0.11
    labelled = Frame(tables["FR293-ar-33"])  # rows each name a share ("النسبة المئوية للنساء …"): 15+6+53+26 = 100
    assert not indicators.additive(1) and distribution.additive(1) and not labelled.additive(1)
    asked = {q.operation for table in ("SR280-ar-9", "FR293-ar-33")
             for q in generate(tables[table], families=["reasoning", "fact", "mcq"], per_family=6, seed=0).questions  # type: ignore[arg-type]
             if "مجموع" in q.text}
    assert not asked
