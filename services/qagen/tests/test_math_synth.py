"""Synthetic problems of GSM8K's shapes and the optional model-proposed formalisation: Z3 decides."""

from __future__ import annotations

import asyncio
from collections import Counter
from fractions import Fraction

import pytest
from livetab.models.base import Completion, GenerateRequest
from livetab_qagen.math import SHAPES, FormaliseError, build_math_items, check_table, synthesise, synthesise_many
from livetab_qagen.math.formalise import formalise_with_model
from livetab_qagen.math.gsm8k import load_problems, question_mentions


def test_synthetic_problems_scale_and_verify() -> None:
    forms = synthesise_many(60, seed=3)
    counts: Counter[str] = Counter()
    for form in forms:
        b = build_math_items(form, seed=1, source_kind="synthetic", licence="Apache-2.0", attribution="livetab")
        assert not b.refused, b.refused
        for it in b.items:
            verdict = check_table(form, it.table)
            assert verdict.status == it.question.gold.kind.replace("number", "unique")
            if verdict.status == "unique":
                assert verdict.value == form.expected
            counts[f"{form.source.split(':')[1]}/{it.question.params['variant']}"] += 1
        assert question_mentions(b.items[0].question.text.split("\n", 1)[1]) == []
    print("\nsynthetic math questions:", dict(sorted(counts.items())))
    assert {k.split("/")[0] for k in counts} == set(SHAPES)


def test_synthesis_is_reproducible_and_varied() -> None:
    a, b = synthesise("wage", 5), synthesise("wage", 5)
    assert a.question == b.question and a.expected == b.expected
    assert len({synthesise("purchase", s).question for s in range(10)}) == 10


class ScriptedFormaliser:
    """A fixed-reply generator (fault scaffolding: shows what the Z3 gate does with a given proposal)."""

    def __init__(self, reply: str) -> None:
        self.name = "scripted"
        self.reply = reply

    async def generate(self, request: GenerateRequest) -> list[Completion]:
        assert request.messages[0].role == "system"
        return [Completion(text=self.reply)]


def _toula():
    return next(p for p in load_problems() if p.question.startswith("Toula"))


def test_model_formalisation_is_admitted_only_when_z3_agrees() -> None:
    p = _toula()  # 3 dozen at $68, 2 dozen at $80, 6 dozen at $55 -> 694
    good = ScriptedFormaliser('{"steps": ["3*68", "2*80", "6*55", "s1+s2+s3"], "goal": "s4"}')
    form = asyncio.run(formalise_with_model(good, p.question, p.final_answer, source="gsm8k:t"))
    items = build_math_items(form).items
    assert items and all(check_table(form, it.table).status == it.question.gold.kind.replace("number", "unique")
                         for it in items)
    assert form.method == "model:scripted"

    wrong = ScriptedFormaliser('{"steps": ["3*68", "2*80", "s1+s2"], "goal": "s3"}')
    form = asyncio.run(formalise_with_model(wrong, p.question, p.final_answer, source="gsm8k:t"))
    b = build_math_items(form)
    assert b.items == [] and all("expected unique 694" in r for r in b.refused[:3])

    for reply in ("I think it is 694.", '{"steps": ["3*68"], "goal": "s9"}', '{"steps": ["import os"]}'):
        with pytest.raises(FormaliseError):
            asyncio.run(formalise_with_model(ScriptedFormaliser(reply), p.question, p.final_answer, source="t"))


@pytest.mark.model
def test_local_model_formalisation_runs_and_z3_decides() -> None:
    from livetab.models.llama_local import LlamaLocalBackend

    p = _toula()
    try:
        form = asyncio.run(formalise_with_model(LlamaLocalBackend(), p.question, p.final_answer, source="gsm8k:t",
                                                max_tokens=96))
    except FormaliseError as e:
        print(f"\nlocal model formalisation refused: {e}")
        return
    b = build_math_items(form)
    print(f"\nlocal model formalisation: {len(b.items)} items admitted, refused: {b.refused[:2]}")
    for it in b.items:
        if it.question.params["variant"] == "well-posed":
            assert check_table(form, it.table).value == Fraction(694)
