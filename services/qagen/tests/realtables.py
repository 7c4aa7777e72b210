"""Real tables from ../shared/data as livetab Tables (header = first row), for the programmatic tests."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from livetab.ids import table_id
from livetab.paths import shared_data
from livetab.tables import Source, Table

__all__ = ["arabic_tables", "tabfact_tables", "wtq_tables"]


def _table(uri: str, rows: list[list[str]], *, language: str, title: str, kind: str) -> Table:
    header, body = rows[0], rows[1:]
    return Table(id=table_id(uri, "", 0), source=Source(kind=kind, uri=uri, title=title),
                 header=[header], rows=body, language=language, caption=title)


def wtq_tables(limit: int | None = None) -> list[Table]:
    root = shared_data() / "wtq" / "csv"
    out = []
    for path in sorted(root.glob("*-csv/*.csv"))[:limit]:
        with path.open(encoding="utf-8", newline="") as f:
            rows = [list(r) for r in csv.reader(f, escapechar="\\")]
        rel = path.relative_to(shared_data()).as_posix()
        out.append(_table(f"data:{rel}", rows, language="en", title=f"WikiTableQuestions {rel}", kind="wtq"))
    return out


def tabfact_tables(limit: int | None = None) -> list[Table]:
    root = shared_data() / "tabfact" / "all_csv"
    out = []
    for path in sorted(root.glob("*.csv"))[:limit]:
        rows = [line.split("#") for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        out.append(_table(f"data:tabfact/{path.name}", rows, language="en", title=f"TabFact {path.stem}",
                          kind="tabfact"))
    return out


def arabic_tables(limit: int | None = None) -> list[Table]:
    path: Path = shared_data() / "arabic" / "tata_ar_dev_test.jsonl"
    out = []
    with path.open(encoding="utf-8") as f:
        for line in f:
            rec = json.loads(line)
            grid = [["" if v is None else str(v) for v in row] for row in json.loads(rec["table_data"])]
            if len(grid) < 3:
                continue
            out.append(_table(f"data:tata/{rec['example_id']}", grid, language="ar", title=rec["title"], kind="tata"))
            if limit is not None and len(out) >= limit:
                break
    return out
