"""The content hash deduplicates tables by what they say, and a table says its header too: two tables
with the same body under different column names are different tables (the same figures as "Goals" or
as "Assists"), and must both be kept. Case and spacing, which say nothing, are ignored."""

from __future__ import annotations

import csv

from livetab.paths import shared_data
from livetab.tables import Source, Table
from livetab_scraper.clean import content_hash, dedupe


def _wtq(rel: str) -> Table:
    with (shared_data() / "wtq" / "csv" / rel).open(encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f, escapechar="\\"))
    return Table(id=f"wtq-{rel}", source=Source(kind="wtq", uri=rel), header=[rows[0]], rows=rows[1:])


def _copy(t: Table, header: list[list[str]] | None = None, rows: list[list[str]] | None = None) -> Table:
    return Table(id=t.id + "-copy", source=t.source, header=header if header is not None else [list(h) for h in t.header],
                 rows=rows if rows is not None else [list(r) for r in t.rows])


def test_the_header_is_part_of_the_content() -> None:
    t = _wtq("204-csv/21.csv")  # Škoda production per year: a body of bare numbers under year columns
    relabelled = _copy(t, header=[[t.header[0][0], *(str(int(y) + 1) for y in t.header[0][1:])]])
    assert relabelled.rows == t.rows and relabelled.header != t.header
    assert content_hash(relabelled) != content_hash(t)
    kept, dropped = dedupe([t, relabelled])
    assert kept == [t, relabelled] and dropped == []

    one_name = _copy(t, header=[[t.header[0][0], "1990", *t.header[0][2:]]])
    assert content_hash(one_name) != content_hash(t)


def test_where_the_header_ends_matters() -> None:
    t = _wtq("204-csv/21.csv")
    demoted = _copy(t, header=[], rows=[list(t.header[0]), *t.rows])  # the header read as a body row
    assert content_hash(demoted) != content_hash(t)
    two_levels = _copy(t, header=[list(t.header[0]), list(t.rows[0])], rows=t.rows[1:])
    assert content_hash(two_levels) != content_hash(t)


def test_case_and_spacing_are_not_content() -> None:
    t = _wtq("204-csv/21.csv")
    loud = _copy(t, header=[[f"  {v.upper()} " for v in t.header[0]]],
                 rows=[[v.replace(" ", "   ") for v in r] for r in t.rows])
    assert content_hash(loud) == content_hash(t)
    kept, dropped = dedupe([t, loud])
    assert kept == [t] and len(dropped) == 1 and content_hash(t) in dropped[0].reason
    assert len(content_hash(t)) == 32


def test_cells_are_not_merged_across_columns() -> None:
    t = _wtq("204-csv/21.csv")
    rows = [list(r) for r in t.rows]
    shifted = [list(r) for r in t.rows]
    shifted[0][0], shifted[0][1] = rows[0][0] + " " + rows[0][1], ""
    assert content_hash(_copy(t, rows=shifted)) != content_hash(t)
