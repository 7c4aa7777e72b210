"""The demo's multiple-choice questions re-checked answer by answer, no model needed: `make run`'s own
questions (deploy/demo.yaml, generated here as the demo generates them) are shown with the contract's
letters, and every way of naming the right option is judged correct and every way of naming any other
option incorrect. Before the answer contract, qagen wrote the right option's position counted from 0 and
the judge read it counted from 1, so the demo's report marked right answers wrong."""

from __future__ import annotations

from pathlib import Path

import yaml
from livetab.models.scripted import OPTION_PHRASINGS, say_option
from livetab.questions import option_letter
from livetab.records import load_question, load_table
from livetab.rubric import judge_answer
from livetab.settings import load_settings
from livetab.store import schema
from livetab_cli.embedded import Pipeline
from livetab_inference.prompts import build_messages

from tests.support.sample import ROOT


def test_demo_mcq_verdicts_are_right_for_every_option_and_phrasing(tmp_path: Path) -> None:
    cfg = yaml.safe_load((ROOT / "deploy" / "demo.yaml").read_text(encoding="utf-8"))
    cfg["store"] = {"url": f"sqlite:///{tmp_path / 'demo.db'}"}
    cfg["out_dir"] = str(tmp_path / "out")
    cfg["sources"] = [s for s in cfg["sources"] if s["kind"] == "local_html"]  # the math problems ask no MCQ
    path = tmp_path / "demo.yaml"
    path.write_text(yaml.safe_dump(cfg))
    p = Pipeline(load_settings(path, env={}))
    try:
        p.generate()
        questions = [load_question(r) for r in p.store.select(schema.questions, family="mcq")]
        tables = {r["id"]: load_table(r) for r in p.store.select(schema.tables)}
    finally:
        p.close()
    assert len(questions) >= 5, "the demo asks multiple-choice questions"
    judged = 0
    for q in questions:
        assert q is not None
        g = q.gold
        assert g.kind == "option" and 1 <= g.option <= len(q.options) and q.options[g.option - 1] == g.text
        prompt = build_messages(q, tables[q.table_id], fmt="markdown", setting="with_table")
        assert f"\n{option_letter(g.option)}. {g.text}\n" in str(prompt.messages[-1].content)
        for position in range(1, len(q.options) + 1):
            want = "correct" if position == g.option else "incorrect"
            for phrasing in OPTION_PHRASINGS:
                answer = say_option(q, position, phrasing, q.language)
                got = judge_answer(answer, q)
                assert got.verdict == want, (q.text, q.options, g.option, answer, got)
                judged += 1
    print(f"\ndemo: {len(questions)} multiple-choice questions, {judged} answers judged")
