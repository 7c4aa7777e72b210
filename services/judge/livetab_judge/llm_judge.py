"""An LLM judge: AraTable's human rubric given to a judge model with the question, the gold answer and
the response; the reply is parsed into a True/False label with a justification.

Judge models (small local ones above all) often ignore the requested format, so the parser tries, in
order: a JSON object with a label, a "Label: True" line (and its synonyms), a reply that starts with a
bare True/False/Yes/No/صح/خطأ, and a reply that mentions only one side. Anything else is recorded as
`unparsed`; a failed model call is recorded as `error`. Nothing here raises on a judge's output.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass, field
from typing import Any

from livetab.models.base import ChatMessage, GenerateRequest, ModelBackend, ModelError, SamplingParams
from livetab.questions import Question
from livetab.reasoning import strip_thinking

__all__ = [
    "ERROR",
    "FALSE",
    "RUBRIC",
    "TRUE",
    "UNPARSED",
    "JudgeItem",
    "JudgeLabel",
    "LLMJudge",
    "ParsedLabel",
    "build_judge_messages",
    "gold_text",
    "item_block",
    "json_objects",
    "label_from_value",
    "label_word",
    "parse_label",
    "strip_echo",
]

log = logging.getLogger(__name__)

TRUE = "true"
FALSE = "false"
UNPARSED = "unparsed"
ERROR = "error"

RUBRIC = """You judge whether a response to a question about a table is correct, comparing it with the gold answer.
Rules (judge the meaning, not the wording):
1. Same meaning counts; descriptive words and units may be added ("around 40", "40", "forty years" are equal).
2. Numbers are equal within 0.005 ("1.883" accepted for "1.889"); formats vary ("25%" = "0.25"; "38000" = "38 ألف").
3. Lists are equal as sets, whatever the order, punctuation or conjunctions ("فندق أ و فندق ب" = [فندق ب, فندق أ]).
4. True is also Yes, صح, نعم, بيان صحيح; False is also No, خطأ, غير صحيح, بيان كاذب, including clear sentences.
5. Arabic entity names (universities, cities, streets) must be answered in Arabic; numbers and True/False are exempt.
6. Punctuation, quotes, brackets, case, whitespace, minor style and minor spelling mistakes are ignored.
7. If the gold answer says the table is insufficient or contradictory, a concrete answer is wrong."""

_FORMAT = 'Reply with JSON only: {"label": "True" or "False", "justification": "<one sentence>"}'

_TRUE_WORDS = ("true", "yes", "correct", "right", "accurate", "صح", "صحيح", "نعم", "بيان صحيح")
_FALSE_WORDS = ("false", "no", "incorrect", "wrong", "inaccurate", "خطأ", "خاطئ", "لا", "غير صحيح", "بيان كاذب")
_WORD_TO_LABEL: dict[str, str] = {**{w: TRUE for w in _TRUE_WORDS}, **{w: FALSE for w in _FALSE_WORDS}}
# longest first so that "incorrect" and "غير صحيح" win over "correct" and "صحيح"
_ALT = "|".join(re.escape(w) for w in sorted(_WORD_TO_LABEL, key=len, reverse=True))
_B = r"(?<![\w])"
_E = r"(?![\w])"
_LABEL_LINE = re.compile(
    rf"(?:label|verdict|final label|judg(?:e)?ment|decision|final answer|the answer|التسمية|الحكم)[\"']?\s*\**\s*"
    rf"(?:\bis\b\s*[:\-]?|[:=\-])\s*\**\s*[\"'(\[]?\s*{_B}({_ALT}){_E}",
    re.IGNORECASE,
)
# "True or False", "True || False", "True/False": the format echoed back, not a decision
_ALTERNATIVE = re.compile(r"\s*[\"'\]\)]?\s*(?:\|\||\||/|\bor\b|أو)", re.IGNORECASE)
_LEADING = re.compile(rf"^\W*{_B}({_ALT}){_E}", re.IGNORECASE)
_TRUE_MENTION = re.compile(rf"{_B}(?:true|correct|صح|صحيح|بيان صحيح){_E}", re.IGNORECASE)
_NEGATED_TRUE = re.compile(rf"{_B}(?:not|n't|never|ليس|ليست|غير)\s+(?:(?:entirely|quite|fully|really)\s+)?"
                           rf"(?:true|correct|right|accurate|صح|صحيح|صحيحة){_E}", re.IGNORECASE)
_FALSE_MENTION = re.compile(rf"{_B}(?:false|incorrect|wrong|خطأ|خاطئ|غير صحيح|بيان كاذب){_E}", re.IGNORECASE)
_LABEL_KEYS = ("label", "verdict", "correct", "is_correct", "final_label", "decision", "answer")
_JUST_KEYS = ("justification", "reason", "reasoning", "explanation", "rationale")


def label_word(label: str) -> str:
    """How a label is shown to a judge and stored in a deliberation round."""
    return {TRUE: "True", FALSE: "False"}.get(label, label)


@dataclass(frozen=True)
class ParsedLabel:
    label: str  # true, false or unparsed
    justification: str
    how: str  # json, label-line, leading-word, sole-mention, none


def label_from_value(value: Any) -> str | None:
    if isinstance(value, bool):
        return TRUE if value else FALSE
    if isinstance(value, (int, float)) and value in (0, 1):
        return TRUE if value == 1 else FALSE
    if isinstance(value, str):
        key = value.strip().strip(".!\"'").lower()
        return _WORD_TO_LABEL.get(key)
    return None


def json_objects(text: str) -> list[dict[str, Any]]:
    """Every JSON object that can be decoded starting at some '{' of the text, in order."""
    decoder = json.JSONDecoder()
    found: list[dict[str, Any]] = []
    pos = text.find("{")
    while pos != -1:
        try:
            obj, end = decoder.raw_decode(text, pos)
        except json.JSONDecodeError:
            pos = text.find("{", pos + 1)
            continue
        if isinstance(obj, dict):
            found.append(obj)
        pos = text.find("{", max(end, pos + 1))
    return found


def _from_json(obj: dict[str, Any]) -> ParsedLabel | None:
    lowered = {str(k).lower(): v for k, v in obj.items()}
    for key in _LABEL_KEYS:
        if key in lowered:
            label = label_from_value(lowered[key])
            if label is not None:
                just = next((str(lowered[k]) for k in _JUST_KEYS if k in lowered), "")
                return ParsedLabel(label, just.strip(), "json")
    return None


# lines a judge copies back from its prompt: they carry the prompt's labels, not the judge's decision
_ECHO = re.compile(r"^\W*(?:question|gold answer|response|statement|your label \(judge\d+\)|"
                   r"the other judge'?s label)\s*:[^\n]*$", re.IGNORECASE | re.MULTILINE)


def strip_echo(text: str) -> str:
    """The reply without thinking and without lines echoed from the judge prompts."""
    return _ECHO.sub("", strip_thinking(text)).strip()


def parse_label(text: str) -> ParsedLabel:
    """The judge's label from free text; `unparsed` when no rule finds one (never raises)."""
    body = strip_echo(text or "")
    if not body:
        return ParsedLabel(UNPARSED, "", "none")
    for obj in json_objects(body):
        parsed = _from_json(obj)
        if parsed is not None:
            return parsed
    matches = [m for m in _LABEL_LINE.finditer(body) if not _ALTERNATIVE.match(body, m.end())]
    if matches:
        last = matches[-1]
        rest = (body[: last.start()] + " " + body[last.end():]).strip(" \n.:-")
        return ParsedLabel(_WORD_TO_LABEL[last.group(1).lower()], rest, "label-line")
    lead = _LEADING.match(body)
    if lead and not _ALTERNATIVE.match(body, lead.end()):
        return ParsedLabel(_WORD_TO_LABEL[lead.group(1).lower()], body[lead.end():].strip(" \n.,:-"), "leading-word")
    negated = bool(_NEGATED_TRUE.search(body))
    has_true = bool(_TRUE_MENTION.search(_NEGATED_TRUE.sub(" ", body)))
    has_false = negated or bool(_FALSE_MENTION.search(body))
    if has_true != has_false:
        return ParsedLabel(TRUE if has_true else FALSE, body, "sole-mention")
    return ParsedLabel(UNPARSED, body, "none")


def gold_text(question: Question) -> str:
    """A readable gold answer for a judge prompt, whatever the gold kind."""
    g = question.gold
    if g.kind == "boolean":
        return "True" if g.boolean else "False"
    if g.kind == "list" and g.items:
        return "; ".join(g.items)
    if g.kind == "option" and question.options and 1 <= g.option <= len(question.options):
        return f"Option {g.option}: {question.options[g.option - 1]}"
    if g.kind == "insufficient":
        return g.text or "The table does not contain enough information to answer."
    if g.kind == "contradictory":
        return g.text or "The table is contradictory, so the question cannot be answered."
    if g.kind == "number" and not g.text:
        return f"{g.number:g}{(' ' + g.unit) if g.unit else ''}"
    return g.text


@dataclass(frozen=True)
class JudgeItem:
    """What a judge sees: the question, the gold answer and the response to label."""

    item_id: str
    question: str
    gold: str
    response: str
    language: str = "en"

    @classmethod
    def from_question(cls, item_id: str, question: Question, response: str) -> JudgeItem:
        text = question.text
        if question.options:
            text += "\n" + "\n".join(f"Option {i}: {o}" for i, o in enumerate(question.options, 1))
        return cls(item_id=item_id, question=text, gold=gold_text(question), response=response,
                   language=question.language)


@dataclass(frozen=True)
class JudgeLabel:
    item_id: str
    judge: str
    label: str  # true, false, unparsed, error
    justification: str = ""
    raw: str = ""
    how: str = ""
    error: str = ""
    meta: dict[str, str] = field(default_factory=dict)


def item_block(item: JudgeItem) -> str:
    return f"Question: {item.question}\nGold answer: {item.gold}\nResponse: {item.response}"


def build_judge_messages(item: JudgeItem) -> list[ChatMessage]:
    return [
        ChatMessage("system", RUBRIC),
        ChatMessage("user", f"{item_block(item)}\n\nIs the response correct under the rules? {_FORMAT}"),
    ]


class LLMJudge:
    """One judge: a model backend plus its sampling. Two judges may share one backend."""

    def __init__(self, backend: ModelBackend, *, name: str | None = None,
                 sampling: SamplingParams | None = None) -> None:
        self.backend = backend
        self.name = name or backend.name
        self.sampling = sampling or SamplingParams(temperature=0.0, max_tokens=128)

    async def complete(self, messages: list[ChatMessage]) -> str:
        """One completion's text; ModelError propagates to the caller, which records it."""
        out = await self.backend.generate(GenerateRequest(messages=messages, sampling=self.sampling))
        return out[0].text if out else ""

    async def label(self, item: JudgeItem) -> JudgeLabel:
        try:
            raw = await self.complete(build_judge_messages(item))
        except ModelError as e:
            log.warning("judge %s failed on %s: %s", self.name, item.item_id, e)
            return JudgeLabel(item.item_id, self.name, ERROR, error=str(e))
        parsed = parse_label(raw)
        if parsed.label == UNPARSED:
            log.info("judge %s gave no parsable label for %s", self.name, item.item_id)
        return JudgeLabel(item.item_id, self.name, parsed.label, parsed.justification, raw, parsed.how)

    async def label_many(self, items: list[JudgeItem]) -> list[JudgeLabel]:
        return [await self.label(it) for it in items]
