"""Math word problems in the pipeline: the scraper passes each problem through as a one-row "problem
table" (source kind `math_problem`); here it is formalised from its calculator annotations and turned
into Easy/Medium/Hard tables plus Imperfect variants, every answer checked by Z3."""

from __future__ import annotations

from dataclasses import dataclass, field

from livetab.questions import Question
from livetab.tables import Table

__all__ = ["MATH_SOURCE_KIND", "MathOutcome", "math_questions"]

MATH_SOURCE_KIND = "math_problem"
COLUMNS = ["id", "question", "answer", "final_answer"]


@dataclass
class MathOutcome:
    questions: list[Question] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)


def math_questions(problem_table: Table, *, seed: int = 0) -> MathOutcome:
    from livetab.numbers import exact_number

    from livetab_qagen.math import FormaliseError, GSM8KProblem, build_math_items, formalise_annotations

    out = MathOutcome()
    header = problem_table.header[0] if problem_table.header else []
    if header != COLUMNS or len(problem_table.rows) != 1:
        out.failures.append(f"not a problem table: header {header}, {len(problem_table.rows)} rows")
        return out
    pid, text, answer, final = problem_table.rows[0]
    try:
        index = int(pid.rsplit(":", 1)[-1]) if pid.rsplit(":", 1)[-1].isdigit() else 0
        problem = GSM8KProblem(index=index, question=text, answer=answer, final_answer=exact_number(final),
                               raw_final=final)
        form = formalise_annotations(problem)
    except (FormaliseError, ValueError) as e:
        out.failures.append(f"{pid}: cannot formalise: {e}")
        return out
    built = build_math_items(form, seed=seed, licence=problem_table.source.licence or "MIT",
                             attribution=problem_table.source.attribution or "GSM8K (MIT)")
    out.failures.extend(built.refused)
    seen: set[str] = set()
    for item in built.items:
        item.question.source_created_at = problem_table.source.created_at
        out.questions.append(item.question)
        if item.table.id not in seen:
            seen.add(item.table.id)
            item.table.language = problem_table.language
            out.tables.append(item.table)
    return out
