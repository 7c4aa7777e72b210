"""Questions over tables from files as companies publish them (TAT-QA's annual-report tables, read by the
file source): header and unit rows are never data, totals the scraper found by their sums are never
silent addends, no column is "column N", and a closed-book question never names a table by its file name."""

from __future__ import annotations

import csv
import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
from livetab.paths import shared_data
from livetab.tables import Table
from livetab_qagen import generate
from livetab_qagen.families import reasoning
from livetab_qagen.families.base import Context
from livetab_qagen.frame import Frame
from livetab_qagen.templates import load_locale
from livetab_scraper.sources.files import LocalFilesConfig, read_table_file

DATA = shared_data() / "tatqa" / "dev_sample.jsonl"
pytestmark = pytest.mark.skipif(not DATA.exists(), reason="shared TAT-QA sample not present")


def _grids() -> list[list[list[str]]]:
    return [json.loads(line)["table"]["table"] for line in DATA.read_text(encoding="utf-8").splitlines()]


def _file_table(tmp_path: Path, i: int, attribution: str = "") -> Table:
    path = tmp_path / f"tatqa_{i}.csv"
    with path.open("w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows(_grids()[i])
    cfg = LocalFilesConfig(location=str(tmp_path), attribution=attribution)
    return next(t for item in read_table_file(path, cfg, tmp_path) for t in getattr(item, "tables", []))


def test_an_unlabelled_total_found_by_its_sums_is_no_addend(tmp_path: Path) -> None:
    t = _file_table(tmp_path, 21)  # last row: "" | $2,636 | $3,838 | $9,524, the sum of the three above
    frame = Frame(t)
    assert frame.total_rows == frozenset({len(t.rows) - 1})
    assert not reasoning.whole_table_ok(Context(frame, load_locale("en"), random.Random(0)))


# Texts of header and unit rows of the sample: a question that gives one of them as a row's value read a
# header or unit row as data ("the row whose "2018" is "£m""); as a column's name a year is right.
_HEADERISH = re.compile(r'(?:is|equal to|equals|was|are|were) "(?:\$M|£m|\$m|€m|%|Number|\(in thousands\)|\(In thousands\)|\(Dollars in millions\)|'
                        r'\(\$ in millions\)|\(in millions\)|2019|2018|2017)"')


def test_questions_over_the_tables_read_no_header_or_unit_row_as_data(tmp_path: Path) -> None:
    questions = []
    for i in range(0, len(_grids()), 2):  # every other table of the 60: test time
        t = _file_table(tmp_path, i)
        questions += generate(t, seed=i, per_family=2).questions
    assert len(questions) >= 60
    texts = [q.text for q in questions]
    assert not [x for x in texts if _HEADERISH.search(x)]
    assert not [x for x in texts if re.search(r"\bcolumn \d+\b", x)]
    closed = [q for q in questions if q.closed_book]
    assert not [q.text for q in closed if "file:" in q.text or "tatqa_" in q.text]


def test_a_file_table_is_named_by_caption_and_publisher_or_not_closed_book(tmp_path: Path) -> None:
    bare = _file_table(tmp_path, 0)
    result = generate(bare, families=["direct", "closed_book"], seed=0, per_family=2)
    assert not [q for q in result.questions if q.closed_book]
    named = _file_table(tmp_path, 0, attribution="TAT-QA (Zhu et al. 2021)")
    named.caption = "Revenue from external customers by country"
    result = generate(named, families=["direct", "closed_book"], seed=0, per_family=2)
    closed = [q for q in result.questions if q.closed_book]
    assert closed and all("Revenue from external customers by country" in q.text and "TAT-QA" in q.text
                          for q in closed)


def test_the_lint_counts_before_and_after_structure_is_read(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """The same tables read the old way (the first row the only header; `header_rows=1`) and with their
    structure read: the lint's counts over the questions generated from each."""
    from livetab.question_lint import lint_counts

    def run(header_rows: int | None) -> dict[str, int]:
        items = []
        for i in range(1, len(_grids()), 3):  # a third of the 60: test time
            path = tmp_path / f"tatqa_{i}.csv"
            with path.open("w", newline="", encoding="utf-8") as f:
                csv.writer(f).writerows(_grids()[i])
            cfg = LocalFilesConfig(location=str(tmp_path), header_rows=header_rows)
            t = next(t for item in read_table_file(path, cfg, tmp_path) for t in getattr(item, "tables", []))
            items += [(q.text, q.gold.text, q.family, t) for q in generate(t, seed=i, per_family=2).questions]
        return {**lint_counts(items), "questions": len(items)}

    before, after = run(1), run(None)
    with capsys.disabled():
        print(f"\nquestion lint over 20 TAT-QA tables, before: {before}\nafter: {after}")
    assert before["header_row_as_data"] > 0 and before["column_n_name"] > 0  # the lint sees the old misreadings
    assert after["header_row_as_data"] == 0 and after["column_n_name"] == 0 and after["total_row_as_key"] == 0
    assert after["flagged"] < before["flagged"]


def test_questions_the_lint_flags_are_held_back_in_the_review_queue(tmp_path: Path) -> None:
    """Through the qagen handler: tables misread the old way (first row the only header) give flagged
    questions; with `qagen.lint: review` (the default) none of them is published or stored as a question, each
    waits in the review queue with its flags as the reason; `keep` publishes them; `drop` leaves them out."""
    from livetab import review
    from livetab.bus import HandlerContext
    from livetab.question_lint import lint_question
    from livetab.settings import QagenSettings, Settings
    from livetab.store import open_store, schema
    from livetab_qagen.handler import QagenHandler

    tables = []
    for i in (1, 7):
        path = tmp_path / f"tatqa_{i}.csv"
        with path.open("w", newline="", encoding="utf-8") as f:
            csv.writer(f).writerows(_grids()[i])
        cfg = LocalFilesConfig(location=str(tmp_path), header_rows=1)
        t = next(t for item in read_table_file(path, cfg, tmp_path) for t in getattr(item, "tables", []))
        t.release = "lint"
        tables.append(t)

    def published(lint: str) -> tuple[list[str], list[Any], Any]:
        store = open_store(f"sqlite:///{tmp_path / f'{lint}.db'}")
        ctx = HandlerContext(store=store, settings=Settings(qagen=QagenSettings(
            families=["direct", "reasoning", "fact"], per_table=0, lint=lint)))
        handler = QagenHandler()
        out = [o for t in tables for o in handler.handle(t.to_proto(), ctx)]
        by_id = {t.id: t for t in tables}
        flags = [",".join(lint_question(o.message.text, o.message.gold.text, o.message.family,
                                        by_id[o.message.table_id])) for o in out if o.message.table_id in by_id]
        return flags, review.items(store, release="lint"), store

    kept, queue_kept, _ = published("keep")
    held, queue, store = published("review")
    dropped, queue_dropped, _ = published("drop")
    assert sum(bool(f) for f in kept) > 0 and not queue_kept  # the misread tables do give flagged questions
    assert not any(held) and not any(dropped) and not queue_dropped
    assert len(queue) == sum(bool(f) for f in kept) == len(kept) - len(held)
    assert all(item.reason.startswith("question lint: ") for item in queue)
    stored = {r["id"] for r in store.select(schema.questions)}
    assert not stored & {item.question.id for item in queue}  # held back: not a question of the release
