"""What the question's table tells the rule judge (rubric/columns.py), on a WTQ-like table of race
winners: cells with a "(...)" tail, a multi-line cell, a date cell, an empty cell."""

from __future__ import annotations

import pytest
from livetab.rubric.columns import TableView, table_view
from livetab.tables import Source, Table

ROWS = [
    ["2001", "Team Penske", "Hélio Castroneves (BRA)"],
    ["2002", "Team Penske", "Hélio Castroneves"],
    ["2003", "Chip Ganassi Racing", "Scott Dixon"],
    ["2009", "Team Penske", "Hungary\nKatalin Kovács\nDanuta Kozák"],
    ["", "St. Louis Cardinals", " "],
    ["2 October 2011", "The Cardinals x", "ab"],
]
VIEW = TableView(ROWS)


@pytest.fixture(autouse=True)
def _fresh_view() -> None:
    """Each test builds its view when it runs: a view built once at import is made by whatever code ran then
    (under `make mutation`, the unmutated code) and keeps its per-gold cache from test to test."""
    global VIEW
    VIEW = TableView(ROWS)


HUNGARY = "hungary katalin kovacs danuta kozak"


def test_cells_in_comparison_form() -> None:
    first = VIEW.columns[2][0]
    assert (first.row, first.key, first.names, first.lines, first.joined) == (
        0, "helio castroneves bra", ("helio castroneves bra", "helio castroneves"), (), "")
    multi = VIEW.columns[2][3]
    assert multi.names == (HUNGARY, "hungary", "katalin kovacs", "danuta kozak")
    assert (multi.lines, multi.joined) == (("hungary", "katalin kovacs", "danuta kozak"), HUNGARY)
    assert [v.row for v in VIEW.columns[2]] == [0, 1, 2, 3, 5]  # the blank cell is not a value
    assert [v.row for v in VIEW.columns[0]] == [0, 1, 2, 3, 5]
    assert VIEW.columns[0][4].years == frozenset({2011})
    assert {"2001", "penske", "bra", "ab", "kozak"} <= VIEW.words
    assert TableView([]).columns == ()
    ragged = TableView([["a", "b"], ["c"]])
    assert [[v.key for v in col] for col in ragged.columns] == [["a", "c"], ["b"]]


def test_gold_columns_and_rows() -> None:
    assert VIEW.gold_columns(["scott dixon"]) == (2,)
    assert VIEW.gold_columns(["helio castroneves"]) == (2,)  # without the "(BRA)" tail
    assert VIEW.gold_columns(["katalin kovacs"]) == (2,)  # one line of a cell
    assert VIEW.gold_columns([HUNGARY]) == (2,)  # the lines as WTQ joins them
    assert VIEW.gold_columns(["", "scott dixon"]) == (2,)
    assert VIEW.gold_columns(["penske"]) == (1,)  # inside a cell, when no cell is the gold
    assert VIEW.gold_columns(["nothing"]) == ()
    assert VIEW.gold_columns(["2011"]) == (0,)
    assert VIEW.gold_columns(["x y"], year=2011) == (0,)
    assert VIEW.gold_columns(["x y"], year=1999) == ()
    assert VIEW.gold_rows(1, ["team penske"]) == frozenset({0, 1, 3})
    assert VIEW.gold_rows(1, ["penske"]) == frozenset({0, 1, 3})
    assert VIEW.gold_rows(2, ["helio castroneves"]) == frozenset({0, 1})
    assert VIEW.gold_rows(2, [HUNGARY]) == frozenset({3})


def test_other_names_and_years() -> None:
    assert VIEW.other_names([1], ["team penske"]) == ["chip ganassi racing", "st louis cardinals", "the cardinals x"]
    # neither the gold, nor a name holding it, nor one inside it
    assert VIEW.other_names([2], ["katalin kovacs"]) == [
        "helio castroneves bra", "helio castroneves", "scott dixon", "hungary", "danuta kozak", "ab"]
    assert VIEW.other_years([0], 2001) == frozenset({2002, 2003, 2009, 2011})
    assert VIEW.other_years([0, 2], 2009) == frozenset({2001, 2002, 2003, 2011})


def test_owners_gold_lines_and_same_column() -> None:
    assert VIEW.owners(2, ["castroneves"]) == frozenset({0, 1})
    assert VIEW.owners(2, ["castronevez"], 1) == frozenset({0, 1})  # one slip allowed
    assert VIEW.owners(2, ["castronevez"]) == frozenset()
    assert VIEW.owners(2, ["dixo"], 1) == frozenset()  # short words get no slip
    assert VIEW.owners(2, ["helio", "dixon"]) == frozenset()  # every word in one name
    assert VIEW.owners(2, ["kozak"]) == frozenset({3})
    assert VIEW.gold_lines([2], [HUNGARY]) == ("hungary", "katalin kovacs", "danuta kozak")
    assert VIEW.gold_lines([1, 2], [HUNGARY]) == ("hungary", "katalin kovacs", "danuta kozak")
    assert VIEW.gold_lines([2], ["scott dixon"]) == ()
    assert VIEW.gold_lines([1], [HUNGARY]) == ()
    assert VIEW.same_column(frozenset({"scott", "dixon"}), "katalin")
    assert VIEW.same_column(frozenset({"the", "team", "penske"}), "chip")
    assert not VIEW.same_column(frozenset({"scott", "dixon"}), "chip")  # another column
    assert not VIEW.same_column(frozenset({"scott", "dixon"}), "scott")  # the asked name itself
    assert not VIEW.same_column(frozenset({"nobody"}), "chip")


def test_gold_in_table() -> None:
    found = VIEW.gold(("team penske",), frozenset({"the", "of"}))
    assert found.columns == (1,)
    assert found.candidates == ("chip ganassi racing", "st louis cardinals", "the cardinals x")
    assert found.by_first == {"chip": ("chip ganassi racing",), "st": ("st louis cardinals",),
                              "the": ("the cardinals x",)}
    assert found.lines == ()
    assert VIEW.gold(("team penske",), frozenset({"the", "of"})) is found  # kept per gold
    assert sorted(found.named_in(["chip", "st", "zz"])) == ["chip ganassi racing", "st louis cardinals"]
    assert found.named_in(["وchip"]) == ["chip ganassi racing"]  # Arabic "and" written onto the name
    assert found.named_in(["و"]) == []
    # short names, numbers and names of stop words only are no candidates
    years = VIEW.gold(("2001",), frozenset({"ab"}))
    assert years.candidates == ("2 october 2011",)
    dixon = VIEW.gold(("scott dixon",), frozenset({"ab"}))
    assert "ab" not in dixon.candidates and "hungary" in dixon.candidates
    assert VIEW.gold((HUNGARY,), frozenset()).lines == ("hungary", "katalin kovacs", "danuta kozak")


def test_table_view_is_cached_per_table() -> None:
    assert table_view(None) is None
    assert table_view(VIEW) is VIEW
    assert isinstance(table_view(ROWS), TableView)
    table = Table(id="wtq-203-506", source=Source(kind="test"), header=[["Year", "Team", "Driver"]], rows=ROWS)
    view = table_view(table)
    assert view is not None and view.gold_columns(["scott dixon"]) == (2,)
    assert table_view(table) is view
    anonymous = Table(id="", source=Source(kind="test"), header=[["Year"]], rows=[["2001"]])
    assert table_view(anonymous) is not table_view(anonymous)


def test_view_edges_written_against_survivors() -> None:
    # (docs/mutation.md, rubric_classes, 1 December 2026)
    view = TableView([["Italy", "Italy national team"], ["France", "France B"], ["St. Louis Cardinals", "x"],
                      ["Cardinals", "y"], ["Cubs", "z"], ["AB", "w"], ["ABC", "v"],
                      ["The Netherlands", "u"]])
    # a cell equal to the gold wins over cells that only contain it
    assert view.gold_columns(("italy",)) == (0,)
    assert view.gold_columns(("italy national",)) == (1,)
    # a name inside the gold ("Cardinals" of "St. Louis Cardinals") is no other candidate
    others = view.other_names((0,), ("st louis cardinals",))
    assert "cardinals" not in others and "cubs" in others
    # candidates have three letters or more
    found = view.gold(("italy",), frozenset({"the"}))
    assert "abc" in found.candidates and "ab" not in found.candidates
    # "the" is not part of a name when comparing the asked words with a column's names
    assert view.same_column(frozenset({"netherlands"}), "france")
    # the Arabic conjunction is the only prefix dropped when looking a name up
    assert found.named_in(["xcubs"]) == [] and found.named_in(["cubs"]) == ["cubs"]
    assert found.named_in(["وcubs"]) == ["cubs"]
