"""The LLM-assisted path (AraTable / TeleTables): a generator proposes, computation and validators decide.

For each proposal: the generator model writes JSON ``{"question", "answer", "program"}``; the program
runs in the sandbox over the table and must reproduce the proposed answer (the gold is the sandbox's
value, never the model's text); a validator model answers without the gold in k trials — kept at
≥ 3/4, sent to the human review queue at 1–2/4, discarded at 0; a simplicity filter (a small model,
k trials) removes questions it answers right in most trials. Every step is written to the proposal's
decisions, and to ``Question.verification.decisions`` once there is a question.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from livetab.ids import question_id
from livetab.models.base import ChatMessage, Completion, GenerateRequest, ModelBackend, ModelError, SamplingParams
from livetab.numbers import read_number
from livetab.questions import FAMILIES, Gold, Question, Verification
from livetab.render import pipe_table
from livetab.tables import Table

from livetab_qagen.sandbox import run_derivation
from livetab_qagen.validator import answers_match, validator_trials

__all__ = ["Enqueue", "LlmPathConfig", "LlmPathResult", "Proposal", "gold_from_value", "parse_proposal",
           "run_llm_path"]

log = logging.getLogger(__name__)
# Queue a question for human review with the reason; False when it was queued already (livetab.review.add).
Enqueue = Callable[[Question, str], bool]

GEN_SYSTEM = (
    "You write one question about a table and a Python pandas program that computes its answer. "
    "The table is the DataFrame df. Reply with JSON only, like "
    '{"question": "How many rows have score above 10?", "answer": "3", '
    '"program": "answer = int((df[\'score\'] > 10).sum())"}'
)
SKILLS = ("lookup", "count", "arithmetic", "compare", "average", "multi-criteria")


@dataclass(frozen=True)
class LlmPathConfig:
    k_validator: int = 4
    k_simplicity: int = 4
    keep_share: float = 0.75  # kept when right in at least this share of validator trials (3 of 4)
    simple_share: float = 0.5  # too simple when the small model is right in more than this share
    require_difficult: bool = True
    generator_max_tokens: int = 192
    generator_temperature: float = 0.7
    validator_max_tokens: int = 24
    validator_temperature: float = 0.6
    sandbox_timeout_s: float = 2.0
    sandbox_memory_mb: int = 256
    max_rows: int = 40


@dataclass
class Proposal:
    index: int
    raw: str
    outcome: str = ""  # model_error | invalid | sandbox_failed | mismatch | discarded | too_simple | review | kept
    decisions: list[str] = field(default_factory=list)
    question: Question | None = None


@dataclass
class LlmPathResult:
    table_id: str
    proposals: list[Proposal] = field(default_factory=list)

    def with_outcome(self, *outcomes: str) -> list[Proposal]:
        return [p for p in self.proposals if p.outcome in outcomes]

    @property
    def kept(self) -> list[Question]:
        return [p.question for p in self.with_outcome("kept") if p.question is not None]

    @property
    def review(self) -> list[Question]:
        return [p.question for p in self.with_outcome("review") if p.question is not None]


def parse_proposal(text: str) -> tuple[dict[str, Any] | None, str]:
    """The first JSON object in `text` with a question, an answer and a program; else (None, why)."""
    decoder = json.JSONDecoder()
    start = text.find("{")
    if start < 0:
        return None, "no JSON object in the reply"
    why = "no JSON object in the reply could be decoded"
    while start >= 0:
        try:
            obj, _ = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            start = text.find("{", start + 1)
            continue
        if isinstance(obj, dict):
            missing = [k for k in ("question", "answer", "program") if not str(obj.get(k, "")).strip()]
            if not missing:
                return obj, ""
            why = f"JSON object lacks {', '.join(missing)}"
        start = text.find("{", start + 1)
    return None, why


def gold_from_value(value: Any) -> Gold:
    """The typed gold answer for a value the sandbox computed."""
    if isinstance(value, bool):
        return Gold(kind="boolean", boolean=value, text="True" if value else "False")
    if isinstance(value, (int, float)) and not (isinstance(value, float) and math.isnan(value)):
        text = f"{value:g}" if isinstance(value, float) else str(value)
        return Gold(kind="number", number=float(value), text=text)
    reading = read_number(value.strip()) if isinstance(value, str) else None
    if reading is not None and not reading.percent:  # "1,234.5", "−3", "٣٫٥": the shared cell reader
        return Gold(kind="number", number=reading.value, text=str(value).strip())
    if isinstance(value, list):
        items = [str(v) for v in value]
        return Gold(kind="list", items=items, text=", ".join(items))
    return Gold(kind="text", text=str(value))


def _rows_for_sandbox(table: Table) -> list[list[str]]:
    return [table.columns, *[list(r) for r in table.rows]]


async def _ask_generator(generator: ModelBackend, table: Table, cfg: LlmPathConfig, seed: int) -> str:
    user = pipe_table(table, max_rows=cfg.max_rows)
    request = GenerateRequest(messages=[ChatMessage("system", GEN_SYSTEM), ChatMessage("user", user)],
                              sampling=SamplingParams(temperature=cfg.generator_temperature, top_p=0.95,
                                                      max_tokens=cfg.generator_max_tokens, seed=seed))
    completions: list[Completion] = await generator.generate(request)
    return completions[0].text if completions else ""


async def _one(index: int, table: Table, generator: ModelBackend, validator: ModelBackend,
               simplicity: ModelBackend | None, queue: Enqueue | None, cfg: LlmPathConfig,
               seed: int) -> Proposal:
    try:
        raw = await _ask_generator(generator, table, cfg, seed)
    except ModelError as e:
        return Proposal(index, "", "model_error", [f"generator {generator.name}: call failed: {e}"])
    p = Proposal(index, raw)
    data, why = parse_proposal(raw)
    if data is None:
        p.outcome = "invalid"
        p.decisions.append(f"generator {generator.name}: unusable reply ({why}): {raw[:160]!r}")
        return p
    text, program, proposed = str(data["question"]).strip(), str(data["program"]), data["answer"]
    p.decisions.append(f"generator {generator.name}: proposed {text[:120]!r} with answer {str(proposed)[:60]!r}")
    result = await asyncio.to_thread(run_derivation, program, {"df": _rows_for_sandbox(table)},
                                     timeout_s=cfg.sandbox_timeout_s, memory_mb=cfg.sandbox_memory_mb)
    if not result.ok:
        p.outcome = "sandbox_failed"
        p.decisions.append(f"sandbox: program stopped: {result.error}")
        return p
    gold = gold_from_value(result.value)
    if not answers_match(str(proposed), gold, question=text, language=table.language):
        p.outcome = "mismatch"
        p.decisions.append(f"sandbox: program gives {gold.text[:60]!r}, not the proposed {str(proposed)[:60]!r}")
        return p
    p.decisions.append(f"sandbox: program reproduces the proposed answer; gold = {gold.text[:60]!r}")
    params = {"text": text, "program": program, "seed": str(seed), "index": str(index)}
    family = str(data.get("family", "reasoning"))
    skill = str(data.get("skill", ""))
    q = Question(
        id=question_id(table.id, f"llm:{generator.name}", params), table_id=table.id,
        family=family if family in FAMILIES else "reasoning", text=text, gold=gold,
        skill=skill if skill in SKILLS else "", language=table.language, derivation=program,
        verification=Verification(method="sandbox+validator"), status="pending",
        generator=f"llm:{generator.name}", params={"seed": str(seed), "index": str(index)}, release=table.release,
    )
    p.question = q
    trials = await validator_trials(validator, table, text, gold, k=cfg.k_validator, seed=seed,
                                    max_tokens=cfg.validator_max_tokens, temperature=cfg.validator_temperature,
                                    max_rows=cfg.max_rows)
    q.verification.validator_trials, q.verification.validator_correct = trials.trials, trials.correct
    keep_at = math.ceil(cfg.keep_share * trials.trials)
    if trials.correct == 0:
        outcome = "discarded"
        p.decisions.append(f"validator {validator.name}: 0/{trials.trials} correct -> discard")
    elif trials.correct >= keep_at:
        outcome = "kept"
        p.decisions.append(f"validator {validator.name}: {trials.correct}/{trials.trials} correct -> keep")
    else:
        outcome = "review"
        p.decisions.append(f"validator {validator.name}: {trials.correct}/{trials.trials} correct -> human review")
    if outcome != "discarded":
        outcome = await _simplicity(p, q, table, simplicity, cfg, seed, outcome)
    if outcome == "review":
        if queue is None:
            p.decisions.append("review queue: none configured; the question waits with status review")
        else:
            q.verification.decisions = list(p.decisions)  # the person reviewing sees how it got there
            added = queue(q, f"validator {trials.correct}/{trials.trials}")
            p.decisions.append(f"review queue: {'added' if added else 'already queued'}")
    p.outcome = outcome
    q.status = {"kept": "verified", "review": "review"}.get(outcome, "discarded")
    q.verification.passed = outcome == "kept"
    q.verification.decisions = list(p.decisions)
    return p


async def _simplicity(p: Proposal, q: Question, table: Table, simplicity: ModelBackend | None,
                      cfg: LlmPathConfig, seed: int, outcome: str) -> str:
    if simplicity is None:
        p.decisions.append("simplicity: no small model configured; filter not applied")
        return outcome
    trials = await validator_trials(simplicity, table, q.text, q.gold, k=cfg.k_simplicity, seed=seed + 1000,
                                    max_tokens=cfg.validator_max_tokens, temperature=cfg.validator_temperature,
                                    max_rows=cfg.max_rows)
    q.verification.simplicity_trials, q.verification.simplicity_correct = trials.trials, trials.correct
    simple = trials.correct > cfg.simple_share * trials.trials
    if simple and cfg.require_difficult:
        p.decisions.append(f"simplicity {simplicity.name}: {trials.correct}/{trials.trials} correct -> too simple, "
                           "removed")
        return "too_simple"
    if simple:
        q.difficulty = "easy"
        p.decisions.append(f"simplicity {simplicity.name}: {trials.correct}/{trials.trials} correct -> labelled easy")
        return outcome
    q.difficulty = "hard"
    p.decisions.append(f"simplicity {simplicity.name}: {trials.correct}/{trials.trials} correct -> difficult")
    return outcome


async def run_llm_path(table: Table, *, generator: ModelBackend, validator: ModelBackend,
                       simplicity: ModelBackend | None = None, queue: Enqueue | None = None,
                       n_proposals: int = 1, config: LlmPathConfig | None = None, seed: int = 0) -> LlmPathResult:
    """Ask for `n_proposals` questions about `table` and decide each one; never raises for a bad proposal."""
    cfg = config or LlmPathConfig()
    out = LlmPathResult(table_id=table.id)
    for i in range(n_proposals):
        proposal = await _one(i, table, generator, validator, simplicity, queue, cfg, seed + i)
        log.info("llm path %s proposal %d: %s", table.id, i, proposal.outcome)
        out.proposals.append(proposal)
    return out
