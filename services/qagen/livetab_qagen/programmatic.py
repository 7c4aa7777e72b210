"""The programmatic generation path: templates + executed pandas derivations, verified twice.

`generate(table)` asks each family module for candidates, executes every candidate's derivation to
get its gold answer, re-computes that answer independently and checks table dependence
(`verify`), removes near-duplicates (`quality`), and returns the verified questions, the reasons
for every rejection, and any derived tables (imperfect copies) the questions are asked over.
"""

from __future__ import annotations

import json
import logging
import math
import random
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from livetab.ids import question_id
from livetab.numbers import parse_number
from livetab.questions import Gold, Question, Verification
from livetab.tables import Table

from livetab_qagen import quality
from livetab_qagen.derive import execute, render, values_equal
from livetab_qagen.families import closed_book, direct, fact, imperfect, insight, mcq, reasoning
from livetab_qagen.families.base import Candidate, Context
from livetab_qagen.frame import Frame
from livetab_qagen.templates import Locale, LocaleError, load_locale
from livetab_qagen.verify import dependence, recompute_agrees

__all__ = ["ALL_FAMILIES", "GENERATOR", "GenerationResult", "generate"]

log = logging.getLogger(__name__)

GENERATOR = "programmatic"
_MODULES: dict[str, Any] = {
    "direct": direct, "reasoning": reasoning, "fact": fact, "mcq": mcq, "insight": insight, "imperfect": imperfect,
}
ALL_FAMILIES = (*_MODULES, "closed_book")
_METHOD = "programmatic: pandas derivation executed; plain-Python recomputation; table-dependence check"


@dataclass
class GenerationResult:
    questions: list[Question] = field(default_factory=list)
    rejected: list[tuple[str, str]] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)


class _Rejected(Exception):
    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason, self.detail = reason, detail


def _option_matches(option: str, value: Any, language: str = "en") -> bool:
    if isinstance(value, float):
        parsed = parse_number(option, language)
        return parsed is not None and values_equal(parsed, value, 1e-9)
    return bool(option == value)


def _gold(cand: Candidate, value: Any, locale: Locale) -> Gold:
    """The typed gold answer for a derived value, by the candidate's family."""
    if cand.gold_kind in ("insufficient", "contradictory"):
        if value != cand.gold_kind:
            raise _Rejected("imperfect_not_detected", f"derivation found {value!r}, expected {cand.gold_kind}")
        return Gold(kind=value, text=str(locale.get(f"imperfect.{value}")))
    if cand.gold_kind == "option":
        hits = [pos for pos, opt in enumerate(cand.options, start=1) if _option_matches(opt, value, locale.language)]
        if len(hits) != 1:
            raise _Rejected("mcq_not_exactly_one", f"{len(hits)} options match the derived answer {value!r}")
        return Gold.for_option(list(cand.options), hits[0])
    if cand.gold_kind == "free":
        if not (isinstance(value, list) and value and all(v is True for v in value)):
            raise _Rejected("reference_insight_false", f"reference insights evaluate to {value!r}")
        claims = [json.dumps(c, ensure_ascii=False, sort_keys=True) for c in cand.claims]
        return Gold(kind="free", text="\n".join(cand.references), items=list(cand.references), claims=claims)
    if isinstance(value, bool):
        return Gold(kind="boolean", boolean=value, text=locale.boolean(value))
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            raise _Rejected("no_answer", "the derivation gives no number (empty or non-numeric cells)")
        return Gold(kind="number", number=value, text=locale.answer(value))
    if isinstance(value, list):
        if not value:
            raise _Rejected("no_answer", "the derivation selects no rows")
        items = [locale.answer(v) for v in value]
        if not all(any(c.isalnum() for c in item) for item in items):
            raise _Rejected("no_answer", f"an answer item has no letter or digit: {items!r}")
        return Gold(kind="list", items=items, text=locale.answer(value))
    if isinstance(value, str) and any(c.isalnum() for c in value):
        return Gold(kind="text", text=value)
    raise _Rejected("no_answer", f"the derivation gives {value!r}")


def _build(cand: Candidate, base: Frame, locale: Locale, seed: int, max_evidence: int) -> Question:
    frame = cand.frame or base
    table = frame.table
    derivation = render(cand.spec, frame)
    try:
        value = execute(derivation, frame.dataframe())
    except Exception as exc:  # a derivation that fails is a rejected candidate, not a crash
        raise _Rejected("derivation_error", f"{type(exc).__name__}: {exc} in {derivation}") from exc
    gold = _gold(cand, value, locale)
    agrees, detail = recompute_agrees(cand.spec, table, value)
    if not agrees:
        raise _Rejected("recompute_mismatch", detail)
    spec_json = json.dumps(cand.spec, sort_keys=True, ensure_ascii=False)
    generator = f"{GENERATOR}.{cand.family}.{cand.kind}"
    id_params = {"spec": spec_json, "language": locale.language, "options": cand.options, **cand.variant}
    qid = question_id(table.id, generator, id_params)
    dep = dependence(cand.spec, derivation, frame, value, rng=random.Random(f"{qid}:{seed}"), max_evidence=max_evidence)
    if not dep.ok:
        raise _Rejected("not_table_dependent", dep.detail)
    params = {"spec": spec_json, "kind": cand.kind, "language": locale.language,
              "reads": f"{dep.evidence_checked} evidence cells checked, {dep.unread_checked} unread"}
    params.update({k: str(v) for k, v in cand.variant.items()})
    decisions = ["derivation executed", "recomputation agrees", "table dependent"]
    if cand.contrasts:
        params["contrasts"] = json.dumps(cand.contrasts, ensure_ascii=False, sort_keys=True)
        decisions.append("reference claims supported and their contrasts refuted by the claim executor")
    return Question(
        id=qid, table_id=table.id, family=cand.family, text=cand.text, gold=gold, skill=cand.skill,
        scope=cand.scope, operation=cand.operation, difficulty=cand.difficulty, language=locale.language,
        options=list(cand.options), derivation=derivation, generator=generator, params=params,
        closed_book=cand.closed_book, source_created_at=table.source.created_at, release=table.release,
        verification=Verification(method=_METHOD, passed=True, detail=f"{detail}; {dep.detail}",
                                  decisions=decisions),
    )


def _select(cands: list[Candidate], quota: int, rng: random.Random, build: Any,
            rejected: list[tuple[str, str]]) -> list[Question]:
    """Round-robin over candidate kinds (shuffled with `rng`), building until `quota` questions pass.
    Candidates sharing a `group` (true/false pairs) pass or fail together."""
    units: dict[str, list[list[Candidate]]] = defaultdict(list)
    grouped: dict[str, list[Candidate]] = {}
    for cand in cands:
        if cand.group:
            if cand.group not in grouped:
                grouped[cand.group] = []
                units[cand.kind].append(grouped[cand.group])
            grouped[cand.group].append(cand)
        else:
            units[cand.kind].append([cand])
    queues = [units[k] for k in sorted(units)]
    for q in queues:
        rng.shuffle(q)
    rng.shuffle(queues)
    out: list[Question] = []
    while len(out) < quota and any(queues):
        for queue in queues:
            if not queue or len(out) >= quota:
                continue
            unit = queue.pop()
            try:
                built = [build(c) for c in unit]
                truths = {q.gold.boolean for q in built if q.gold.kind == "boolean"}
                if len(built) > 1 and truths and truths != {True, False}:
                    raise _Rejected("pair_unbalanced", f"a true/false pair evaluates to {sorted(truths)} only")
            except _Rejected as rej:
                rejected.append((rej.reason, f"{unit[0].family}.{unit[0].kind}: {rej.detail}"))
                continue
            out.extend(built)
    return out


def generate(table: Table, *, families: list[str] | None = None, language: str | None = None, seed: int = 0,
             per_family: int = 5, max_evidence: int = 8,
             proportions: dict[str, dict[str, float]] | None = None) -> GenerationResult:
    """Verified questions of the asked families over `table` (all families by default).

    language: the locale to write questions in (default: the table's language). seed: makes the choice
    of rows, columns and distractors reproducible; the same table and seed give the same ids.
    per_family: questions per family (fact statements come in true/false pairs, so an odd quota is
    rounded up; insight adds one Choice-mode prompt to `per_family` Direct-mode prompts). max_evidence: evidence cells perturbed per question in the dependence check.
    proportions: optional target shares per attribute for `quality.balance`."""
    result = GenerationResult()
    wanted = list(families) if families is not None else list(ALL_FAMILIES)
    unknown = [f for f in wanted if f not in ALL_FAMILIES]
    if unknown:
        result.rejected.append(("unknown_family", f"{unknown} (known: {list(ALL_FAMILIES)})"))
        wanted = [f for f in wanted if f in ALL_FAMILIES]
    try:
        locale = load_locale(language or table.language or "en")
    except LocaleError as exc:
        result.rejected.append(("locale", str(exc)))
        return result
    frame = Frame(table)
    if frame.n_rows < 2 or frame.n_cols < 2:
        result.rejected.append(("table_too_small", f"{table.id}: {frame.n_rows} rows x {frame.n_cols} columns"))
        return result

    def build(cand: Candidate) -> Question:
        return _build(cand, frame, locale, seed, max_evidence)

    by_family: dict[str, list[Question]] = {}
    derived: dict[str, Table] = {}
    for family in wanted:
        if family == "closed_book":
            continue
        rng = random.Random(f"{table.id}:{seed}:{family}:{locale.language}")
        ctx = Context(frame, locale, rng, budget=max(2 * per_family, 6), salt=f"{table.id}:{seed}")
        try:
            cands = _MODULES[family].candidates(ctx)
        except Exception as exc:  # one family's failure is recorded, the others still run
            log.exception("family %s failed on table %s", family, table.id)
            result.rejected.append(("family_error", f"{family}: {type(exc).__name__}: {exc}"))
            continue
        if not cands:
            result.rejected.append(("no_candidates", f"{family}: nothing this table supports"))
        derived.update({c.frame.table.id: c.frame.table for c in cands if c.frame is not None})
        quota = {"fact": per_family + per_family % 2, "insight": per_family + 1}.get(family, per_family)
        by_family[family] = _select(cands, quota, rng, build, result.rejected)
    if "closed_book" in wanted:
        base = [q for f in ("direct", "mcq", "reasoning") for q in by_family.get(f, [])]
        variants, why = closed_book.variants(table, base, locale, per_family)
        by_family["closed_book"] = variants
        result.rejected.extend(why)
    questions = [q for qs in by_family.values() for q in qs]
    questions, dropped = quality.dedupe(questions)
    result.rejected.extend(dropped)
    if proportions:
        questions, dropped = quality.balance(questions, proportions, seed=seed)
        result.rejected.extend(dropped)
    result.questions = questions
    used = {q.table_id for q in questions}
    result.tables = [t for tid, t in derived.items() if tid in used]
    log.info("table %s: %d questions, %d rejected", table.id, len(questions), len(result.rejected))
    return result
