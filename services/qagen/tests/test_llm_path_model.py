"""The LLM-assisted path end to end with the real local model (SmolLM2-135M on CPU).

Table 1: the local model is the generator (it rarely writes valid JSON; the path must record that and
go on). Table 2: a fixed, valid proposal so that the real model's validator trials, the simplicity
filter and the review queue run too. Calls are few and short: k = 2, small max_tokens, 12 rows shown.
"""

from __future__ import annotations

import asyncio
import csv
import functools
import json
from pathlib import Path

import pytest
from livetab import review
from livetab.models.base import Completion, GenerateRequest
from livetab.paths import shared_data
from livetab.store import open_store
from livetab.tables import Source, Table
from livetab_qagen.llm_path import LlmPathConfig, run_llm_path

pytestmark = pytest.mark.model


def wtq_table(rel: str) -> Table:
    with (shared_data() / "wtq" / rel).open(encoding="utf-8", newline="") as f:
        grid = list(csv.reader(f, escapechar="\\"))
    return Table(id=f"wtq:{rel}", source=Source(kind="wtq", uri=rel), header=[grid[0]], rows=grid[1:])


class FixedProposal:
    name = "fixed-proposal"

    async def generate(self, request: GenerateRequest) -> list[Completion]:
        return [Completion(text=json.dumps({"question": "Which country is Lincoln Cathedral in?", "answer": "England",
                                            "program": "df.loc[df['Name'] == 'Lincoln Cathedral', 'Country'].iloc[0]"}))]


def test_llm_path_end_to_end_with_the_local_model(tmp_path: Path) -> None:
    from livetab.models.llama_local import LlamaLocalBackend

    model = LlamaLocalBackend()
    store = open_store(f"sqlite:///{tmp_path / 'q.db'}")
    queue = functools.partial(review.add, store)
    cfg = LlmPathConfig(k_validator=2, k_simplicity=2, generator_max_tokens=80, validator_max_tokens=8, max_rows=12)
    skoda = wtq_table("csv/204-csv/21.csv")
    towers = wtq_table("csv/203-csv/39.csv")
    first = asyncio.run(run_llm_path(skoda, generator=model, validator=model, simplicity=model, queue=queue,
                                     config=cfg))
    second = asyncio.run(run_llm_path(towers, generator=FixedProposal(), validator=model, simplicity=model,
                                      queue=queue, config=cfg))
    for res in (first, second):
        for p in res.proposals:
            print(f"\n{res.table_id} proposal {p.index}: {p.outcome}")
            for d in p.decisions:
                print("   ", d)
            assert p.outcome and p.decisions
            if p.question is not None:
                assert p.question.verification.decisions == p.decisions
    assert first.proposals[0].decisions[0].startswith("generator smollm2")
    p = second.proposals[0]
    assert p.question is not None and p.question.verification.validator_trials == 2
    assert any(d.startswith("validator smollm2") for d in p.decisions)
    if p.question.verification.validator_correct:  # then the small model's simplicity trials ran as well
        assert p.question.verification.simplicity_trials == 2
    if p.outcome == "review":
        assert [i.question.id for i in review.items(store)] == [p.question.id]
