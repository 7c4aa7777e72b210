"""Machine-checkable insights: a small JSON claim language, executed over a table's rows.

A model asked for insights may emit, beside each sentence, a claim such as

    {"op": "count", "filter": {"Nation": "Chile"}, "value": 2}
    {"op": "superlative", "column": "Points", "arg": "max", "key": "Team", "value": "Arsenal"}
    {"op": "ordinal", "column": "Points", "arg": "max", "rank": 2, "key": "Team", "value": "Chelsea"}
    {"op": "aggregation", "agg": "mean", "column": "Age", "filter": [...], "value": 24.3}
    {"op": "comparative", "column": "Points", "key": "Team", "a": "Arsenal", "b": "Chelsea", "relation": ">"}
                                                               (or "value": the difference a - b)
    {"op": "simple", "column": "Country", "filter": {"Player": "X"}, "value": "Spain"}
    {"op": "all", "column": "Date", "value": "5 May"}            (every filtered row has it; or "relation")
    {"op": "unique", "column": "Country", "value": 4}            (number of distinct values, or the set)
    {"op": "negation", "filter": {"Team": "A", "Opponent": "B"}} (no row matches)

A filter is either {column: value, ...} (equality) or a list of {"column", "op", "value"} with op one of
==, !=, >, >=, <, <=, contains. Cells and claimed values are read by the shared reader
(`livetab.numbers.first_decimal`, with the table's language: "3,5" is 3.5 on a German page). Numbers are
compared to the claim's own precision ("24.3" accepts 24.26–24.35), texts after case, space and
punctuation normalisation; a claimed value is compared as a number only when it is one as a whole ("3:45"
or "1–0" is a text, so "3:16" and "1–1" do not match it). Execution yields supported, refuted, or invalid
(the claim cannot be run on this table: unknown column, bad op, no rows).

Written beside a sentence, a claim is tagged: `The total is 12. <claim>{"op": ...}</claim>` (`tagged`,
read back by `CLAIM_TAG`); a model may instead write JSON objects {"insight": ..., "claim": {...}}.
"""

from __future__ import annotations

import json
import logging
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from livetab.numbers import first_decimal, normalise_digits, read_decimal
from livetab.tables import Table

__all__ = ["CLAIM_OPS", "CLAIM_TAG", "INVALID", "REFUTED", "SUPPORTED", "ClaimError", "ClaimResult", "execute_claim",
           "tagged"]

log = logging.getLogger(__name__)

CLAIM_OPS = ("count", "superlative", "ordinal", "aggregation", "comparative", "simple", "all", "unique",
             "negation")
SUPPORTED = "supported"
REFUTED = "refuted"
INVALID = "invalid"
CLAIM_TAG = re.compile(r"<claim>(.*?)</claim>", re.S | re.I)


def tagged(sentence: str, claim: dict[str, Any]) -> str:
    """One line: the sentence, then its claim in a <claim> tag (what `CLAIM_TAG` reads back)."""
    return f"{sentence} <claim>{json.dumps(claim, ensure_ascii=False)}</claim>"


class ClaimError(ValueError):
    """The claim is malformed or does not fit the table."""


@dataclass(frozen=True)
class ClaimResult:
    status: str  # supported, refuted, invalid
    computed: str
    detail: str


def _norm_text(s: object) -> str:
    t = normalise_digits(unicodedata.normalize("NFKC", str(s)).casefold())
    t = re.sub(r"[\"'`“”‘’«»()\[\]{}.,;:!?]", " ", t)
    return " ".join(t.split())


def _num_equal(actual: Decimal, claimed: object, language: str) -> bool:
    c = first_decimal(claimed, language)
    if c is None:
        return False
    exp = c.as_tuple().exponent
    decimals = -exp if isinstance(exp, int) and exp < 0 else 0
    tol = max(Decimal("0.5") * Decimal(10) ** -decimals, Decimal("0.005"))
    return abs(actual - c) <= tol if decimals else abs(actual - c) < Decimal("0.5")


def _is_number(claimed: object, language: str) -> bool:
    """The claimed value is a number as a whole (12, "1,234.5", "12 km"), not a text that mentions one."""
    if isinstance(claimed, bool):
        return False
    if isinstance(claimed, int | float):
        return True
    text = str(claimed)
    return read_decimal(text, language, units=True) is not None or read_decimal(text, "en", units=True) is not None


def _value_equal(cell: str, claimed: object, language: str) -> bool:
    """Text equality after normalisation, or, for a claimed value that is a number, numeric equality."""
    if _norm_text(cell) == _norm_text(claimed):
        return True
    if re.search(r"[^\W\d_]", str(claimed)) or not _is_number(claimed, language):
        return False
    a = first_decimal(cell, language)
    return a is not None and _num_equal(a, claimed, language)


class _View:
    def __init__(self, table: Table) -> None:
        self.columns = table.columns
        self.language = table.language or "en"
        self.rows = [r + [""] * (len(self.columns) - len(r)) for r in table.rows]
        self._norm = [_norm_text(c) for c in self.columns]

    def col(self, name: object) -> int:
        if not isinstance(name, str) or not name.strip():
            raise ClaimError(f"column must be a non-empty string, got {name!r}")
        if name in self.columns:
            return self.columns.index(name)
        n = _norm_text(name)
        if n in self._norm:
            return self._norm.index(n)
        hits = [i for i, c in enumerate(self._norm) if n and (n in c or c in n) and c]
        if len(hits) == 1:
            return hits[0]
        raise ClaimError(f"no column {name!r} (columns: {', '.join(self.columns)})")


_CMP: dict[str, Callable[[Decimal, Decimal], bool]] = {
    ">": lambda a, b: a > b, ">=": lambda a, b: a >= b, "<": lambda a, b: a < b, "<=": lambda a, b: a <= b,
}


def _condition(view: _View, cond: dict[str, Any]) -> Callable[[list[str]], bool]:
    idx = view.col(cond.get("column"))
    op = str(cond.get("op", "=="))
    value = cond.get("value")
    if op in ("==", "="):
        return lambda r: _value_equal(r[idx], value, view.language)
    if op == "!=":
        return lambda r: not _value_equal(r[idx], value, view.language)
    if op == "contains":
        needle = _norm_text(value)
        return lambda r: needle in _norm_text(r[idx])
    if op in _CMP:
        target = first_decimal(value, view.language)
        if target is None:
            raise ClaimError(f"filter {op} needs a number, got {value!r}")
        cmp = _CMP[op]

        def test(r: list[str]) -> bool:
            v = first_decimal(r[idx], view.language)
            return v is not None and cmp(v, target)
        return test
    raise ClaimError(f"unknown filter op {op!r}")


def _filtered(view: _View, flt: object) -> list[list[str]]:
    if flt in (None, {}, []):
        return view.rows
    if isinstance(flt, dict):
        conds = [{"column": k, "op": "==", "value": v} for k, v in flt.items()]
    elif isinstance(flt, list) and all(isinstance(c, dict) for c in flt):
        conds = list(flt)
    else:
        raise ClaimError(f"filter must be an object or a list of conditions, got {flt!r}")
    tests = [_condition(view, c) for c in conds]
    return [r for r in view.rows if all(t(r) for t in tests)]


def _numbers(rows: list[list[str]], idx: int, language: str) -> list[tuple[Decimal, list[str]]]:
    out = [(first_decimal(r[idx], language), r) for r in rows]
    return [(v, r) for v, r in out if v is not None]


def _ranked(view: _View, claim: dict[str, Any], rows: list[list[str]]) -> tuple[list[tuple[Decimal, list[str]]], int]:
    idx = view.col(claim.get("column"))
    nums = _numbers(rows, idx, view.language)
    if not nums:
        raise ClaimError(f"column {claim.get('column')!r} has no numbers in the selected rows")
    arg = str(claim.get("arg", "max")).lower()
    if arg not in ("max", "min"):
        raise ClaimError(f"arg must be max or min, got {arg!r}")
    nums.sort(key=lambda t: t[0], reverse=arg == "max")
    return nums, view.col(claim["key"]) if claim.get("key") else idx


def _rank_check(view: _View, claim: dict[str, Any], rows: list[list[str]], rank: int) -> ClaimResult:
    nums, key = _ranked(view, claim, rows)
    distinct = sorted({v for v, _ in nums}, reverse=str(claim.get("arg", "max")).lower() == "max")
    if rank < 1 or rank > len(distinct):
        raise ClaimError(f"rank {rank} outside 1..{len(distinct)}")
    at_rank = [r for v, r in nums if v == distinct[rank - 1]]
    names = [r[key] for r in at_rank]
    ok = any(_value_equal(n, claim.get("value"), view.language) for n in names)
    return ClaimResult(SUPPORTED if ok else REFUTED, "; ".join(names), f"rank {rank} by {claim.get('column')}")


def _aggregate(view: _View, claim: dict[str, Any], rows: list[list[str]]) -> ClaimResult:
    idx = view.col(claim.get("column"))
    vals = [v for v, _ in _numbers(rows, idx, view.language)]
    agg = str(claim.get("agg", "sum")).lower()
    if not vals:
        raise ClaimError(f"no numbers to aggregate in {claim.get('column')!r}")
    if agg == "sum":
        got = sum(vals, Decimal(0))
    elif agg in ("mean", "avg", "average"):
        got = sum(vals, Decimal(0)) / len(vals)
    elif agg in ("min", "max"):
        got = min(vals) if agg == "min" else max(vals)
    else:
        raise ClaimError(f"unknown aggregation {agg!r}")
    ok = _num_equal(got, claim.get("value"), view.language)
    return ClaimResult(SUPPORTED if ok else REFUTED, f"{got:f}", f"{agg} of {len(vals)} values")


def _compare(view: _View, claim: dict[str, Any]) -> ClaimResult:
    idx = view.col(claim.get("column"))
    key = view.col(claim.get("key"))

    def value_of(name: object) -> Decimal:
        hits = [first_decimal(r[idx], view.language) for r in view.rows if _value_equal(r[key], name, view.language)]
        nums = [h for h in hits if h is not None]
        if len(nums) != 1:
            raise ClaimError(f"{name!r} matches {len(nums)} rows with a number")
        return nums[0]

    a, b = value_of(claim.get("a")), value_of(claim.get("b"))
    rel = str(claim.get("relation", ">" if "value" not in claim else ""))
    if rel in ("=", "=="):
        ok = a == b
    elif rel in _CMP:
        ok = _CMP[rel](a, b)
    elif rel:
        raise ClaimError(f"unknown relation {rel!r}")
    else:
        ok = True
    if "value" in claim:  # a claimed difference a - b
        ok = ok and _num_equal(a - b, claim["value"], view.language)
    return ClaimResult(SUPPORTED if ok else REFUTED, f"{a:f} vs {b:f} (a - b = {a - b:f})", f"a {rel or '-'} b")


def _run(view: _View, claim: dict[str, Any]) -> ClaimResult:
    op = claim.get("op")
    rows = _filtered(view, claim.get("filter"))
    if op == "count":
        n = len(rows)
        return ClaimResult(SUPPORTED if _num_equal(Decimal(n), claim.get("value"), view.language) else REFUTED, str(n), "rows matching")
    if op == "negation":
        return ClaimResult(SUPPORTED if not rows else REFUTED, str(len(rows)), "rows matching (claimed none)")
    if op == "superlative":
        return _rank_check(view, claim, rows, 1)
    if op == "ordinal":
        try:
            rank = int(claim.get("rank", 1))
        except (TypeError, ValueError):
            raise ClaimError(f"rank must be an integer, got {claim.get('rank')!r}") from None
        return _rank_check(view, claim, rows, rank)
    if op == "aggregation":
        return _aggregate(view, claim, rows)
    if op == "comparative":
        return _compare(view, claim)
    if not rows:
        raise ClaimError("the filter selects no rows")
    idx = view.col(claim.get("column"))
    cells = [r[idx] for r in rows]
    if op == "simple":
        ok = any(_value_equal(c, claim.get("value"), view.language) for c in cells)
        return ClaimResult(SUPPORTED if ok else REFUTED, "; ".join(cells), f"{len(cells)} matching rows")
    if op == "all":
        rel = claim.get("relation")
        if rel:
            cond = _condition(view, {"column": claim["column"], "op": rel, "value": claim.get("value")})
            ok = all(cond(r) for r in rows)
        else:
            ok = all(_value_equal(c, claim.get("value"), view.language) for c in cells)
        return ClaimResult(SUPPORTED if ok else REFUTED, "; ".join(cells), f"{len(cells)} rows")
    if op == "unique":
        distinct = sorted({_norm_text(c) for c in cells if _norm_text(c)})
        value = claim.get("value")
        if isinstance(value, list):
            ok = distinct == sorted({_norm_text(v) for v in value})
        else:
            ok = _num_equal(Decimal(len(distinct)), value, view.language)
        return ClaimResult(SUPPORTED if ok else REFUTED, f"{len(distinct)}: {', '.join(distinct)}", "distinct values")
    raise ClaimError(f"unknown op {op!r}; one of {', '.join(CLAIM_OPS)}")


def execute_claim(table: Table, claim: object) -> ClaimResult:
    """Run one claim over the table's body rows; a claim that cannot run is `invalid`, with the reason."""
    if not isinstance(claim, dict):
        return ClaimResult(INVALID, "", f"a claim must be a JSON object, got {type(claim).__name__}")
    try:
        return _run(_View(table), claim)
    except ClaimError as e:
        return ClaimResult(INVALID, "", str(e))
    except (KeyError, TypeError) as e:
        return ClaimResult(INVALID, "", f"malformed claim: {e!r}")

