"""The LLM judge's parsing of outputs that do and do not follow the requested format, and its prompt."""

from __future__ import annotations

import asyncio

import pytest
from livetab.models.base import Completion, GenerateRequest, ModelError
from livetab.questions import Gold, Question
from livetab_judge.llm_judge import (
    ERROR,
    FALSE,
    TRUE,
    UNPARSED,
    JudgeItem,
    LLMJudge,
    build_judge_messages,
    gold_text,
    parse_label,
)


@pytest.mark.parametrize(
    ("text", "label", "how"),
    [
        ('{"label": "True", "justification": "40 equals forty years"}', TRUE, "json"),
        ('Sure! ```json\n{"label": false, "justification": "wrong year"}\n```', FALSE, "json"),
        ('{"verdict": "Incorrect"}', FALSE, "json"),
        ("The response matches the gold.\nLabel: True", TRUE, "label-line"),
        ("**Verdict:** False - the list misses Ecuador", FALSE, "label-line"),
        ("التسمية: خطأ", FALSE, "label-line"),
        ("True", TRUE, "leading-word"),
        ("No. The response names 2002, the gold is 2003.", FALSE, "leading-word"),
        ("yes", TRUE, "leading-word"),
        ("صح", TRUE, "leading-word"),
        ("خطأ", FALSE, "leading-word"),
        ("غير صحيح", FALSE, "leading-word"),
        ("<think>maybe true, maybe false</think>False", FALSE, "leading-word"),
        ("The response is incorrect because the year differs.", FALSE, "sole-mention"),
        ("The answer given is correct since it says 40.", TRUE, "sole-mention"),
        ("The gold answer is not correct under the rules. The response is not correct.", FALSE, "sole-mention"),
        ("The answer is:\n\nTrue.\n\nThe response is correct under the rules.", TRUE, "label-line"),
        ("The label is False because the years differ", FALSE, "label-line"),
        ("الإجابة ليست صحيحة", FALSE, "sole-mention"),
    ],
)
def test_parse_label_formats(text: str, label: str, how: str) -> None:
    p = parse_label(text)
    assert (p.label, p.how) == (label, how)


@pytest.mark.parametrize(
    "text",
    ["", "   ", "I cannot decide; it could be true or false.", "The table shows Skoda sales per year.",
     '{"label": "maybe"}', "{not json at all",
     'Here is the format: ```{"label": "True" || "False"}```',
     "Question: is it true?\nGold answer: True\nResponse: Yes, true."],
)
def test_unparsable_outputs_are_recorded_not_raised(text: str) -> None:
    assert parse_label(text).label == UNPARSED


def test_json_justification_is_kept() -> None:
    p = parse_label('{"label": "True", "justification": "same number"}')
    assert p.justification == "same number"


def test_gold_text_by_kind() -> None:
    q = Question(id="q", table_id="t", family="mcq", text="Which?", gold=Gold(kind="option", option=2),
                 options=["red", "blue"])
    assert gold_text(q) == "Option 2: blue"
    assert gold_text(Question("q", "t", "fact", "?", Gold(kind="boolean", boolean=False))) == "False"
    assert gold_text(Question("q", "t", "direct", "?", Gold(kind="list", items=["a", "b"]))) == "a; b"
    assert "not contain enough information" in gold_text(Question("q", "t", "imperfect", "?", Gold(kind="insufficient")))
    item = JudgeItem.from_question("i", q, "Option 2")
    assert "Option 1: red" in item.question and item.gold == "Option 2: blue"


def test_prompt_carries_rubric_question_gold_and_response() -> None:
    msgs = build_judge_messages(JudgeItem("i", "How many?", "40", "forty years"))
    text = "\n".join(str(m.content) for m in msgs)
    for needle in ("0.005", "Arabic", "How many?", "Gold answer: 40", "Response: forty years", '"label"'):
        assert needle in text


class _Failing:
    name = "broken"

    async def generate(self, request: GenerateRequest) -> list[Completion]:
        raise ModelError("HTTP 503", retryable=True)


class _Echo:
    name = "echo"

    def __init__(self, reply: str) -> None:
        self.reply = reply

    async def generate(self, request: GenerateRequest) -> list[Completion]:
        return [Completion(text=self.reply)]


def test_judge_records_model_errors_and_unparsed_replies() -> None:
    item = JudgeItem("i1", "q", "40", "forty")
    err = asyncio.run(LLMJudge(_Failing()).label(item))
    assert err.label == ERROR and "503" in err.error
    un = asyncio.run(LLMJudge(_Echo("I like tables.")).label(item))
    assert un.label == UNPARSED and un.raw == "I like tables."
    ok = asyncio.run(LLMJudge(_Echo("Label: True"), name="j").label(item))
    assert (ok.label, ok.judge, ok.item_id) == (TRUE, "j", "i1")
