"""Math-over-tables questions: formalisation → tables at each level → Z3 verdicts → Questions.

A question is emitted only when Z3's verdict on its own table is what the variant claims: a unique
answer equal to the problem's answer for Easy/Medium/Hard, underdetermined for a removed value,
unsatisfiable for a disagreeing duplicate row. Everything refused is returned with its reason.
"""

from __future__ import annotations

import logging
import random
from dataclasses import dataclass, field

from livetab.ids import content_id, question_id
from livetab.questions import Gold, Question, Verification
from livetab.tables import Table

from livetab_qagen.math.formalise import Formalisation, render
from livetab_qagen.math.tables import LEVELS, blur_question, build_table, contradict_cell, format_number, remove_cell
from livetab_qagen.math.z3check import Z3Verdict, check_table

__all__ = ["GENERATOR", "MathBuild", "MathItem", "build_math_items"]

log = logging.getLogger(__name__)

GENERATOR = "math.z3"


@dataclass(frozen=True)
class MathItem:
    question: Question
    table: Table
    verdict: Z3Verdict


@dataclass
class MathBuild:
    items: list[MathItem] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)


def _question(form: Formalisation, table: Table, verdict: Z3Verdict, *, difficulty: str, variant: str,
              text: str, decisions: list[str]) -> Question:
    if verdict.status == "unique":
        assert verdict.value is not None
        gold = Gold(kind="number", number=float(verdict.value), text=format_number(verdict.value), unit=form.unit)
    else:
        gold = Gold(kind=verdict.status, text=verdict.status)
    params = {"source": form.source, "difficulty": difficulty, "variant": variant, "method": form.method}
    derivation = render(form) + f"\n; verdict on this table: {verdict.status}: {verdict.detail}"
    return Question(
        id=question_id(table.id, GENERATOR, params), table_id=table.id, family="math", text=text, gold=gold,
        skill="arithmetic", scope="cross_reference" if len(form.used_quantities()) > 1 else "single_cell",
        operation="aggregation", difficulty=difficulty, language="en", derivation=derivation,
        verification=Verification(method="z3", passed=True, detail=verdict.detail, decisions=decisions),
        status="verified", generator=GENERATOR, params=params,
    )


def build_math_items(form: Formalisation, *, seed: int = 0, difficulties: tuple[str, ...] = tuple(LEVELS),
                     imperfect_from: str = "medium", source_kind: str = "gsm8k",
                     licence: str = "MIT", attribution: str = "GSM8K, openai/grade-school-math (MIT)") -> MathBuild:
    """Tables and Z3-verified questions for one formalised problem (one per level plus Imperfect variants)."""
    out = MathBuild()
    text = blur_question(form)
    tables: dict[str, Table] = {}
    for difficulty in difficulties:
        rng = random.Random(content_id("seed", form.source, difficulty, seed))
        table = build_table(form, difficulty, rng, source_kind=source_kind, licence=licence,
                            attribution=attribution)
        verdict = check_table(form, table)
        if verdict.status != "unique" or verdict.value != form.expected:
            out.refused.append(f"{form.source} {difficulty}: z3 says {verdict.status} {verdict.value}, "
                               f"expected unique {form.expected}")
            continue
        tables[difficulty] = table
        decisions = [f"z3: unique solution goal = {verdict.value} equals the source answer {form.expected}"]
        out.items.append(MathItem(_question(form, table, verdict, difficulty=difficulty, variant="well-posed",
                                            text=text, decisions=decisions), table, verdict))
    base = tables.get(imperfect_from)
    if base is None:
        return out
    rng = random.Random(content_id("seed", form.source, "imperfect", seed))
    needed = form.used_quantities()
    rng.shuffle(needed)
    for kind in ("insufficient", "contradictory"):
        for q in needed:
            variant = remove_cell(base, q) if kind == "insufficient" else contradict_cell(base, q, rng)
            verdict = check_table(form, variant)
            if verdict.status == kind:
                decisions = [f"z3: {verdict.detail} after changing {q.var} = cell({q.entity!r}, {q.label!r})"]
                out.items.append(MathItem(_question(form, variant, verdict, difficulty=imperfect_from,
                                                    variant=kind, text=text, decisions=decisions),
                                          variant, verdict))
                break
            log.debug("%s: %s variant on %s gave %s", form.source, kind, q.var, verdict.status)
        else:
            out.refused.append(f"{form.source}: no needed value gives a {kind} table")
    return out
