"""How the dependence check searches: which values it tries in a cell, the values that would make a
numeric statement come true, and what it reports. On the 2011-12 Premiership table (see test_derive_ops)."""

from __future__ import annotations

import random

from livetab.numbers import format_number
from livetab_qagen.derive import execute, render
from livetab_qagen.frame import Frame
from livetab_qagen.verify import FRESH, _delta_hints, _perturbations, _safe, dependence
from realtables import tabfact_tables, wtq_tables

F = Frame(wtq_tables(1)[0])
CLUB, WON, POINTS = F.names.index("Club"), F.names.index("Won"), F.names.index("Points")
BATH = 4  # Won 14, Points 67


def test_a_number_is_tried_one_up_one_down_at_the_extremes_and_empty() -> None:
    tried = _perturbations(F, BATH, WON, ["15"])
    assert tried[:6] == [FRESH, "15", "13", "99999999", "-99999999", "0"]  # "15" (x + 1) also a hint: once
    assert tried[-1] == "" and "14" not in tried  # never the value the cell has
    assert tried[6:-1] == ["19", "16"]  # then other values of the column (three at most, its own left out)
    assert len(_perturbations(F, 0, WON, [])) == 6 + 3 + 1
    assert "19" not in _perturbations(F, 0, WON, [])  # Saracens' 19 is the column's first value: still not tried


def test_a_text_cell_is_tried_with_other_names_and_the_hints() -> None:
    tried = _perturbations(F, BATH, CLUB, ["Leeds"])
    assert tried == [FRESH, "Leeds", "Saracens (RU)", "Northampton Saints (CH)", "Leicester Tigers (SF)", ""]


def test_a_date_is_tried_far_before_and_far_after() -> None:
    air = Frame(next(t for t in tabfact_tables() if t.source.uri == "data:tabfact/1-11111116-7.html.csv"))
    c = air.names.index("original air date")
    tried = _perturbations(air, 5, c, [])
    assert tried[1:3] == ["January 1, 1901", "December 31, 2199"] and tried[0] == FRESH


def test_hints_make_a_numeric_statement_come_true() -> None:
    won = {"op": "cell", "key": CLUB, "kv": "Bath", "col": WON, "as": "num"}
    statement = {"op": "eq", "a": won, "b": 17}  # false: Bath won 14
    hints = _delta_hints(statement, F, 14.0)
    assert hints == {(BATH, WON): ["17", format_number(14 + 3 * 12)]}  # 14 + (17 - 14); and times the rows
    assert _delta_hints({"op": "not", "a": statement}, F, 14.0) == hints
    assert _delta_hints({"op": "eq", "a": won, "b": "x"}, F, 14.0) == {}
    assert _delta_hints({"op": "gt", "a": won, "b": won}, F, 14.0) == {}
    assert _delta_hints(statement, F, "14") == {}  # the probed value is no number


def test_a_failing_derivation_is_a_value_of_its_own() -> None:
    assert _safe("df['No such column']", F.dataframe()) == ("error", "KeyError")
    assert _safe("1 / 0", F.dataframe()) == ("error", "ZeroDivisionError")


def test_what_the_check_reports() -> None:
    spec = {"op": "agg", "fn": "sum", "col": WON, "as": "num"}
    code = render(spec, F)
    r = dependence(spec, code, F, execute(code, F.dataframe()), rng=random.Random(0))
    assert r.ok and (r.evidence_checked, r.unread_checked) == (8, 2)  # 12 cells read: 8 tried; 2 unread cells
    assert r.detail == "8 read cells change the answer; 2 unread cells do not"
    r = dependence(spec, code, F, execute(code, F.dataframe()), rng=random.Random(0), max_evidence=12, max_unread=5)
    assert (r.evidence_checked, r.unread_checked) == (12, 5)

    nobody = {"op": "which", "fn": "max", "key": CLUB, "col": WON, "kvs": ["Leeds Carnegie"], "as": "num"}
    r = dependence(nobody, render(nobody, F), F, None, rng=random.Random(0))
    assert (r.ok, r.detail, r.evidence_checked, r.unread_checked) == (
        False, "the derivation declares no cells it depends on", 0, 0)


def test_a_false_statement_about_a_number_is_caught_moving() -> None:
    """Bath won 14, not 17: only a value that makes the statement true shows the check that it depends on
    the cell; the hint 14 + (17 - 14) is that value."""
    won = {"op": "cell", "key": CLUB, "kv": "Bath", "col": WON, "as": "num"}
    for statement in ({"op": "eq", "a": won, "b": 17}, {"op": "not", "a": {"op": "eq", "a": won, "b": 14}}):
        code = render(statement, F)
        r = dependence(statement, code, F, execute(code, F.dataframe()), rng=random.Random(0))
        assert r.ok, r.detail


def test_the_reasons_it_gives_for_rejecting() -> None:
    lookup = {"op": "cell", "key": CLUB, "kv": "Bath", "col": POINTS, "as": "num"}
    # a remembered constant: the first cell it claims to read (Bath's name) never moves it
    r = dependence(lookup, "float(67)", F, 67.0, rng=random.Random(1))
    assert (r.ok, r.evidence_checked, r.unread_checked) == (False, 2, 0)
    assert r.detail == "answer does not depend on the cell it reads at row 4, column 'Club' (world knowledge or a constant answer)"
    # a statement whose value moves with the table but whose truth never does
    r = dependence({"op": "eq", "a": lookup, "b": 67}, "True", F, True, rng=random.Random(1))
    assert (r.ok, r.evidence_checked, r.unread_checked) == (False, 2, 0)
    assert r.detail == "no change to a cell the statement reads changes its truth"
    # an answer that also moves with a column it does not declare
    sneaky = render(lookup, F) + " + float(df['Won'].str.len().sum() > 20)"  # Won's digits: 18 in all
    r = dependence(lookup, sneaky, F, execute(sneaky, F.dataframe()), rng=random.Random(1), max_unread=500)
    assert not r.ok and r.detail.startswith("answer changes with a cell it does not declare (row ")
    assert r.detail.endswith("column 'Won')") and (r.evidence_checked, r.unread_checked) == (2, 12 * 12)
