"""The validator: a model answers a question (or checks a statement) without seeing the gold answer.

Used by the LLM-assisted path (k trials per question) and measured against people on the 302
human-labelled TabFact statements (`measure_tabfact_agreement`), which works with any ModelBackend.
A trial answer counts as right when the rule judge (`livetab.rubric`) would mark it correct, so a
question is validated in every language exactly as its answers will later be judged.

CLI: ``python -m livetab_qagen.validator --limit 40`` runs the local model and prints the report as JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import logging
import re
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from livetab.models.base import ChatMessage, GenerateRequest, ModelBackend, SamplingParams
from livetab.paths import shared_data
from livetab.questions import Gold, Question, option_letter
from livetab.render import pipe_table
from livetab.rubric import judge_answer
from livetab.tables import Source, Table

__all__ = [
    "AgreementReport",
    "TabFactItem",
    "TrialResult",
    "answers_match",
    "cohen_kappa",
    "load_tabfact",
    "measure_tabfact_agreement",
    "measure_tabfact_agreement_async",
    "parse_verdict",
    "validator_trials",
]

log = logging.getLogger(__name__)

QA_SYSTEM = ("Answer the question using only the information in the table. Return only the answer, "
             "without any explanation.")
FACT_SYSTEM = "You check statements against a table. Answer with one word: True or False."
_TRUE = ("true", "yes", "entailed", "correct", "صح", "نعم")
_FALSE = ("false", "no", "refuted", "incorrect", "wrong", "خطأ", "لا")


def parse_verdict(text: str) -> bool | None:
    """True/False from a reply whose first meaningful word says it; None when it does not."""
    words = re.findall(r"[^\W\d_]+", text.lower())
    for w in words[:6]:
        if w in _TRUE:
            return True
        if w in _FALSE:
            return False
    return None


def answers_match(prediction: str, gold: Gold, *, question: str = "", language: str = "en",
                  options: list[str] | None = None) -> bool:
    """Whether the rule judge marks `prediction` correct for `gold` (AraTable's rubric: numbers within
    ±0.005 or rounded as written, 25% = 0.25, number words, Arabic digits and spellings, lists as sets)."""
    q = Question(id="", table_id="", family="validator", text=question, gold=gold, language=language,
                 options=list(options or []))
    return judge_answer(prediction, q).verdict == "correct"


@dataclass
class TrialResult:
    correct: int
    trials: int
    answers: list[str] = field(default_factory=list)


async def validator_trials(backend: ModelBackend, table: Table, question: str, gold: Gold, *, k: int = 4,
                           options: list[str] | None = None, seed: int = 0, max_tokens: int = 24,
                           temperature: float = 0.6, top_p: float = 0.9, max_rows: int = 40) -> TrialResult:
    """Ask `backend` the question `k` times (seeds seed..seed+k-1) without the gold; count right answers."""
    body = f"{pipe_table(table, max_rows=max_rows)}\n\nQuestion: {question}"
    if options:
        body += "\nOptions:\n" + "\n".join(f"{option_letter(pos)}. {o}" for pos, o in enumerate(options, start=1))
        body += "\nAnswer with the letter of the correct option."
    request = GenerateRequest(messages=[ChatMessage("system", QA_SYSTEM), ChatMessage("user", body)],
                              sampling=SamplingParams(temperature=temperature, top_p=top_p, max_tokens=max_tokens,
                                                      seed=seed, n=k))
    completions = await backend.generate(request)
    answers = [c.text for c in completions[:k]]
    right = sum(answers_match(a, gold, question=question, language=table.language, options=options) for a in answers)
    return TrialResult(correct=right, trials=len(answers), answers=answers)


# --- TabFact: the validator against people ------------------------------------------------------------

@dataclass(frozen=True)
class TabFactItem:
    table_id: str
    caption: str
    statement: str
    label: bool
    columns: list[str]
    rows: list[list[str]]


def load_tabfact(limit: int | None = None, data_dir: Path | None = None) -> list[TabFactItem]:
    """The human-labelled statements with their '#'-separated tables, in a fixed shuffled order
    (sha256 of the statement), so any prefix is a reproducible, roughly balanced subset."""
    root = data_dir or shared_data() / "tabfact"
    tables: dict[str, tuple[list[str], list[list[str]]]] = {}
    items: list[TabFactItem] = []
    with (root / "statements.jsonl").open(encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            rec = json.loads(line)
            tid = str(rec["table_id"])
            if tid not in tables:
                text = (root / "all_csv" / tid).read_text(encoding="utf-8")
                grid = [r.split("#") for r in text.splitlines() if r.strip()]
                tables[tid] = (grid[0], grid[1:])
            cols, rows = tables[tid]
            items.append(TabFactItem(table_id=tid, caption=str(rec.get("caption", "")),
                                     statement=str(rec["statement"]), label=int(rec["label"]) == 1,
                                     columns=cols, rows=rows))
    items.sort(key=lambda it: hashlib.sha256(f"{it.table_id}\n{it.statement}".encode()).hexdigest())
    return items[:limit] if limit is not None else items


def cohen_kappa(pairs: list[tuple[Any, Any]]) -> float:
    """Cohen's kappa of two raters over the categories they used (1.0 when both are constant and equal)."""
    n = len(pairs)
    if n == 0:
        return 0.0
    cats = {a for a, _ in pairs} | {b for _, b in pairs}
    po = sum(a == b for a, b in pairs) / n
    pe = sum((sum(a == c for a, _ in pairs) / n) * (sum(b == c for _, b in pairs) / n) for c in cats)
    return 1.0 if pe == 1.0 else (po - pe) / (1 - pe)


@dataclass
class AgreementReport:
    model: str
    n: int
    accuracy: float
    kappa: float
    confusion: dict[str, int]
    unparsed: int
    seconds_total: float
    seconds_per_call: float
    predicted_true_share: float
    examples: list[dict[str, str]] = field(default_factory=list)

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2)


async def measure_tabfact_agreement_async(backend: ModelBackend, limit: int | None = None, *,
                                          max_tokens: int = 4, max_rows: int = 40,
                                          data_dir: Path | None = None) -> AgreementReport:
    items = load_tabfact(limit, data_dir)
    pairs: list[tuple[bool, bool | None]] = []
    examples: list[dict[str, str]] = []
    t0 = time.perf_counter()
    for it in items:
        table = Table(id=it.table_id, source=Source(kind="tabfact"), header=[it.columns], rows=it.rows,
                      caption=it.caption)
        user = (f"{pipe_table(table, max_rows=max_rows)}\n\n"
                f"Statement: {it.statement}\nIs the statement true or false according to the table?")
        request = GenerateRequest(messages=[ChatMessage("system", FACT_SYSTEM), ChatMessage("user", user)],
                                  sampling=SamplingParams(temperature=0.0, max_tokens=max_tokens, seed=0))
        reply = (await backend.generate(request))[0].text
        verdict = parse_verdict(reply)
        pairs.append((it.label, verdict))
        if len(examples) < 5:
            examples.append({"statement": it.statement, "human": str(it.label), "reply": reply})
    total = time.perf_counter() - t0
    n = len(pairs)
    confusion: dict[str, int] = {}
    for human, model in pairs:
        key = f"human_{str(human).lower()}__model_{'unparsed' if model is None else str(model).lower()}"
        confusion[key] = confusion.get(key, 0) + 1
    return AgreementReport(
        model=backend.name, n=n, accuracy=sum(h is m for h, m in pairs) / n if n else 0.0,
        kappa=cohen_kappa(pairs), confusion=dict(sorted(confusion.items())),
        unparsed=sum(m is None for _, m in pairs), seconds_total=total, seconds_per_call=total / n if n else 0.0,
        predicted_true_share=sum(m is True for _, m in pairs) / n if n else 0.0, examples=examples,
    )


def measure_tabfact_agreement(backend: ModelBackend, limit: int | None = None, **kwargs: Any) -> AgreementReport:
    """Agreement of `backend`, as validator, with the human TabFact labels (accuracy, kappa, confusion)."""
    return asyncio.run(measure_tabfact_agreement_async(backend, limit, **kwargs))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Measure the validator's agreement with TabFact's human labels.")
    parser.add_argument("--limit", type=int, default=None, help="number of statements (default: all 302)")
    parser.add_argument("--max-tokens", type=int, default=4)
    args = parser.parse_args(argv)
    from livetab.models.llama_local import LlamaLocalBackend

    report = measure_tabfact_agreement(LlamaLocalBackend(), args.limit, max_tokens=args.max_tokens)
    print(report.to_json())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
