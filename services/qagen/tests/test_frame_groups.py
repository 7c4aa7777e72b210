"""Row groups are attributes of the rows under them, never data rows that counts and sums include."""

from __future__ import annotations

from livetab.tables import Cell, Source, Table
from livetab_qagen.frame import Frame

SRC = Source(kind="wikipedia", uri="https://en.wikipedia.org/wiki/Athlete")
ROWS = [["2001", "Europeans", "10"], ["2002", "Worlds", "7"], ["2003", "World Cup", "5"]]


def test_a_group_column_is_an_attribute_and_every_row_is_data() -> None:
    rows = [["Representing Poland", *ROWS[0]], ["Representing Poland", *ROWS[1]], ["Representing Europe", *ROWS[2]]]
    cells = [Cell(0, 0, "Section", header=True), *[Cell(0, c + 1, n, header=True) for c, n in enumerate(["Year", "Competition", "Pts"])],
             Cell(1, 0, "Representing Poland", rowspan=2, header=True), Cell(3, 0, "Representing Europe", header=True)]
    t = Table(id="t", source=SRC, header=[["Section", "Year", "Competition", "Pts"]], rows=rows, cells=cells,
              group_column="Section")
    f = Frame(t)
    assert f.data_rows == [0, 1, 2] and not f.group_rows
    assert sum(f.numbers[3][r] or 0 for r in f.data_rows) == 22
    frame = f.dataframe()
    assert len(frame[frame["Section"] == "Representing Poland"]) == 2


def test_full_width_rows_repeated_into_every_column_are_not_counted() -> None:
    # how a section row looked in tables extracted before the scraper read them as groups
    rows = [["Representing Poland"] * 3, ROWS[0], ROWS[1], ["Representing Europe"] * 3, ROWS[2]]
    f = Frame(Table(id="t", source=SRC, header=[["Year", "Competition", "Pts"]], rows=rows))
    assert f.group_rows == frozenset({0, 3}) and f.data_rows == [1, 2, 4]
    assert sum(f.numbers[2][r] or 0 for r in f.data_rows) == 22
    assert f.kinds[2] == "number"  # the heading text no longer makes "Pts" a text column


def test_a_data_row_of_one_repeated_number_is_still_data() -> None:
    rows = [["1", "1", "1"], ["2", "3", "4"]]
    f = Frame(Table(id="t", source=SRC, header=[["Rank", "Gold", "Total"]], rows=rows))
    assert f.data_rows == [0, 1]
