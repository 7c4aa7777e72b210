"""Progress you can watch: the inference handler counts each stored result per run (answered, and failed
when the call ended in an error) and the judge each stored judgment, as OTel counters with `run_id` and one
log line per batch, over a real store and an OpenAI-compatible endpoint (the fault server, healthy then
failing)."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from livetab.bus import HandlerContext
from livetab.questions import Gold, Question
from livetab.records import question_row, table_row
from livetab.run_progress import RunProgress
from livetab.settings import JudgeSettings, Settings
from livetab.store import open_store, schema
from livetab.v1 import common_pb2, inference_pb2
from livetab_inference.handler import InferenceHandler
from livetab_judge.handler import JudgeHandler
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader

from services.inference.tests.inference_data import wtq_table
from tests.fakes.fault_server import Scenario, ThreadedFaultServer


def _counts(reader: InMemoryMetricReader) -> dict[tuple[str, str], int]:
    out: dict[tuple[str, str], int] = {}
    data = reader.get_metrics_data()
    for rm in data.resource_metrics if data else []:
        for sm in rm.scope_metrics:
            for metric in sm.metrics:
                for point in metric.data.data_points:
                    key = (metric.name, str(point.attributes["run_id"]))
                    out[key] = out.get(key, 0) + int(point.value)
    return out


def test_answered_failed_and_judged_are_counted_per_run_batch_by_batch(tmp_path: Path,
                                                                       caplog: pytest.LogCaptureFixture) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'progress.db'}")
    table, record = wtq_table(0)
    store.upsert(schema.tables, [table_row(table.to_proto())])
    questions = [Question(id=f"q{k}", table_id=table.id, family="direct", text=f"{record['question']} ({k})",
                          gold=Gold(kind="text", text="x")) for k in range(5)]
    store.upsert(schema.questions, [question_row(q.to_proto()) for q in questions])
    ctx = HandlerContext(store=store, settings=Settings())
    reader = InMemoryMetricReader()
    meter = MeterProvider(metric_readers=[reader]).get_meter("test")

    def requests(url: str, run: str, ids: list[str]) -> list[inference_pb2.InferenceRequest]:
        model = common_pb2.ModelSpec(name="fake", backend="openai", base_url=url, model="fake-model")
        return [inference_pb2.InferenceRequest(id=f"{run}-{qid}", run_id=run, question_id=qid, model=model,
                                               format="markdown", setting="with_table",
                                               sampling=common_pb2.Sampling(max_tokens=8, seed=1)) for qid in ids]

    inference = InferenceHandler(timeout_s=10)
    inference.progress = RunProgress("inference", meter)
    judge = JudgeHandler(JudgeSettings())
    judge.progress = RunProgress("judge", meter)
    with ThreadedFaultServer() as server, caplog.at_level(logging.INFO, logger="livetab.run_progress"):
        healthy = server.set("healthy", Scenario())
        failing = server.set("failing", Scenario(mode="500"))
        ids = [q.id for q in questions]
        batches = [requests(healthy, "run-a", ids[:3]), requests(healthy, "run-a", ids[3:]) +
                   requests(failing, "run-b", ids[:2]), requests(healthy, "run-b", ["no-such-question"])]
        seen = []
        for batch in batches:
            results = [o.message for o in inference.handle_batch(batch, ctx)]
            judge.handle_batch(results, ctx)
            seen.append(_counts(reader))
        inference.close()
    assert seen[0] == {("livetab.run.answered", "run-a"): 3, ("livetab.run.judged", "run-a"): 3}
    assert seen[-1] == {("livetab.run.answered", "run-a"): 5, ("livetab.run.judged", "run-a"): 5,
                        ("livetab.run.answered", "run-b"): 3, ("livetab.run.failed", "run-b"): 3,
                        ("livetab.run.judged", "run-b"): 3}
    assert store.count(schema.results) == 8 and store.count(schema.judgments) == 8
    lines = [r.getMessage() for r in caplog.records]
    assert "run run-a: 3 answered, 0 failed in this batch" in lines
    assert "run run-b: 2 answered, 2 failed in this batch" in lines
    assert "run run-b: 1 judged in this batch" in lines
    store.close()
