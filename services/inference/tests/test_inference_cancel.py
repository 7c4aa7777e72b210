"""A cancelled run's requests, through the real inference handler and worker over the in-process bus with a
SQLite store: none is asked of the model or published to the judge; each is stored as failed with reason
"cancelled", so the run's progress counts it and no judgment (no wrong answer) is ever made of it."""

from __future__ import annotations

import time
from pathlib import Path

from livetab import topics
from livetab.bus import HandlerContext, InProcBus, Outgoing
from livetab.bus.worker import Worker
from livetab.runs import CANCELLED, judging_progress
from livetab.settings import Settings
from livetab.store import schema
from livetab.v1 import inference_pb2
from livetab_api.app import run_progress
from livetab_inference.handler import InferenceHandler

from services.inference.tests.test_inference_handler import _requests, _store
from tests.fakes.fault_server import Scenario, ThreadedFaultServer


def test_requests_of_a_cancelled_run_are_recorded_as_cancelled_and_never_judged(tmp_path: Path) -> None:
    store, questions = _store(tmp_path)
    ids = [q.id for q in questions if q.id != "orphan"]
    for rid, cancelled in (("live", None), ("gone", time.time())):
        store.upsert(schema.runs, [{"id": rid, "team": "a", "model": "fake", "release": "r", "planned": len(ids),
                                    "payload": b"", "refused": "", "cancelled_at": cancelled}])
    bus = InProcBus(known_topics={t.name for t in topics.TOPICS})
    with ThreadedFaultServer() as server:
        url = server.set("cancel", Scenario())
        for rid in ("live", "gone"):
            for req in _requests(url, ids):
                req.run_id, req.id = rid, f"{rid}-{req.id}"
                bus.publish(Outgoing(topics.INFERENCE_REQUESTS, req, key=req.question_id, message_id=req.id))
        handler = InferenceHandler(timeout_s=10)
        Worker(handler, bus, HandlerContext(store=store, settings=Settings()), poll_timeout_s=0).run(until_idle=True)
    published = [inference_pb2.InferenceResult.FromString(r.value) for r in bus.records(topics.INFERENCE_RESULTS)]
    assert sorted(r.run_id for r in published) == ["live"] * len(ids)  # nothing of "gone" reaches the judge
    assert all(not r.error for r in published)
    assert handler.model_answers == len(ids)  # the model was asked only for the live run
    assert store.count_by(schema.results, "error", run_id="gone") == {CANCELLED: len(ids)}
    progress = run_progress(store, "gone")
    assert progress is not None
    assert (progress["status"], progress["complete"], progress["failed"]) == ("cancelled", True, len(ids))
    assert {"stage": "inference", "reason": CANCELLED, "count": len(ids)} in progress["failures"]
    assert store.count(schema.judgments, run_id="gone") == 0
    assert judging_progress(store, "gone", "rule").complete  # the reporter writes its files: nothing is left
    live = run_progress(store, "live")
    assert live is not None and (live["status"], live["failed"]) == ("complete", 0)
