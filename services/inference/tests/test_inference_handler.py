"""The inference handler over a real store and an OpenAI-compatible endpoint: one store read per kind per
batch (not per request), every answer cached, and requests it cannot prompt recorded with their reason."""

from __future__ import annotations

from pathlib import Path

from livetab.bus import HandlerContext
from livetab.questions import Gold, Question
from livetab.records import question_row, table_row
from livetab.settings import Settings
from livetab.store import Store, open_store, schema
from livetab.v1 import common_pb2, inference_pb2
from livetab_inference.handler import InferenceHandler

from services.inference.tests.inference_data import wtq_table
from tests.fakes.fault_server import Scenario, ThreadedFaultServer
from tests.support.queries import statements


def _store(tmp_path: Path) -> tuple[Store, list[Question]]:
    store = open_store(f"sqlite:///{tmp_path / 'inf.db'}")
    questions = []
    for index in (0, 1):
        table, record = wtq_table(index)
        store.upsert(schema.tables, [table_row(table.to_proto())])
        for k in range(3):
            questions.append(Question(id=f"{table.id}-q{k}", table_id=table.id, family="direct",
                                      text=f"{record['question']} (variant {k})", gold=Gold(kind="text", text="x")))
    questions.append(Question(id="orphan", table_id="no-such-table", family="direct", text="?",
                              gold=Gold(kind="text", text="x")))
    store.upsert(schema.questions, [question_row(q.to_proto()) for q in questions])
    return store, questions


def _requests(url: str, question_ids: list[str]) -> list[inference_pb2.InferenceRequest]:
    model = common_pb2.ModelSpec(name="fake", backend="openai", base_url=url, model="fake-model")
    return [inference_pb2.InferenceRequest(id=f"req-{qid}", run_id="run", question_id=qid, model=model,
                                           format="markdown", setting="with_table",
                                           sampling=common_pb2.Sampling(temperature=0.0, max_tokens=8, seed=3))
            for qid in question_ids]


def test_one_read_per_kind_per_batch_and_every_answer_cached(tmp_path: Path) -> None:
    store, questions = _store(tmp_path)
    ctx = HandlerContext(store=store, settings=Settings())
    with ThreadedFaultServer() as server:
        url = server.set("handler", Scenario())
        ids = [q.id for q in questions] + ["missing"]
        handler = InferenceHandler(timeout_s=10)
        small = _requests(url, ids[:1])
        with statements(store, "SELECT") as few:
            handler.handle_batch(small, ctx)
        with statements(store, "SELECT") as many:
            out = handler.handle_batch(_requests(url, ids[1:]), ctx)
        # the runs (cancelled?), questions, their tables, the cached answers: four reads whether the batch
        # asks 1 question or 7
        assert len(few) == len(many) == 4, many
        results = {o.message.question_id: o.message for o in out}
        assert results["missing"].error == "question missing is not in the store"
        assert results["orphan"].error == "table no-such-table is not in the store"
        answered = [r for q, r in results.items() if q not in ("missing", "orphan")]
        assert len(answered) == 5 and all(r.response.startswith("seed=3") and not r.error for r in answered)
        assert server.count("handler") == 6 and handler.model_answers == 6
        assert store.count(schema.results) == 8

        again = InferenceHandler(timeout_s=10)  # a restarted worker: the answers come from the store's cache
        out = again.handle_batch(_requests(url, ids), ctx)
        assert server.count("handler") == 6 and again.model_answers == 0 and again.cache_hits == 6
        assert sum(1 for o in out if o.message.cached) == 6
    store.close()
