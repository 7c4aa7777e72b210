"""Every derivation op on one real table, worked out by hand: the rendered pandas expression and the
independent plain-Python recomputation must both give the hand value, and `reads` must declare exactly
the cells the answer depends on. The table: 2011-12 English Premiership rugby (WikiTableQuestions
201-csv/26), twelve clubs; Won = 19 16 15 15 14 12 9 9 8 7 3 2 (sum 129), Points = 87 78 74 67 67 57 49
45 44 36 22 16, Drawn is "2" for rows 2, 3 and 5 and "0" elsewhere, Played is 22 everywhere."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import pytest
from livetab.tables import Source, Table
from livetab_qagen.derive import (
    Spec,
    cond_holds,
    constants,
    execute,
    normalise_value,
    probe,
    ranked_rows,
    reads,
    render,
    values_equal,
)
from livetab_qagen.frame import Frame, parse_date
from livetab_qagen.verify import recompute, recompute_agrees, tolerance
from realtables import tabfact_tables, wtq_tables

TABLE = wtq_tables(1)[0]
F = Frame(TABLE)
C = {name: i for i, name in enumerate(F.names)}
CLUB, PLAYED, WON, DRAWN, POINTS, DIFF = C["Club"], C["Played"], C["Won"], C["Drawn"], C["Points"], C["Points Difference"]
ROW = {F.grid[r][CLUB]: r for r in range(F.n_rows)}
ALL = set(range(F.n_rows))


def both(spec: Spec, table: Table = TABLE) -> Any:
    """The answer by the derivation and by the recomputation; they must agree."""
    frame = F if table is TABLE else Frame(table)
    derived = execute(render(spec, frame), frame.dataframe())
    again = recompute(spec, table)
    assert values_equal(derived, again, tolerance(spec)), (derived, again)
    return derived


def cell(club: str, col: int, as_: str = "num") -> Spec:
    return {"op": "cell", "key": CLUB, "kv": club, "col": col, "as": as_}


def cond(col: int, cmp: str, val: Any, as_: str = "num") -> Spec:
    return {"col": col, "cmp": cmp, "val": val, "as": as_}


def test_the_table_is_the_one_described() -> None:
    assert TABLE.source.uri == "data:wtq/csv/201-csv/26.csv" and F.n_rows == 12
    assert [F.grid[r][WON] for r in range(12)] == ["19", "16", "15", "15", "14", "12", "9", "9", "8", "7", "3", "2"]


def test_cell() -> None:
    assert both(cell("Bath", POINTS)) == 67.0
    assert both(cell("Bath", C["Points For"], "text")) == "495"
    assert both({"op": "cell", "key": CLUB, "kv": "Bath", "col": DIFF}) == "107"  # no "as": the text
    assert both(cell("Gloucester", DIFF)) == -99.0
    evidence, footprint = reads(cell("Bath", POINTS), F)
    assert evidence == {(4, POINTS), (4, CLUB)} and footprint == {CLUB, POINTS}


def test_count_with_one_and_two_conditions() -> None:
    assert both({"op": "count", "where": [cond(WON, ">", 10)]}) == 6.0
    assert both({"op": "count", "where": [cond(WON, ">=", 15)]}) == 4.0
    assert both({"op": "count", "where": [cond(WON, "<", 9)]}) == 4.0
    assert both({"op": "count", "where": [cond(WON, "<=", 9)]}) == 6.0
    assert both({"op": "count", "where": [cond(DRAWN, "==", "2", "text")]}) == 3.0
    two = {"op": "count", "where": [cond(WON, ">", 10), cond(DRAWN, "==", "0", "text")]}
    assert both(two) == 3.0  # Saracens, Harlequins, Sale Sharks
    evidence, footprint = reads(two, F)
    won_ok = {r for r in ALL if int(F.grid[r][WON]) > 10}
    drawn_ok = {r for r in ALL if F.grid[r][DRAWN] == "0"}
    # a Won cell matters where the other condition holds, and the other way round
    assert evidence == {(r, WON) for r in drawn_ok} | {(r, DRAWN) for r in won_ok}
    assert footprint == {WON, DRAWN}
    assert reads({"op": "count", "where": [cond(WON, ">", 10)]}, F)[0] == {(r, WON) for r in ALL}


def test_aggregates() -> None:
    assert both({"op": "agg", "fn": "sum", "col": WON, "as": "num"}) == 129.0
    assert both({"op": "agg", "fn": "mean", "col": WON, "as": "num", "round": 2}) == 10.75
    assert both({"op": "agg", "fn": "mean", "col": POINTS, "as": "num", "round": 1}) == 53.5  # 642 / 12
    assert both({"op": "agg", "fn": "max", "col": DIFF, "as": "num"}) == 276.0
    assert both({"op": "agg", "fn": "min", "col": DIFF, "as": "num"}) == -263.0
    evidence, footprint = reads({"op": "agg", "fn": "sum", "col": WON, "as": "num"}, F)
    assert evidence == {(r, WON) for r in ALL} and footprint == {WON}


def test_arg_and_nth() -> None:
    assert both({"op": "arg", "fn": "max", "col": POINTS, "key": CLUB, "as": "num"}) == "Saracens (RU)"
    assert both({"op": "arg", "fn": "min", "col": POINTS, "key": CLUB, "as": "num"}) == "Worcester Warriors (R)"
    assert both({"op": "nth", "n": 2, "desc": True, "col": POINTS, "key": CLUB, "as": "num"}) == "Northampton Saints (CH)"
    assert both({"op": "nth", "n": 2, "desc": False, "col": POINTS, "key": CLUB, "as": "num"}) == "Newcastle Falcons"
    assert both({"op": "nth", "n": 3, "desc": False, "col": DIFF, "key": CLUB, "as": "num"}) == "London Irish"
    evidence, footprint = reads({"op": "arg", "fn": "min", "col": POINTS, "key": CLUB, "as": "num"}, F)
    assert evidence == {(r, POINTS) for r in ALL} | {(11, CLUB)} and footprint == {POINTS, CLUB}
    evidence, _ = reads({"op": "arg", "fn": "max", "col": POINTS, "key": CLUB, "as": "num"}, F)
    assert (0, CLUB) in evidence and (11, CLUB) not in evidence
    evidence, _ = reads({"op": "nth", "n": 2, "desc": False, "col": POINTS, "key": CLUB, "as": "num"}, F)
    assert (10, CLUB) in evidence and (11, CLUB) not in evidence


def test_ranked_rows_best_first_and_stable_on_ties() -> None:
    assert ranked_rows(F, POINTS, "num", desc=True)[:5] == [0, 1, 2, 3, 4]  # 67 and 67: row 3 before row 4
    assert ranked_rows(F, POINTS, "num", desc=False)[:3] == [11, 10, 9]
    assert ranked_rows(F, POINTS, "num", desc=False)[-2:] == [1, 0]
    assert ranked_rows(F, CLUB, "num", desc=True) == []  # no numbers in the column


def test_nunique_select_which() -> None:
    assert both({"op": "nunique", "col": DRAWN}) == 2.0
    assert both({"op": "nunique", "col": PLAYED}) == 1.0
    assert reads({"op": "nunique", "col": DRAWN}, F) == ({(r, DRAWN) for r in ALL}, {DRAWN})
    select = {"op": "select", "key": CLUB, "where": [cond(WON, ">", 14), cond(DRAWN, "==", "0", "text")]}
    assert both(select) == ["Harlequins (SF)", "Saracens (RU)"]
    evidence, footprint = reads(select, F)
    assert {(0, CLUB), (3, CLUB)} <= evidence and (1, CLUB) not in evidence and footprint == {WON, DRAWN, CLUB}
    which = {"op": "which", "fn": "max", "key": CLUB, "col": POINTS, "kvs": ["Bath", "Sale Sharks"], "as": "num"}
    assert both(which) == "Bath"
    assert both({**which, "fn": "min"}) == "Sale Sharks"
    assert both({**which, "kvs": ["Bath", "Harlequins (SF)"]}) == "Harlequins (SF)"  # 67 = 67: the first row
    assert reads(which, F) == ({(4, POINTS), (5, POINTS)}, {CLUB, POINTS})


def test_arithmetic_between_two_rows() -> None:
    a, b = cell("Bath", POINTS), cell("Sale Sharks", POINTS)
    assert both({"op": "sub", "a": a, "b": b}) == 10.0
    assert both({"op": "div", "a": a, "b": b, "round": 2}) == 1.18  # 67 / 57 = 1.1754
    assert both({"op": "pct", "a": a, "b": b, "round": 1}) == -14.9  # (57 - 67) / 67 * 100 = -14.925
    assert both({"op": "pct", "a": b, "b": a, "round": 1}) == 17.5  # (67 - 57) / 57 * 100 = 17.54
    assert both({"op": "div", "a": a, "b": b}) == pytest.approx(67 / 57, abs=1e-12)
    evidence, footprint = reads({"op": "sub", "a": a, "b": b}, F)
    assert evidence == {(4, POINTS), (4, CLUB), (5, POINTS), (5, CLUB)} and footprint == {CLUB, POINTS}


def test_statements() -> None:
    bath = cell("Bath", POINTS)
    assert both({"op": "eq", "a": bath, "b": 67}) is True
    assert both({"op": "eq", "a": bath, "b": 66.0}) is False
    assert both({"op": "eq", "a": cell("Bath", CLUB, "text"), "b": "Bath"}) is True
    assert both({"op": "gt", "a": bath, "b": cell("Sale Sharks", POINTS)}) is True
    assert both({"op": "gt", "a": cell("Sale Sharks", POINTS), "b": bath}) is False
    assert both({"op": "not", "a": {"op": "eq", "a": bath, "b": 67}}) is False
    assert both({"op": "all", "where": [cond(PLAYED, ">", 20)]}) is True
    assert both({"op": "all", "where": [cond(WON, ">", 2)]}) is False  # Worcester won 2
    assert reads({"op": "all", "where": [cond(WON, ">", 2)]}, F) == ({(r, WON) for r in ALL}, {WON})
    assert reads({"op": "not", "a": {"op": "eq", "a": bath, "b": 67}}, F) == reads(bath, F)
    assert both({"op": "list", "items": [bath, cell("Sale Sharks", WON)]}) == [67.0, 12.0]


def test_status_of_a_lookup() -> None:
    assert both({"op": "status", "key": CLUB, "kv": "Bath", "col": POINTS}) == "67"
    assert both({"op": "status", "key": CLUB, "kv": "Leeds Carnegie", "col": POINTS}) == "insufficient"
    # Drawn "2" names three rows with different Won: the lookup contradicts itself
    assert both({"op": "status", "key": DRAWN, "kv": "2", "col": WON}) == "contradictory"
    assert both({"op": "status", "key": PLAYED, "kv": "22", "col": PLAYED}) == "22"  # same value twice: one answer
    evidence, footprint = reads({"op": "status", "key": DRAWN, "kv": "2", "col": WON}, F)
    assert evidence == {(1, WON), (2, WON), (4, WON)} and footprint == {DRAWN, WON}  # no key cells


def test_an_all_statement_ignores_rows_without_a_value() -> None:
    rows = [list(r) for r in TABLE.rows]
    rows[11][WON] = ""  # Worcester's Won unknown: "all won more than 2" holds over the rows that say
    t = Table(id="gap", source=Source(kind="test"), header=TABLE.header, rows=rows)
    assert both({"op": "all", "where": [cond(WON, ">", 2)]}, t) is True
    assert both({"op": "agg", "fn": "sum", "col": WON, "as": "num"}, t) == 127.0
    assert both({"op": "nunique", "col": WON}, t) == 9.0  # 19 16 15 14 12 9 8 7 3; the blank is no value
    assert (11, WON) not in reads({"op": "agg", "fn": "sum", "col": WON, "as": "num"}, Frame(t))[0]


def test_unknown_ops_are_errors_everywhere() -> None:
    for fn in (lambda s: render(s, F), lambda s: reads(s, F), lambda s: recompute(s, TABLE)):
        with pytest.raises(ValueError, match="unknown spec op 'median'"):
            fn({"op": "median", "col": WON})


def test_probe_names_what_a_statement_is_about() -> None:
    bath, sale = cell("Bath", POINTS), cell("Sale Sharks", POINTS)
    count = {"op": "count", "where": [cond(WON, ">", 2)]}
    assert probe({"op": "eq", "a": bath, "b": 67}) == bath
    assert probe({"op": "gt", "a": bath, "b": sale}) == {"op": "list", "items": [bath, sale]}
    assert probe({"op": "not", "a": {"op": "eq", "a": bath, "b": 67}}) == bath
    assert probe({"op": "all", "where": count["where"]}) == count
    pair = {"op": "list", "items": [{"op": "eq", "a": bath, "b": 1}, {"op": "eq", "a": sale, "b": 2}]}
    assert probe(pair) == {"op": "list", "items": [bath, sale]}
    assert probe({"op": "list", "items": [{"op": "eq", "a": bath, "b": 1}, bath]}) is None
    assert probe(bath) is None and probe(count) is None


def test_constants_lists_every_compared_value() -> None:
    spec = {"op": "not", "a": {"op": "eq", "a": cell("Bath", POINTS), "b": 66}}
    assert constants(spec) == ["Bath", 66]
    select = {"op": "select", "key": CLUB, "where": [cond(WON, ">", 14), cond(DRAWN, "==", "0", "text")]}
    assert constants(select) == [14, "0"]
    which = {"op": "which", "fn": "max", "key": CLUB, "col": POINTS, "kvs": ["Bath", "Sale Sharks"], "as": "num"}
    assert constants(which) == ["Bath", "Sale Sharks"]
    assert constants({"op": "list", "items": [cell("Bath", WON), {"op": "eq", "a": cell("Exeter Chiefs", WON), "b": [1, 2]}]}) \
        == ["Bath", "Exeter Chiefs", 1, 2]
    assert constants({"op": "agg", "fn": "sum", "col": WON, "as": "num", "round": 0}) == []


@pytest.mark.parametrize(("a", "b", "equal"), [
    (True, True, True), (True, False, False), (True, 1.0, False), (1.0, True, False), (0.0, False, False),
    (1.0, 1.0 + 1e-10, True), (1.0, 1.0 + 1e-8, False), (1e15, 1e15 + 0.5, True), (float("nan"), float("nan"), False),
    (1.0, float("nan"), False), (float("nan"), 1.0, False), ([1.0, "a"], [1.0, "a"], True), ([1.0], [1.0, 2.0], False),
    ([1.0, 2.0], [1.0, 3.0], False), ("1", 1.0, False), ("a", "a", True), ("a", "b", False), (1.0, "1.0", False),
])
def test_values_equal(a: Any, b: Any, equal: bool) -> None:
    assert values_equal(a, b) is equal


def test_values_equal_within_a_tolerance() -> None:
    assert values_equal(1.18, 1.175, 0.0051) and not values_equal(1.18, 1.17, 0.0051)
    assert values_equal([1.18], [1.175], 0.0051)


def test_normalise_value_gives_plain_python() -> None:
    assert normalise_value(np.int64(3)) == 3.0 and isinstance(normalise_value(np.int64(3)), float)
    assert normalise_value(np.bool_(True)) is True
    assert normalise_value(np.float64(2.5)) == 2.5
    assert normalise_value(np.str_("x")) == "x"
    assert normalise_value(7) == 7.0 and isinstance(normalise_value(7), float)
    assert normalise_value(False) is False
    assert normalise_value(pd.Series([1, 2])) == [1.0, 2.0]
    assert normalise_value(pd.Index(["a"])) == ["a"]
    assert normalise_value((np.int64(1), "b")) == [1.0, "b"]
    assert normalise_value(None) is None


def test_cond_holds_per_comparison() -> None:
    bath = ROW["Bath"]  # Won 14
    assert cond_holds(F, bath, cond(WON, "==", 14.0))
    assert cond_holds(F, bath, cond(WON, ">", 13)) and not cond_holds(F, bath, cond(WON, ">", 14))
    assert cond_holds(F, bath, cond(WON, "<", 15)) and not cond_holds(F, bath, cond(WON, "<", 14))
    assert cond_holds(F, bath, cond(WON, ">=", 14)) and not cond_holds(F, bath, cond(WON, ">=", 15))
    assert cond_holds(F, bath, cond(WON, "<=", 14)) and not cond_holds(F, bath, cond(WON, "<=", 13))
    assert cond_holds(F, bath, cond(CLUB, "==", "Bath", "text")) and not cond_holds(F, bath, cond(CLUB, "==", "bath", "text"))
    assert not cond_holds(F, bath, cond(CLUB, ">", 0))  # no number in the cell: no condition holds


def test_recompute_agrees_explains_itself() -> None:
    spec = {"op": "agg", "fn": "mean", "col": WON, "as": "num", "round": 2}
    assert recompute_agrees(spec, TABLE, 10.75) == (True, "recomputed 10.75")
    assert recompute_agrees(spec, TABLE, 10.755)[0]  # within half a unit of the last kept place
    ok, detail = recompute_agrees(spec, TABLE, 10.8)
    assert not ok and detail == "derivation gave 10.8, recomputation gave 10.75"
    zero = {"op": "div", "a": cell("Bath", WON), "b": cell("Bath", C["Losing Bonus"]), "round": 2}
    rows = [list(r) for r in TABLE.rows]
    rows[4][C["Losing Bonus"]] = "0"
    t = Table(id="z", source=Source(kind="test"), header=TABLE.header, rows=rows)
    ok, detail = recompute_agrees(zero, t, math.inf)
    assert not ok and detail.startswith("recomputation failed: ZeroDivisionError")
    ok, detail = recompute_agrees({"op": "nth", "n": 20, "desc": True, "col": WON, "key": CLUB, "as": "num"}, TABLE, "x")
    assert not ok and detail.startswith("recomputation failed: IndexError")


def test_tolerance_is_half_a_unit_of_the_last_kept_place() -> None:
    assert tolerance({"round": 2}) == pytest.approx(0.0051)
    assert tolerance({"round": 0}) == pytest.approx(0.51)
    assert tolerance({}) == 1e-9


def test_recompute_reads_raw_rows_with_its_own_cleaning() -> None:
    rows = [list(r) for r in TABLE.rows]
    rows[4][CLUB] = "  Bath \n"  # what a scraped cell can look like
    rows[0] = rows[0][:5]  # a short row: the missing cells are empty
    t = Table(id="raw", source=Source(kind="test"), header=TABLE.header, rows=rows)
    assert recompute(cell("Bath", POINTS), t) == 67.0
    assert recompute({"op": "agg", "fn": "sum", "col": POINTS, "as": "num"}, t) == 642.0 - 87.0
    assert math.isnan(recompute({"op": "agg", "fn": "sum", "col": CLUB, "as": "num"}, t))
    assert math.isnan(recompute(cell("Bath", CLUB), t))  # a name is no number
    with pytest.raises(LookupError, match="no row with key 'Leeds'"):
        recompute(cell("Leeds", POINTS), t)


# Dates: Army Wives, season 6 (TabFact 1-11111116-7), 22 episodes aired from March 4 (twice) to August 26, 2012.
AIR = next(t for t in tabfact_tables() if t.source.uri == "data:tabfact/1-11111116-7.html.csv")
AF = Frame(AIR)
TITLE, AIRED = AF.names.index("title"), AF.names.index("original air date")
MAY_20 = parse_date("may 20 , 2012")


def test_conditions_ranks_and_superlatives_over_dates() -> None:
    after = {"col": AIRED, "cmp": ">", "val": MAY_20, "as": "date"}
    assert both({"op": "count", "where": [after]}, AIR) == 9.0  # June 24 ... August 26
    assert cond_holds(AF, 13, after) and not cond_holds(AF, 5, after)  # "fatal reaction" (June 24) / "viral"
    assert cond_holds(AF, 5, {**after, "cmp": "<"})
    assert both({"op": "arg", "fn": "max", "col": AIRED, "key": TITLE, "as": "date"}, AIR) == "domestic maneuvers"
    assert both({"op": "nth", "n": 2, "desc": True, "col": AIRED, "key": TITLE, "as": "date"}, AIR) == "handicap"
    which = {"op": "which", "fn": "max", "key": TITLE, "col": AIRED, "kvs": ["viral", "fallout"], "as": "date"}
    assert both(which, AIR) == "fallout"
    assert both({**which, "fn": "min"}, AIR) == "viral"
    assert ranked_rows(AF, AIRED, "date", desc=True)[:2] == [21, 20]
    assert ranked_rows(AF, AIRED, "date", desc=False)[:3] == [0, 1, 2]  # March 4 twice: the earlier row first
    backwards = Frame(Table(id="rev", source=AIR.source, header=AIR.header, rows=AIR.rows[::-1]))
    assert ranked_rows(backwards, AIRED, "date", desc=False)[:3] == [20, 21, 19]  # March 4, 4, 11
    assert reads({"op": "arg", "fn": "max", "col": AIRED, "key": TITLE, "as": "date"}, AF)[0] >= {(21, TITLE)}


def test_recompute_breaks_ties_by_row_order_and_rounds_exactly() -> None:
    # Harlequins (row 3) and Bath (row 4) both have 67 points: the earlier row ranks first
    assert recompute({"op": "nth", "n": 4, "desc": True, "col": POINTS, "key": CLUB, "as": "num"}, TABLE) == "Harlequins (SF)"
    assert recompute({"op": "nth", "n": 5, "desc": True, "col": POINTS, "key": CLUB, "as": "num"}, TABLE) == "Bath"
    a, b = cell("Bath", POINTS), cell("Sale Sharks", POINTS)
    assert recompute({"op": "div", "a": a, "b": b, "round": 2}, TABLE) == 1.18
    assert recompute({"op": "agg", "fn": "mean", "col": POINTS, "as": "num", "round": 0}, TABLE) == 54.0  # 53.5
    assert recompute({"op": "gt", "a": cell("Harlequins (SF)", POINTS), "b": a}, TABLE) is False  # 67 > 67
    # Drawn "2": Try Bonus 7, 7 and 4 -> two different values are already a contradiction
    assert recompute({"op": "status", "key": DRAWN, "kv": "2", "col": C["Try Bonus"]}, TABLE) == "contradictory"


def test_recompute_treats_missing_and_blank_cells_as_no_value() -> None:
    rows = [list(r) for r in TABLE.rows]
    rows[0] = rows[0][:5]  # Saracens' row ends after Drawn
    rows[11][WON] = ""
    t = Table(id="short", source=Source(kind="test"), header=TABLE.header, rows=rows)
    assert recompute({"op": "nunique", "col": POINTS}, t) == 10.0  # 87 is gone, 67 twice
    assert both({"op": "count", "where": [cond(WON, ">", 1)]}, t) == 11.0  # the blank Won is not > 1


def test_reads_of_composite_specs_are_the_union_of_their_parts() -> None:
    bath_points, sale_won = cell("Bath", POINTS), cell("Sale Sharks", WON)
    parts = reads(bath_points, F)[0] | reads(sale_won, F)[0]
    for op in ("sub", "div", "pct", "gt"):
        assert reads({"op": op, "a": bath_points, "b": sale_won}, F) == (parts, {CLUB, POINTS, WON}), op
    assert reads({"op": "list", "items": [bath_points, sale_won]}, F) == (parts, {CLUB, POINTS, WON})
    select = {"op": "select", "key": CLUB, "where": [cond(WON, ">", 14)]}
    assert reads(select, F)[0] == {(r, WON) for r in ALL} | {(r, CLUB) for r in (0, 1, 2, 3)}
    # a lookup by a key that several rows share: the value cells of all of them, the key cell of the first
    shared = {"op": "cell", "key": DRAWN, "kv": "2", "col": WON, "as": "num"}
    assert reads(shared, F)[0] == {(1, WON), (2, WON), (4, WON), (1, DRAWN)}


def test_the_rendered_derivation_rounds_itself() -> None:
    a, b = cell("Bath", POINTS), cell("Sale Sharks", POINTS)
    assert execute(render({"op": "div", "a": a, "b": b, "round": 2}, F), F.dataframe()) == 1.18
    assert execute(render({"op": "pct", "a": a, "b": b, "round": 1}, F), F.dataframe()) == -14.9
    mean = {"op": "agg", "fn": "mean", "col": C["Points For"], "as": "num", "round": 2}  # 5458 / 12 = 454.8333
    assert execute(render(mean, F), F.dataframe()) == 454.83 == recompute(mean, TABLE)


def test_a_derivation_runs_without_builtins() -> None:
    with pytest.raises(NameError):
        execute("__import__('os').getcwd()", F.dataframe())
    with pytest.raises(NameError):
        execute("open('/etc/hostname').read()", F.dataframe())
    assert execute("len(df)", F.dataframe()) == 12.0  # what NAMESPACE gives is there


def test_a_list_never_equals_a_single_value() -> None:
    assert values_equal([1.0], 1.0) is False and values_equal(1.0, [1.0]) is False


def test_ranks_of_zero_and_fractions() -> None:
    rows = [list(r) for r in TABLE.rows]
    rows[5][DIFF], rows[6][DIFF] = "0", "0.5"  # Sale Sharks 0, London Wasps 0.5
    frame = Frame(Table(id="z", source=Source(kind="test"), header=TABLE.header, rows=rows))
    ascending = ranked_rows(frame, DIFF, "num", desc=False)
    assert ascending.index(5) + 1 == ascending.index(6)  # 0 just before 0.5
    descending = ranked_rows(frame, DIFF, "num", desc=True)
    assert descending.index(6) + 1 == descending.index(5)
