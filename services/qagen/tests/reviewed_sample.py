"""The seeded sample of generated questions that a person read and checked (tests/data/questions_reviewed_100.jsonl).

Tables come the product's way: WikiTableQuestions pages (`wiki_html`, `wiki_html_more`) through the
`local_html` source, the extractor and cleaning (`ScraperHandler`), and TAT-QA's annual-report tables written
as CSV files and read by the `local_files` source. Questions come from `livetab_qagen.generate` over all
families with one seed; 100 of them are taken round-robin across families with the same seed.
Regenerating gives the same questions, so a change of wording or gold shows up against the reviewed file.
"""

from __future__ import annotations

import csv
import json
import random
from pathlib import Path
from typing import Any

from livetab.paths import shared_data
from livetab.questions import Question
from livetab.tables import Table
from livetab.v1 import table_pb2
from livetab_qagen import generate
from livetab_scraper.handler import ScraperHandler

__all__ = ["REVIEWED", "SEED", "lint_of_sample", "sample", "sample_tables", "sample_with_tables"]

SEED = 17
N_WTQ, N_QUESTIONS, N_FROM_TATQA = 12, 100, 25  # pages drawn; questions; of them from TAT-QA (all 60 tables read)
REVIEWED = Path(__file__).resolve().parents[3] / "tests" / "data" / "questions_reviewed_100.jsonl"
TATQA_ATTRIBUTION = "TAT-QA (Zhu et al. 2021), CC BY 4.0"


def _scraped(source: str, location: Path) -> list[Table]:
    cmd = table_pb2.ScrapeCommand(source=source, location=str(location), release="reviewed-sample")
    return [f.table for f in ScraperHandler()._found(cmd, None) if f.table is not None]


def sample_tables(tmp: Path) -> list[tuple[str, Table]]:
    """(where the table is from, the table) for the seeded choice of WTQ pages and TAT-QA tables."""
    rng = random.Random(SEED)
    data = shared_data()
    pages = sorted(p for folder in ("wiki_html", "wiki_html_more") for p in (data / folder / "pages").glob("*.html"))
    out: list[tuple[str, Table]] = []
    for page in rng.sample(pages, N_WTQ):
        out += [(f"wtq:{page.parent.parent.name}/{page.stem}", t) for t in _scraped("local_html", page)]
    records = [json.loads(line) for line in (data / "tatqa" / "dev_sample.jsonl").read_text(encoding="utf-8").splitlines()]
    folder = tmp / "tatqa"
    folder.mkdir(parents=True, exist_ok=True)
    names = {}
    for rec in records:
        uid = rec["table"]["uid"]
        path = folder / f"tatqa_{uid[:8]}.csv"
        with path.open("w", newline="", encoding="utf-8") as f:
            csv.writer(f).writerows(rec["table"]["table"])
        names[path.name] = uid
    cmd = table_pb2.ScrapeCommand(source="local_files", location=str(folder), release="reviewed-sample",
                                  options={"attribution": TATQA_ATTRIBUTION})
    for f in ScraperHandler()._found(cmd, None):
        if f.table is not None:
            out.append((f"tatqa:{names[f.table.source.uri.removeprefix('file:').rsplit('/', 1)[-1]]}", f.table))
    return out


def _round_robin(items: list[tuple[str, Question]], n: int, rng: random.Random) -> list[tuple[str, Question]]:
    """Up to n items taken in turn from each family (closed-book variants their own), each queue shuffled."""
    by_family: dict[str, list[tuple[str, Question]]] = {}
    for where, q in items:
        by_family.setdefault("closed_book" if q.closed_book else q.family, []).append((where, q))
    queues = [by_family[f] for f in sorted(by_family)]
    for queue in queues:
        rng.shuffle(queue)
    picked: list[tuple[str, Question]] = []
    while len(picked) < n and any(queues):
        for queue in queues:
            if queue and len(picked) < n:
                picked.append(queue.pop())
    return picked


def sample_with_tables(tmp: Path) -> tuple[list[dict[str, Any]], dict[str, Table]]:
    """The 100 questions (id, family, kind, closed_book, source, question, options, gold, spec, table_id; no
    review) and, by each question's source, the table it was generated from."""
    made: dict[bool, list[tuple[str, Question]]] = {True: [], False: []}
    tables: dict[str, Table] = {}
    for where, table in sample_tables(tmp):
        tables[where] = table
        made[where.startswith("tatqa:")] += [(where, q) for q in generate(table, seed=SEED, per_family=1).questions]
    rng = random.Random(SEED)
    tatqa = _round_robin(made[True], N_FROM_TATQA, rng)
    picked = _round_robin(made[False], N_QUESTIONS - len(tatqa), rng) + tatqa
    records = [{"id": q.id, "family": q.family, "kind": q.params.get("kind", ""), "closed_book": q.closed_book,
                "source": where, "question": q.text, "options": list(q.options), "gold": q.gold.text,
                "spec": q.params.get("spec", ""), "table_id": q.table_id} for where, q in picked]
    return records, tables


def sample(tmp: Path) -> list[dict[str, Any]]:
    return sample_with_tables(tmp)[0]


def all_tables(tmp: Path) -> list[tuple[str, Table]]:
    """Every table the sample draws from: the 150 WTQ pages and the 60 TAT-QA tables (those cleaning keeps)."""
    data = shared_data()
    out: list[tuple[str, Table]] = []
    for folder in ("wiki_html", "wiki_html_more"):
        out += [(f"wtq:{folder}", t) for t in _scraped("local_html", data / folder / "pages")]
    folder_path = tmp / "tatqa_all"
    folder_path.mkdir(parents=True, exist_ok=True)
    for line in (data / "tatqa" / "dev_sample.jsonl").read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        with (folder_path / f"tatqa_{rec['table']['uid'][:8]}.csv").open("w", newline="", encoding="utf-8") as f:
            csv.writer(f).writerows(rec["table"]["table"])
    cmd = table_pb2.ScrapeCommand(source="local_files", location=str(folder_path), release="reviewed-sample",
                                  options={"attribution": TATQA_ATTRIBUTION})
    return out + [("tatqa", f.table) for f in ScraperHandler()._found(cmd, None) if f.table is not None]


def lint_of_sample(tmp: Path, every_table: bool = False, per_family: int = 1) -> dict[str, int]:
    """The question lint's counts (`livetab.question_lint`, as in a release's quality report) over every
    question generated from the sample's tables (or from all 210 tables), and their number."""
    from livetab.question_lint import lint_counts

    pairs = all_tables(tmp) if every_table else sample_tables(tmp)
    items = [(q.text, q.gold.text, q.family, table) for _, table in pairs
             for q in generate(table, seed=SEED, per_family=per_family).questions]
    return {**lint_counts(items), "questions": len(items), "tables": len(pairs)}


if __name__ == "__main__":  # python services/qagen/tests/reviewed_sample.py [--all]: lint counts over the tables
    import sys
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        every = "--all" in sys.argv
        print(json.dumps(lint_of_sample(Path(d), every_table=every, per_family=2 if every else 1)))
