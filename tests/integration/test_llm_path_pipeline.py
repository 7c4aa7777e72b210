"""The LLM-assisted generation path inside the pipeline, with the real local model as generator and
validator: every proposal is decided and recorded (kept with its decisions, or recorded with why not)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from livetab import review
from livetab.records import load_question
from livetab.settings import load_settings
from livetab.store import open_store, schema
from livetab_cli.embedded import run_embedded

from tests.support.sample import sample_pages

pytestmark = [pytest.mark.model]


def test_llm_proposals_are_decided_and_recorded(tmp_path: Path) -> None:
    pages = sample_pages(tmp_path / "pages", ["203-647"])
    local = {"name": "smollm2-135m", "backend": "llama_local"}
    cfg = {"out_dir": str(tmp_path / "out"), "store": {"url": f"sqlite:///{tmp_path / 'l.db'}"},
           "sources": [{"kind": "local_html", "location": str(pages)}],
           "qagen": {"families": ["direct"], "per_table": 1,
                     "llm": {"generator": local, "proposals_per_table": 1, "k_validator": 2}},
           "run": {"release": "l", "max_tokens": 8, "limit": 1}}
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(cfg))
    run_embedded(load_settings(path, env={}))
    store = open_store(cfg["store"]["url"])
    llm_questions = [q for q in (load_question(r) for r in store.select(schema.questions))
                     if q is not None and q.generator.startswith("llm")]
    recorded = [f for f in store.select(schema.failures) if f["stage"] == "qagen-llm"]
    assert len(llm_questions) + len(recorded) == 1, (llm_questions, recorded)
    for q in llm_questions:
        assert q.verification.decisions and q.verification.validator_trials == 2
    for f in recorded:
        assert f["reason"].startswith("proposal ") and len(f["reason"]) > len("proposal x: ")
    queued = [f for f in recorded if f["reason"].startswith("proposal review")]
    assert len(review.items(store, release="l", status=review.PENDING)) == len(queued)  # in the store's queue
