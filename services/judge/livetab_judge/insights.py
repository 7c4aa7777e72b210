"""Insight judging (FreshTab): the factuality of each generated insight by an LLM judge with FreshTab's
error categories (incorrect, not checkable, misleading, other), and, where the model emitted a
structured claim beside its sentence, the claim executed over the table (see `claims`).
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import Any

from livetab import verdicts
from livetab.claims import CLAIM_TAG, INVALID, ClaimResult, execute_claim
from livetab.models.base import ChatMessage, GenerateRequest, ModelBackend, ModelError, SamplingParams
from livetab.reasoning import strip_thinking
from livetab.render import pipe_table
from livetab.tables import Table

from livetab_judge.llm_judge import (
    ERROR,
    FALSE,
    TRUE,
    UNPARSED,
    json_objects,
    parse_label,
    strip_echo,
)

__all__ = [
    "ERROR_CATEGORIES",
    "Insight",
    "InsightJudge",
    "InsightVerdict",
    "build_factuality_messages",
    "check_claims",
    "extract_insights",
    "parse_factuality",
]

log = logging.getLogger(__name__)

ERROR_CATEGORIES = verdicts.ERROR_CATEGORIES
_CATEGORY_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("not_checkable", re.compile(r"not[\s_-]*(?:checkable|verifiable)|unverifiable|cannot be (?:checked|verified)|"
                                 r"not (?:in|supported by|stated in|found in) the table|لا يمكن التحقق", re.I)),
    ("misleading", re.compile(r"mislead|مضلل", re.I)),
    ("incorrect", re.compile(r"incorrect|wrong|contradict|inaccurate|خطأ|خاطئ|غير صحيح", re.I)),
    ("other", re.compile(r"\bother\b", re.I)),
]

_FACT_RUBRIC = """You check whether a statement about a table is fully supported by the table.
Error categories (FreshTab):
- incorrect: the statement contradicts the table (wrong value, wrong entity, wrong count or comparison);
- not_checkable: the statement cannot be verified from the table (outside knowledge, speculation);
- misleading: literally true but suggests something false (cherry-picked, wrong emphasis);
- other: any other error (ungrammatical, meaningless, repeated).
A statement is factual only if it has none of these errors."""

_FACT_FORMAT = ('Reply with JSON only: {"label": "True" if factual else "False", '
                '"category": "none" or one of incorrect, not_checkable, misleading, other, '
                '"justification": "<one sentence>"}')


@dataclass(frozen=True)
class Insight:
    sentence: str
    claim: dict[str, Any] | None = None
    operation: str = ""


@dataclass
class InsightVerdict:
    sentence: str
    factual: str  # true, false, unparsed, error (from the LLM judge; "" when it was not asked)
    category: str = ""  # one of ERROR_CATEGORIES when factual is false
    justification: str = ""
    raw: str = ""
    claim_status: str = ""  # supported, refuted, invalid, "" without a claim
    claim_detail: str = ""
    decided_by: str = ""  # claim, llm, none
    meta: dict[str, str] = field(default_factory=dict)

    @property
    def verdict(self) -> str:
        """The combined factuality: an executed claim decides; otherwise the LLM judge's label."""
        if self.claim_status in ("supported", "refuted"):
            return TRUE if self.claim_status == "supported" else FALSE
        return self.factual if self.factual in (TRUE, FALSE) else UNPARSED


_SENTENCE_KEYS = ("insight", "sentence", "text", "statement")


def extract_insights(text: str) -> list[Insight]:
    """Insights from a model's output: JSON objects {"insight": ..., "claim": {...}}, lines with a
    trailing <claim>{...}</claim> tag, or plain lines (numbering and bullets removed). Never raises."""
    body = strip_thinking(text or "")
    objs = [o for o in json_objects(body) if any(k in o for k in _SENTENCE_KEYS)]
    if objs:
        out = []
        for o in objs:
            sentence = next(str(o[k]) for k in _SENTENCE_KEYS if k in o).strip()
            obj_claim = o.get("claim") if isinstance(o.get("claim"), dict) else None
            out.append(Insight(sentence, obj_claim, str(o.get("operation", o.get("op", "")))))
        return [i for i in out if i.sentence]
    insights: list[Insight] = []
    for line in body.splitlines():
        claim: dict[str, Any] | None = None
        m = CLAIM_TAG.search(line)
        if m:
            found = json_objects(m.group(1))
            claim = found[0] if found else {"unparsable": m.group(1)}
            line = CLAIM_TAG.sub("", line)
        sentence = re.sub(r"^\s*(?:[-*•]|\d+[.)])\s*", "", line).strip()
        if sentence:
            insights.append(Insight(sentence, claim))
    return insights


def parse_factuality(text: str) -> tuple[str, str, str]:
    """(label, category, justification) from a judge's reply; label `unparsed` when none is found."""
    body = strip_echo(text or "")
    category = ""
    for obj in json_objects(body):
        cat = str(obj.get("category", obj.get("error", ""))).strip().lower().replace(" ", "_").replace("-", "_")
        if cat in ERROR_CATEGORIES:
            category = cat
            break
    parsed = parse_label(body)
    label = parsed.label
    if label != FALSE:
        return label, "", parsed.justification
    if not category:
        category = next((name for name, pat in _CATEGORY_PATTERNS if pat.search(body)), "other")
    return label, category, parsed.justification


def build_factuality_messages(table: Table, sentence: str, *, max_rows: int = 40,
                              max_table_chars: int = 6000) -> list[ChatMessage]:
    rendered = pipe_table(table, max_rows=max_rows, max_chars=max_table_chars)
    return [
        ChatMessage("system", _FACT_RUBRIC),
        ChatMessage("user", f"{rendered}\n\nStatement: {sentence}\n\n{_FACT_FORMAT}"),
    ]


def check_claims(table: Table, insights: list[Insight]) -> list[ClaimResult | None]:
    return [execute_claim(table, i.claim) if i.claim is not None else None for i in insights]


class InsightJudge:
    """Factuality of insights by an LLM judge, with claims executed where present."""

    def __init__(self, backend: ModelBackend | None, *, name: str | None = None,
                 sampling: SamplingParams | None = None, max_rows: int = 40, max_table_chars: int = 6000) -> None:
        self.backend = backend
        self.name = name or (backend.name if backend is not None else "claims-only")
        self.sampling = sampling or SamplingParams(temperature=0.0, max_tokens=128)
        self.max_rows = max_rows
        self.max_table_chars = max_table_chars

    async def judge(self, table: Table, insight: Insight) -> InsightVerdict:
        v = InsightVerdict(sentence=insight.sentence, factual="")
        if insight.claim is not None:
            res = execute_claim(table, insight.claim)
            v.claim_status, v.claim_detail = res.status, f"{res.computed} ({res.detail})"
        if self.backend is not None and (v.claim_status in ("", INVALID)):
            try:
                out = await self.backend.generate(GenerateRequest(
                    messages=build_factuality_messages(table, insight.sentence, max_rows=self.max_rows,
                                                       max_table_chars=self.max_table_chars),
                    sampling=self.sampling))
                v.raw = out[0].text if out else ""
                v.factual, v.category, v.justification = parse_factuality(v.raw)
            except ModelError as e:
                log.warning("insight judge %s failed: %s", self.name, e)
                v.factual, v.justification = ERROR, str(e)
        if v.claim_status in ("supported", "refuted"):
            v.decided_by = "claim"
            if v.claim_status == "refuted":
                v.category = "incorrect"
        elif v.factual in (TRUE, FALSE):
            v.decided_by = "llm"
        else:
            v.decided_by = "none"
        return v

    async def judge_many(self, table: Table, insights: list[Insight]) -> list[InsightVerdict]:
        return [await self.judge(table, i) for i in insights]
