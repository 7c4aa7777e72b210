"""Two judges' verdicts on the same answers: a leaderboard counts the configured judge's only."""

from __future__ import annotations

from typing import Any

from livetab.bus import HandlerContext
from livetab.ids import judge_name
from livetab.settings import JudgeSettings, ModelSettings, ReporterSettings, Settings
from livetab_reporter.handler import ReporterHandler
from livetab_reporter.leaderboard import compute_rows
from reporter_data import Answer, add_questions, answer_and_judge, plan_run


def test_only_the_configured_judges_verdicts_count(store: Any) -> None:
    add_questions(store, 6)
    run_id, requests = plan_run(store)
    cascade = JudgeSettings(llm_judges=[ModelSettings(name="a"), ModelSettings(name="b")], llm_temperatures=[0.0, 0.7])
    assert judge_name(JudgeSettings()) == "rule" and judge_name(cascade) == "cascade:a@0.0+b@0.7"
    rule_judged = answer_and_judge(store, requests, lambda r: Answer("correct"))
    llm_judged = answer_and_judge(store, requests[:4], lambda r: Answer("incorrect"), judge=judge_name(cascade))

    by_rule = {r.slice: r for r in compute_rows(store, run_id, judge="rule")}["all"]
    assert (by_rule.n, by_rule.correct) == (6, 6)
    by_cascade = {r.slice: r for r in compute_rows(store, run_id, judge=judge_name(cascade))}["all"]
    assert (by_cascade.n, by_cascade.correct) == (4, 0)

    # the handler takes the judge from the settings; its update counts that judge's verdicts only
    rows_only = ReporterSettings(write_files=False, first_s=0.0)  # the first batch recomputes at once
    for settings, judged, n, correct in ((Settings(reporter=rows_only), rule_judged, 6, 6),
                                         (Settings(judge=cascade, reporter=rows_only), llm_judged, 4, 0)):
        out = ReporterHandler().handle_batch(list(judged), HandlerContext(store=store, settings=settings))
        update = out[0].message
        assert update.judged == n and update.planned == 6
        row = next(r for r in update.rows if r.slice == "all")
        assert (row.n, row.correct) == (n, correct)
