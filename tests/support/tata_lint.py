"""Question-lint counts over the 181 Arabic TaTA tables, before and after the `tata` source reads them.

Before: each chart's grid with its first row taken as the header (how the tables were read until then);
after: `livetab_scraper.sources.tata.read_tata`. Questions of four families, two per family, seed 0.

    .venv/bin/python -m tests.support.tata_lint        # a few minutes on 2 cores
"""

from __future__ import annotations

import json

from livetab.ids import table_id
from livetab.paths import shared_data
from livetab.question_lint import lint_counts
from livetab.tables import Source, Table
from livetab_qagen import generate
from livetab_scraper.sources.tata import read_tata

FAMILIES = ["direct", "reasoning", "fact", "mcq"]


def main() -> None:
    before: list[tuple[str, str, str, Table]] = []
    after: list[tuple[str, str, str, Table]] = []
    for line in (shared_data() / "arabic" / "tata_ar_dev_test.jsonl").read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        grid = [["" if v is None else str(v) for v in row] for row in json.loads(rec["table_data"])]
        old = Table(id=table_id(f"data:tata/{rec['example_id']}", "", 0), source=Source(kind="tata", uri=rec["example_id"]),
                    header=[grid[0]], rows=grid[1:], language="ar", caption=rec["title"])
        for table, acc in ((old, before), (read_tata(rec).table, after)):
            if len(table.rows) < 2:
                continue
            for q in generate(table, families=FAMILIES, per_family=2, seed=0).questions:
                acc.append((q.text, q.gold.text, q.family, table))
    print(json.dumps({"before": {**lint_counts(before), "questions": len(before)},
                      "after": {**lint_counts(after), "questions": len(after)}}, ensure_ascii=False))


if __name__ == "__main__":
    main()
