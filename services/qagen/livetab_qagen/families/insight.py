"""Insight generation prompts (FreshTab): table-to-text with LoTNLG's nine logical operations.

Direct mode: one prompt per operation, five operations per table (chosen with the seeded RNG among
those the table supports). Choice mode: one prompt describing all nine, asking for five insights.
The gold answer is free text ("free"); each prompt carries reference insights — true statements of
the asked operation(s), computed and verified like fact statements — for judges and for the
dependence check (change a cell a reference reads and the reference stops being true).
"""

from __future__ import annotations

from livetab_qagen.derive import Spec
from livetab_qagen.families.base import Candidate, Context
from livetab_qagen.families.fact import SCOPE, SKILL, pairs

__all__ = ["OPERATIONS", "candidates"]

OPERATIONS = ("aggregation", "all", "comparative", "count", "negation", "ordinal", "simple", "superlative", "unique")
DIRECT_PER_TABLE = 5


def candidates(ctx: Context) -> list[Candidate]:
    loc = ctx.locale
    references: dict[str, tuple[Spec, str]] = {}
    for op in OPERATIONS:
        found = pairs(ctx, op)
        if found:
            spec, text, _ = found[0][0]
            references[op] = (spec, text)
    if not references:
        return []
    out: list[Candidate] = []
    chosen = ctx.rng.sample(sorted(references), min(DIRECT_PER_TABLE, len(references)))
    for op in chosen:
        spec, text = references[op]
        prompt = loc.t("insight.direct", op=loc.get("insight.ops")[op])
        out.append(Candidate(family="insight", kind="direct", spec={"op": "list", "items": [spec]}, text=prompt,
                             skill=SKILL[op], scope=SCOPE.get(op, "full_table"), operation=op,
                             difficulty="medium", gold_kind="free", references=[text], variant={"mode": "direct"}))
    bullets = "\n".join(loc.t("insight.bullet", op=loc.get("insight.ops")[op]) for op in OPERATIONS)
    ops = sorted(references)
    out.append(Candidate(family="insight", kind="choice", spec={"op": "list", "items": [references[o][0] for o in ops]},
                         text=loc.t("insight.choice", ops=bullets), skill="mixed", scope="full_table",
                         operation="choice", difficulty="hard", gold_kind="free",
                         references=[references[o][1] for o in ops], variant={"mode": "choice"}))
    return out
