"""The Z3 check: does the table version of a problem determine exactly one answer?

Given quantities are read from the table's cells (every row whose name matches contributes an
equality), the steps are asserted as equalities over the reals, divisors are asserted non-zero and
given quantities non-negative. Then: unsat means the table is *contradictory*; otherwise Z3's model
gives a goal value v, and asserting ``goal != v`` is checked again: unsat means the answer is
*unique*, sat means the table is *insufficient* (two models with different goal values exist).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from fractions import Fraction

import z3
from livetab.numbers import exact_number
from livetab.tables import Table

from livetab_qagen.math.formalise import BinOp, Const, Expr, Formalisation, Ref

__all__ = ["Z3Verdict", "check_table", "check_values", "read_cells"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Z3Verdict:
    status: str  # unique | insufficient | contradictory | unknown
    value: Fraction | None = None
    alternative: Fraction | None = None
    detail: str = ""
    smt: str = ""

    @property
    def gold_kind(self) -> str:
        return "number" if self.status == "unique" else self.status


def _to_z3(expr: Expr, env: dict[str, z3.ArithRef], divisors: list[z3.ArithRef]) -> z3.ArithRef:
    if isinstance(expr, Const):
        return z3.RealVal(f"{expr.value.numerator}/{expr.value.denominator}")
    if isinstance(expr, Ref):
        return env[expr.var]
    assert isinstance(expr, BinOp)
    a, b = _to_z3(expr.left, env, divisors), _to_z3(expr.right, env, divisors)
    if expr.op == "+":
        return a + b
    if expr.op == "-":
        return a - b
    if expr.op == "*":
        return a * b
    divisors.append(b)
    return a / b


def _as_fraction(v: z3.ExprRef) -> Fraction:
    if z3.is_rational_value(v):
        return Fraction(v.as_fraction())
    if z3.is_algebraic_value(v):  # irrational: approximate, never unique by construction here
        return Fraction(v.approx(20).as_fraction())
    raise ValueError(f"z3 value {v} is not a number")


def check_values(form: Formalisation, cells: dict[str, list[Fraction]], *, timeout_ms: int = 10_000) -> Z3Verdict:
    """Check the formalisation with each used quantity bound to the values found for it (none, one, many)."""
    solver = z3.Solver()
    solver.set("timeout", timeout_ms)
    env: dict[str, z3.ArithRef] = {}
    for q in form.used_quantities():
        env[q.var] = z3.Real(q.var)
        solver.add(env[q.var] >= 0)
        for value in cells.get(q.var, []):
            solver.add(env[q.var] == z3.RealVal(f"{value.numerator}/{value.denominator}"))
    divisors: list[z3.ArithRef] = []
    for s in form.steps:
        env[s.var] = z3.Real(s.var)
        solver.add(env[s.var] == _to_z3(s.expr, env, divisors))
    for d in divisors:
        solver.add(d != 0)
    smt = solver.sexpr()
    goal = env[form.goal]
    first = solver.check()
    if first == z3.unsat:
        return Z3Verdict("contradictory", detail="the constraints read from the table are unsatisfiable", smt=smt)
    if first != z3.sat:
        return Z3Verdict("unknown", detail=f"z3: {solver.reason_unknown()}", smt=smt)
    value = _as_fraction(solver.model().eval(goal, model_completion=True))
    solver.add(goal != z3.RealVal(f"{value.numerator}/{value.denominator}"))
    second = solver.check()
    if second == z3.unsat:
        return Z3Verdict("unique", value=value, detail=f"goal = {value}; goal != {value} is unsat", smt=smt)
    if second != z3.sat:
        return Z3Verdict("unknown", value=value, detail=f"z3: {solver.reason_unknown()}", smt=smt)
    other = _as_fraction(solver.model().eval(goal, model_completion=True))
    return Z3Verdict("insufficient", value=value, alternative=other,
                     detail=f"two models: goal = {value} and goal = {other}", smt=smt)


def read_cells(form: Formalisation, table: Table) -> dict[str, list[Fraction]]:
    """For each used quantity, the numbers in its column on every row named after its entity."""
    columns = table.columns
    out: dict[str, list[Fraction]] = {}
    for q in form.used_quantities():
        values: list[Fraction] = []
        if q.label in columns:
            col = columns.index(q.label)
            for row in table.rows:
                if row and row[0] == q.entity and col < len(row) and row[col].strip():
                    try:
                        values.append(exact_number(row[col]))
                    except ValueError:
                        log.info("cell %r for %s is not a number; treated as absent", row[col], q.var)
        out[q.var] = values
    return out


def check_table(form: Formalisation, table: Table, *, timeout_ms: int = 10_000) -> Z3Verdict:
    """The verdict for the table version: the given quantities come only from the table."""
    return check_values(form, read_cells(form, table), timeout_ms=timeout_ms)
