"""Math word problems in the pipeline: the scraper publishes each as a `MathProblem` message
(livetab.problems.v1); here it is formalised from its calculator annotations and turned into
Easy/Medium/Hard tables plus Imperfect variants, every answer checked by Z3."""

from __future__ import annotations

from dataclasses import dataclass, field

from livetab.gsm8k import from_message
from livetab.questions import Question
from livetab.tables import Table
from livetab.v1 import math_pb2

__all__ = ["MathOutcome", "math_questions"]


@dataclass
class MathOutcome:
    questions: list[Question] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)


def math_questions(message: math_pb2.MathProblem, *, seed: int = 0) -> MathOutcome:
    from livetab_qagen.math import FormaliseError, GSM8KProblem, build_math_items, formalise_annotations

    out = MathOutcome()
    try:
        p = from_message(message)  # the one GSM8K reader checks the message as it checks a file's line
        # index 0, as the one-row problem table gave before this message existed: the formalisation's source
        # ("gsm8k:<index>") seeds the math tables' rows and ids, so the real index (message.source.index) would
        # rename every math table and question and change which questions a run's `limit` picks
        problem = GSM8KProblem(index=0, question=p.question, answer=p.answer_text, final_answer=p.final_value,
                               raw_final=p.final_answer)
        form = formalise_annotations(problem)
    except (FormaliseError, ValueError) as e:
        out.failures.append(f"{message.id}: cannot formalise: {e}")
        return out
    built = build_math_items(form, seed=seed, licence=message.source.licence or "MIT",
                             attribution=message.source.attribution or "GSM8K (MIT)")
    out.failures.extend(built.refused)
    seen: set[str] = set()
    for item in built.items:
        item.question.source_created_at = message.created_at
        out.questions.append(item.question)
        if item.table.id not in seen:
            seen.add(item.table.id)
            item.table.language = message.language or "en"
            out.tables.append(item.table)
    return out
