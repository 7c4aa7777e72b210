"""Insight generation prompts (FreshTab): table-to-text with LoTNLG's nine logical operations.

Direct mode: one prompt per operation, five operations per table (chosen with the seeded RNG among
those the table supports). Choice mode: one prompt describing all nine, asking for five insights.
The gold answer is free text ("free"); each prompt carries reference insights — true statements of
the asked operation(s), computed and verified like fact statements — for judges and for the
dependence check (change a cell a reference reads and the reference stops being true).

Each reference also carries its executable claim (`insight_claims`, stored in `Gold.claims`), and its
false twin — the fact family's minimal perturbation of it, with its claim — is kept as a *contrast*
(`Question.params["contrasts"]`): a true statement a judge must accept and a near-identical false one it
must reject. An operation is offered only with a reference whose claim the claim executor, reading the
table on its own, finds supported and whose twin's claim it finds refuted.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from livetab.claims import REFUTED, SUPPORTED

from livetab_qagen.derive import Spec
from livetab_qagen.families.base import Candidate, Context
from livetab_qagen.families.fact import SCOPE, SKILL, pairs
from livetab_qagen.families.insight_claims import claim_of, verified

__all__ = ["OPERATIONS", "Reference", "candidates"]

OPERATIONS = ("aggregation", "all", "comparative", "count", "negation", "ordinal", "simple", "superlative", "unique")
DIRECT_PER_TABLE = 5


@dataclass(frozen=True)
class Reference:
    spec: Spec
    text: str
    claim: dict[str, Any]
    contrast: dict[str, Any]  # {"insight": the false twin's text, "claim": its claim}


def _reference(ctx: Context, op: str) -> Reference | None:
    """The first statement pair of `op` whose true claim is supported and false claim refuted on the table."""
    for true_stmt, false_stmt in pairs(ctx, op):
        if false_stmt is None:
            continue
        claim, twin = claim_of(true_stmt[0], ctx.frame), claim_of(false_stmt[0], ctx.frame)
        if claim is not None and twin is not None and verified(ctx.table, claim, SUPPORTED) and verified(
                ctx.table, twin, REFUTED):
            return Reference(true_stmt[0], true_stmt[1], claim, {"insight": false_stmt[1], "claim": twin})
    return None


def _candidate(ctx: Context, kind: str, refs: list[Reference], text: str, **labels: Any) -> Candidate:
    return Candidate(family="insight", kind=kind, spec={"op": "list", "items": [r.spec for r in refs]}, text=text,
                     difficulty=labels.pop("difficulty"), gold_kind="free", references=[r.text for r in refs],
                     claims=[r.claim for r in refs], contrasts=[r.contrast for r in refs], **labels)


def candidates(ctx: Context) -> list[Candidate]:
    loc = ctx.locale
    references = {op: ref for op in OPERATIONS if (ref := _reference(ctx, op)) is not None}
    if not references:
        return []
    out: list[Candidate] = []
    chosen = ctx.rng.sample(sorted(references), min(DIRECT_PER_TABLE, len(references)))
    for op in chosen:
        prompt = ctx.t("insight.direct", op=loc.get("insight.ops")[op])
        out.append(_candidate(ctx, "direct", [references[op]], prompt, skill=SKILL[op],
                              scope=SCOPE.get(op, "full_table"), operation=op, difficulty="medium",
                              variant={"mode": "direct"}))
    bullets = "\n".join(ctx.t("insight.bullet", op=loc.get("insight.ops")[op]) for op in OPERATIONS)
    out.append(_candidate(ctx, "choice", [references[o] for o in sorted(references)],
                          ctx.t("insight.choice", ops=bullets), skill="mixed", scope="full_table",
                          operation="choice", difficulty="hard", variant={"mode": "choice"}))
    return out
