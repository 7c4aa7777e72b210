"""Executable claims for the insight family's statements: a fact statement's spec (see `derive`) written in
the claim language the insight judge executes (`livetab.claims`), and checked over the table.

A reference insight is kept with its claim only when the claim, run by that independent executor over the
table, is *supported*, and its false twin's claim is *refuted*: the spec's pandas derivation and the claim
executor read the table separately and must agree. Statements the claim language cannot state (a count
over dates) or on which the two readers disagree get no claim.
"""

from __future__ import annotations

from typing import Any

from livetab.claims import REFUTED, SUPPORTED, execute_claim
from livetab.tables import Table

from livetab_qagen.derive import Spec
from livetab_qagen.frame import Frame

__all__ = ["claim_of", "verified"]

Claim = dict[str, Any]


def _value(v: Any) -> Any:
    """A constant as the claim states it: integral floats as integers, texts as they are."""
    if isinstance(v, float) and v.is_integer():
        return int(v)
    return v


def _filter(frame: Frame, where: list[Spec]) -> list[Claim] | None:
    conds = []
    for k in where:
        if k.get("as") == "date":
            return None  # the claim language compares numbers and texts, not dates
        conds.append({"column": frame.names[k["col"]], "op": k["cmp"], "value": _value(k["val"])})
    return conds


def claim_of(spec: Spec, frame: Frame) -> Claim | None:
    """The claim that states the fact statement `spec` (a boolean spec of `families.fact`), or None when the
    claim language cannot state it."""
    n = frame.names
    op = spec["op"]
    if op == "not" and spec["a"]["op"] == "eq" and spec["a"]["a"]["op"] == "cell":
        cell, wrong = spec["a"]["a"], spec["a"]["b"]
        return {"op": "negation", "filter": {n[cell["key"]]: cell["kv"], n[cell["col"]]: _value(wrong)}}
    if op == "gt" and spec["a"]["op"] == spec["b"]["op"] == "cell":
        a, b = spec["a"], spec["b"]
        if a["col"] != b["col"] or a["key"] != b["key"]:
            return None
        return {"op": "comparative", "column": n[a["col"]], "key": n[a["key"]], "a": a["kv"], "b": b["kv"],
                "relation": ">"}
    if op == "all":
        where = spec["where"]
        if len(where) != 1 or where[0].get("as") == "date":
            return None
        k = where[0]
        return {"op": "all", "column": n[k["col"]], "relation": k["cmp"], "value": _value(k["val"])}
    if op != "eq":
        return None
    inner, value = spec["a"], _value(spec["b"])
    kind = inner["op"]
    if kind == "cell":
        return {"op": "simple", "column": n[inner["col"]], "filter": {n[inner["key"]]: inner["kv"]}, "value": value}
    if kind == "count":
        conds = _filter(frame, inner["where"])
        return None if conds is None else {"op": "count", "filter": conds, "value": value}
    if kind == "agg" and inner.get("as") == "num":
        return {"op": "aggregation", "agg": inner["fn"], "column": n[inner["col"]], "value": value}
    if kind == "arg" and inner.get("as") == "num":
        return {"op": "superlative", "column": n[inner["col"]], "arg": inner["fn"], "key": n[inner["key"]],
                "value": value}
    if kind == "nth" and inner.get("as") == "num":
        return {"op": "ordinal", "column": n[inner["col"]], "arg": "max" if inner["desc"] else "min",
                "rank": inner["n"], "key": n[inner["key"]], "value": value}
    if kind == "nunique":
        return {"op": "unique", "column": n[inner["col"]], "value": value}
    return None


def verified(table: Table, claim: Claim | None, want: str = SUPPORTED) -> bool:
    """The claim runs over the table and comes out `want` (supported for a true statement, refuted for a
    false one)."""
    if claim is None:
        return False
    assert want in (SUPPORTED, REFUTED)
    return execute_claim(table, claim).status == want
