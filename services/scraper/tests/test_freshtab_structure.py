"""FreshTab's tables read through the structure readers (`livetab_scraper.flatgrid`): pandas' span copies,
footer rows and total rows on all 527 published tables, counted before and after.

Run as a script to print the counts: `.venv/bin/python services/scraper/tests/test_freshtab_structure.py`.
The counts before this reader, with the same definitions (the total words of this tree, `livetab.total_labels`), come from the
freshtab source of 81b4c76:

    mkdir -p /tmp/before && git archive 81b4c76 services/scraper/livetab_scraper | tar -x -C /tmp/before
    PYTHONPATH=/tmp/before/services/scraper .venv/bin/python services/scraper/tests/test_freshtab_structure.py
"""

from __future__ import annotations

import re

import pytest
from livetab.paths import shared_data
from livetab.tables import Table
from livetab.total_labels import is_total_label
from livetab_scraper.sources import Fetched
from livetab_scraper.sources.freshtab import iter_freshtab

_SUFFIX = re.compile(r" \((\d+)\)$")


def _copied_column(t: Table) -> bool:
    """A "(2)"-style column that repeats the column it was named after in every row."""
    cols = t.columns
    for c, name in enumerate(cols):
        base = _SUFFIX.sub("", name)
        if base != name and base in cols:
            b = cols.index(base)
            if all(r[c] == r[b] for r in t.rows if len(r) > max(b, c)):
                return True
    return False


def _suffixed_column(t: Table) -> bool:
    """Any "(2)"-style column beside the column it was named after (copied or not)."""
    cols = t.columns
    return any(_SUFFIX.sub("", n) != n and _SUFFIX.sub("", n) in cols for n in cols)


def _unmarked_total(t: Table) -> bool:
    """A row labelled as a total in the table's language (first filled cell of the first three, after the
    group column) that `Table.total_rows` does not mark."""
    start = 1 if t.group_column else 0
    return any(is_total_label(next((v for v in r[start:start + 3] if v.strip()), ""), t.language)
               and i not in t.total_rows
               for i, r in enumerate(t.rows))


def _same_text_row(t: Table) -> bool:
    """A row whose cells all hold one text (a footer, a heading or a note copied over the row)."""
    return any(len(r) > 1 and r[0].strip() and len(set(r)) == 1 for r in t.rows)


def counts(tables: list[Table]) -> dict[str, int]:
    """Tables with each oddity, and tables with the structure marked."""
    return {"tables": len(tables), "copied_column": sum(map(_copied_column, tables)),
            "suffixed_column": sum(map(_suffixed_column, tables)),
            "unmarked_total": sum(map(_unmarked_total, tables)), "same_text_row": sum(map(_same_text_row, tables)),
            "marked_total": sum(bool(t.total_rows) for t in tables), "grouped": sum(bool(t.group_column) for t in tables),
            "footnotes": sum(bool(t.footnotes) for t in tables), "two_level_header": sum(len(t.header) > 1 for t in tables)}


def freshtab_items() -> list[Fetched]:
    return [i for i in iter_freshtab(shared_data() / "freshtab") if isinstance(i, Fetched)]


@pytest.fixture(scope="module")
def items() -> list[Fetched]:
    return freshtab_items()


# Rows that still hold one text in every cell, and why they are kept as rows (as the HTML path keeps them):
SAME_TEXT_KEPT = {
    "Q115902516_288.csv": "a long note ('107-Prozent-Zeit: ...') above the last driver (DNQ): a note, not a heading",
    "Q115902516_93.csv": "the same note in the Russian table, above the non-qualified drivers",
    "Q115902516_228.csv": "'Tiempo 107%: 1:20.437' above the drivers outside it: it states something, a note row",
    "Q115902516_24.csv": "'107 %-gränsen:1:20.437', as above (Swedish)",
    "Q115912515_10.csv": "'107 %-gränsen: 1:21.225', as above (Swedish)",
    "Q6348389_21.csv": "a 9-word heading in the middle of the list: longer than a heading is read to be, a note row",
    "Q133829106_299.csv": "'Independent hold' filled every cell but the colour swatch's: not one cell across the table",
    "Q134980713_271.csv": "'Independent hold', as above",
    "Q136547672_118.csv": "'Overall recruit ranking:' leaves its last (unnamed, empty) column out: not full-width",
    "Q136722426_845.csv": "'Overall recruit ranking: ...', as above",
}


def test_no_span_copies_or_unmarked_totals_are_left(items: list[Fetched]) -> None:
    tables = [i.tables[0] for i in items]
    got = counts(tables)
    # measured before this reader (the freshtab source of 81b4c76, the same definitions; see the report):
    # copied_column 2, suffixed_column 62, unmarked_total 69, same_text_row 78, marked_total 0, grouped 0,
    # footnotes 0, two_level_header 0
    assert got["tables"] == 527
    assert got["copied_column"] == 0
    # "(2)" columns left: they differ from their namesake in some rows (number | name of an ambassador, prize |
    # winner of the maximum break, the Apulian candidates' and parties' votes side by side)
    assert got["suffixed_column"] == 35
    assert got["unmarked_total"] == 0
    assert {i.extra["csv_id"] for i in items if _same_text_row(i.tables[0])} == set(SAME_TEXT_KEPT)
    # 66 labelled "Total"/"Totals"/… and 2 recruiting classes' "Overall recruit ranking: …" rows, a summary of
    # the class ("overall" is a total word: a season's "Overall" record sums its conference and other games)
    assert got["marked_total"] == 68
    assert got["grouped"] == 26
    assert got["footnotes"] == 51
    assert got["two_level_header"] == 2  # the Extremaduran and the Russian German-election tables


def test_a_second_header_level_left_in_the_body_joins_the_header(items: list[Fetched]) -> None:
    t = by_csv(items, "Q120399196_189.csv")  # 2025 Extremaduran regional election
    assert t.columns == ["Parties and alliances", "Popular vote - Votes", "Popular vote - %", "Popular vote - ±pp",
                         "Seats - Total", "Seats - +/−"]
    assert t.rows[0][:2] == ["People's Party (PP)", "228300"] and t.footnotes == ["Sources"]
    assert next(c for c in t.cells if c.row == 0).rowspan == 2  # "Parties and alliances" over both levels


def by_csv(items: list[Fetched], csv_id: str) -> Table:
    return next(i.tables[0] for i in items if i.extra["csv_id"] == csv_id)


def test_the_slovenian_referendum_reads_as_written(items: list[Fetched]) -> None:
    t = by_csv(items, "Q136840461_560.csv")  # in the demo release (deploy/sample/freshtab)
    assert t.columns == ["Choice", "Votes", "%"]  # "Choice (2)", one cell spanning two slots, collapsed
    assert [r[0] for r in t.rows] == ["For", "Against", "Total", "Valid votes", "Invalid/blank votes", "Total votes",
                                      "Registered voters/turnout"]
    assert [t.rows[i][0] for i in t.total_rows] == ["Total", "Total votes"]
    assert t.footnotes == ["Source: Volitve"]  # the footer row, no longer a data row


def test_swatch_columns_sections_and_glued_headings(items: list[Fetched]) -> None:
    by_election = by_csv(items, "Q137212461_154.csv")  # colour swatch | party | candidate ...
    assert by_election.columns == ["Party", "Candidate", "Votes", "%", "∆%"]
    assert by_election.rows[3][:3] == ["Total valid votes", "Total valid votes", "26436"]  # one spanning cell
    assert any(c.row == 4 and c.colspan == 2 and c.text == "Total valid votes" for c in by_election.cells)
    assert by_election.total_rows == [3, 4]  # "Total valid votes", "Total rejected ballots"
    tour = by_csv(items, "Q136419214_22.csv")  # "Date north america" ... and "Europe", "Oceania" rows
    assert tour.columns[:3] == ["Section", "Date", "City"] and tour.group_column == "Section"
    assert [r[0] for r in tour.rows][::10] == ["North america"] * 2 + ["Europe"] * 2
    assert not any(len(set(r[1:])) == 1 for r in tour.rows)
    brondby = by_csv(items, "Q134621545_341.csv")  # no sections: the glued words title the table
    assert brondby.caption == "2025 Brøndby municipal election — Brøndby municipality"
    assert brondby.columns[:3] == ["Party", "Party (2)", "Votes"]  # letter and name: two columns that differ


def test_a_flat_grid_with_every_kind_of_copy() -> None:
    from livetab_scraper.flatgrid import read_flat_grid

    flat = read_flat_grid(["Team", "Team", "Won", "Lost"], [
        ["A", "A", "3", "0"], ["B", "B", "2", "1"], ["Play-offs", "Play-offs", "Play-offs", "Play-offs"],
        ["C", "C", "1", "1"], ["D", "D", "0", "0"], ["Totals", "Totals", "6", "2"],
        ["Source: league", "Source: league", "Source: league", "Source: league"]], "en")
    assert flat.header == [["Section", "Team", "Won", "Lost"]] and flat.copied_columns == ["Team"]
    assert flat.rows == [["", "A", "3", "0"], ["", "B", "2", "1"], ["Play-offs", "C", "1", "1"],
                         ["Play-offs", "D", "0", "0"], ["Play-offs", "Totals", "6", "2"]]
    assert flat.total_rows == [4] and flat.footnotes == ["Source: league"] and flat.group_column == "Section"
    # "0 | 0" side by side are two cells, not one spanning cell
    assert not any(c.colspan > 1 for c in flat.cells if not c.header)


if __name__ == "__main__":
    import livetab_scraper

    print(livetab_scraper.__file__)  # the total words are this tree's (livetab.total_labels) either way
    print(counts([i.tables[0] for i in freshtab_items()]))
