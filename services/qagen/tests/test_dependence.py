"""The table-dependence check rejects answers that do not come from the cells they claim to read."""

from __future__ import annotations

import random

from livetab_qagen.derive import execute, reads, render
from livetab_qagen.frame import Frame
from livetab_qagen.verify import dependence
from realtables import tabfact_tables, wtq_tables


def _frame() -> Frame:
    return Frame(wtq_tables(1)[0])


def _lookup(frame: Frame) -> dict[str, object]:
    return {"op": "cell", "key": frame.names.index("Club"), "kv": "Bath", "col": frame.names.index("Points"), "as": "num"}


def test_real_lookup_depends_on_its_cell_only() -> None:
    frame = _frame()
    spec = _lookup(frame)
    code = render(spec, frame)
    result = dependence(spec, code, frame, execute(code, frame.dataframe()), rng=random.Random(1))
    assert result.ok, result.detail
    evidence, footprint = reads(spec, frame)
    assert len(evidence) == 2 and footprint == {spec["key"], spec["col"]}


def test_world_knowledge_answer_is_rejected() -> None:
    """A 'derivation' that ignores the table (a remembered constant) fails: its cells never matter."""
    frame = _frame()
    spec = _lookup(frame)
    remembered = "float(63)"
    result = dependence(spec, remembered, frame, 63.0, rng=random.Random(1))
    assert not result.ok and "does not depend" in result.detail


def test_undeclared_reads_are_rejected() -> None:
    """A derivation that secretly also reads another column fails the unread-cell half of the check."""
    frame = _frame()
    spec = {"op": "agg", "fn": "sum", "col": frame.names.index("Won"), "as": "num"}
    sneaky = "float(num(df['Won']).sum()) + float(num(df['Lost']).sum()) * 0 + float(num(df.drop(columns=['Won']).stack()).sum()) * 0 + len(''.join(df.drop(columns=['Won']).stack()))"
    base = execute(sneaky, frame.dataframe())
    result = dependence(spec, sneaky, frame, base, rng=random.Random(2), max_unread=6)
    assert not result.ok and "does not declare" in result.detail


def test_false_statement_still_depends_on_the_table() -> None:
    """A false count statement flips to true when one row changes; the check finds that row."""
    frame = Frame(tabfact_tables(1)[0])
    k = {"col": frame.names.index("us viewers (million)"), "cmp": ">", "val": 3.0, "as": "num"}
    count = {"op": "count", "where": [k]}
    n = execute(render(count, frame), frame.dataframe())
    for wrong in (n - 1, n + 1):
        spec = {"op": "eq", "a": count, "b": wrong}
        code = render(spec, frame)
        result = dependence(spec, code, frame, execute(code, frame.dataframe()), rng=random.Random(3), max_evidence=3)
        assert result.ok, result.detail


def test_constant_statement_is_rejected() -> None:
    frame = _frame()
    spec = {"op": "eq", "a": _lookup(frame), "b": 63.0}
    result = dependence(spec, "True", frame, True, rng=random.Random(4))
    assert not result.ok
