"""The shared number parser, the date parser and the independent recomputation, on real cells."""

from __future__ import annotations

import math

import pytest
from livetab.numbers import format_number, parse_number
from livetab_qagen.derive import execute, render
from livetab_qagen.frame import Frame, parse_date
from livetab_qagen.verify import recompute, recompute_agrees
from realtables import arabic_tables, tabfact_tables, wtq_tables


@pytest.mark.parametrize(("text", "value"), [
    ("1,234", 1234.0), ("12,345,678.5", 12345678.5), ("٣٤٥", 345.0), ("١٢٫٥", 12.5), ("٢٬٥٠٠", 2500.0),
    ("45%", 45.0), ("٪٤٥", None), ("45 %", 45.0), ("−3", -3.0), ("87[1]", 87.0), ("12*", 12.0), ("1 234", 1234.0),
    ("3.63", 3.63), (" 22 ", 22.0), ("", None), ("N/A", None), ("1-2", None), ("12 (3)", None), ("1,23", None),
    ("2004–05", None), ("۱۲", 12.0), (7, 7.0), (float("nan"), None),
])
def test_parse_number(text: object, value: float | None) -> None:
    assert parse_number(text) == value


def test_format_number_digits() -> None:
    assert format_number(2.5, digits="arabic_indic") == "٢٫٥"
    assert format_number(3.0) == "3" and format_number(2.456, decimals=2) == "2.46"
    assert parse_number(format_number(1234.75, digits="arabic_indic")) == 1234.75


@pytest.mark.parametrize(("text", "ok"), [
    ("march 4 , 2012", True), ("March 4, 2012", True), ("4 March 2012", True), ("2012-03-04", True),
    ("4 مارس 2012", True), ("2004", False), ("march 2012", False), ("february 30 , 2012", False),
])
def test_parse_date(text: str, ok: bool) -> None:
    assert (parse_date(text) is not None) is ok
    if ok:
        assert parse_date(text) == parse_date("2012-03-04") or text.startswith("february")


def test_tabfact_dates_and_day_spans() -> None:
    table = next(t for t in tabfact_tables() if "original air date" in t.header[0])
    frame = Frame(table)
    c = frame.names.index("original air date")
    assert frame.kinds[c] == "date"
    key = frame.key_column
    assert key is not None
    a = {"op": "cell", "key": key, "kv": frame.grid[0][key], "col": c, "as": "date"}
    b = {"op": "cell", "key": key, "kv": frame.grid[3][key], "col": c, "as": "date"}
    spec = {"op": "sub", "a": b, "b": a}
    days = execute(render(spec, frame), frame.dataframe())
    assert days == recompute(spec, table) == 14.0  # march 4, 2012 -> march 18, 2012


def test_column_kinds_on_real_tables() -> None:
    wtq = Frame(wtq_tables(1)[0])
    assert wtq.kinds[wtq.names.index("Points")] == "number"
    assert wtq.names[wtq.key_column or 0] == "Club"
    assert wtq.is_index(0)  # the unnamed running-number column
    arabic = Frame(arabic_tables(1)[0])
    assert arabic.group_rows  # region sub-headings with no values
    assert arabic.kinds[1] == "number"


def test_recompute_is_independent_of_the_derivation() -> None:
    table = wtq_tables(1)[0]
    frame = Frame(table)
    spec = {"op": "agg", "fn": "sum", "col": frame.names.index("Points"), "as": "num", "round": 0}
    derived = execute(render(spec, frame), frame.dataframe())
    assert recompute_agrees(spec, table, derived)[0]
    agrees, detail = recompute_agrees(spec, table, derived + 1)
    assert not agrees and "recomputation gave" in detail
    # a derivation that quietly reads the wrong column disagrees with the recomputation
    wrong = execute(render({**spec, "col": frame.names.index("Won")}, frame), frame.dataframe())
    assert not recompute_agrees(spec, table, wrong)[0]


def test_recompute_reports_missing_rows() -> None:
    table = wtq_tables(1)[0]
    spec = {"op": "cell", "key": 1, "kv": "No Such Club", "col": 2, "as": "num"}
    agrees, detail = recompute_agrees(spec, table, 22.0)
    assert not agrees and "LookupError" in detail


def test_recompute_nan_never_agrees() -> None:
    table = arabic_tables(1)[0]
    frame = Frame(table)
    group = min(frame.group_rows)
    spec = {"op": "cell", "key": 0, "kv": frame.grid[group][0], "col": 1, "as": "num"}
    assert math.isnan(recompute(spec, table))
    assert not recompute_agrees(spec, table, math.nan)[0]
