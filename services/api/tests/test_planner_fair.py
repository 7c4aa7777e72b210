"""Fair sharing of inference capacity between teams (livetab_api.planner): the runs the planner takes in one
batch are published round-robin by team, so a team's few requests are not queued behind another team's many.

The inference workers take requests in publication order, so the order on the requests topic is what each
team waits for: here team "small" (3 requests) arrives right after team "big" (3 questions x 40 samples =
120 requests). Planned in one batch, small's last request is the 6th published; planned one run per batch
(what the planner did before), it was the 123rd. With `api.team_window` the sharing holds across batches."""

from __future__ import annotations

from pathlib import Path

from livetab.bus import HandlerContext, InProcBus, Outgoing, Worker
from livetab.records import question_row, result_row
from livetab.runs import build_run
from livetab.settings import ApiSettings, Settings
from livetab.store import Store, open_store, schema
from livetab.topics import RUNS
from livetab.v1 import common_pb2, inference_pb2, question_pb2
from livetab_api.planner import PlannerHandler

from tests.support.releases import publish

RELEASE = "r"


def _store(tmp_path: Path) -> Store:
    store = open_store(f"sqlite:///{tmp_path / 'fair.db'}")
    store.upsert(schema.questions, [question_row(question_pb2.Question(
        id=f"q{i}", table_id=f"t{i}", family="direct", text="?", status="verified", release=RELEASE))
        for i in range(3)])
    publish(store, RELEASE)
    return store


def _published_order(store: Store, max_records: int) -> list[str]:
    """The run id of each request, in the order the planner published them."""
    bus = InProcBus()
    big = build_run("big", RELEASE, common_pb2.ModelSpec(name="big-model", backend="openai", model="b"), samples=40)
    small = build_run("small", RELEASE, common_pb2.ModelSpec(name="small-model", backend="openai", model="s"))
    for run in (big, small):
        bus.publish(Outgoing(RUNS, run, key=run.id, message_id=run.id))
    Worker(PlannerHandler(), bus, HandlerContext(store=store, settings=None), max_records=max_records,
           poll_timeout_s=0).run(until_idle=True)
    assert bus.records("livetab.dlq.v1") == []
    order = [inference_pb2.InferenceRequest.FromString(r.value).run_id
             for r in bus.records("livetab.inference.requests.v1")]
    assert sorted(set(order)) == sorted({big.id, small.id}) and order.count(big.id) == 120
    return ["small" if rid == small.id else "big" for rid in order]


def test_one_teams_few_requests_are_not_queued_behind_anothers_many(tmp_path: Path) -> None:
    order = _published_order(_store(tmp_path), max_records=100)
    assert order[:6] == ["big", "small"] * 3  # one of each team in turn while both have requests
    assert order[6:] == ["big"] * 117


def test_without_a_shared_batch_the_order_is_arrival(tmp_path: Path) -> None:
    """The control: one run per batch, nothing to interleave — small's requests wait behind all of big's."""
    order = _published_order(_store(tmp_path), max_records=1)
    assert order.index("small") == 120


def test_a_team_window_shares_capacity_across_batches(tmp_path: Path) -> None:
    """api.team_window = 10: big's run, planned alone, publishes 10 and holds 110 back; small's run, planned in
    the next batch, goes out at once (positions 11-13, not 121-123). As big's requests are answered (results
    stored, as the inference service does) a quiet planner publishes more of big's — never more than 10
    outstanding; a cancelled run's held-back requests are never published."""
    store = _store(tmp_path)
    bus = InProcBus()
    handler = PlannerHandler()
    handler.top_up_every_s = 0.0
    worker = Worker(handler, bus, HandlerContext(store=store, settings=Settings(api=ApiSettings(team_window=10))),
                    max_records=1, poll_timeout_s=0)
    big = build_run("big", RELEASE, common_pb2.ModelSpec(name="big-model", backend="openai", model="b"), samples=40)
    small = build_run("small", RELEASE, common_pb2.ModelSpec(name="small-model", backend="openai", model="s"))
    for run in (big, small):
        bus.publish(Outgoing(RUNS, run, key=run.id, message_id=run.id))

    def published() -> list[inference_pb2.InferenceRequest]:
        return [inference_pb2.InferenceRequest.FromString(r.value) for r in bus.records("livetab.inference.requests.v1")]

    def answer(requests: list[inference_pb2.InferenceRequest]) -> None:
        store.upsert(schema.results, [result_row(inference_pb2.InferenceResult(
            id=r.id, run_id=r.run_id, question_id=r.question_id, model=r.model.name, sample_index=r.sample_index))
            for r in requests])

    while worker.run_once():
        pass
    order = ["small" if r.run_id == small.id else "big" for r in published()]
    assert order == ["big"] * 10 + ["small"] * 3
    assert store.get(schema.runs, big.id)["published"] == 10  # type: ignore[index]
    assert store.get(schema.runs, small.id)["published"] is None  # type: ignore[index]
    worker.run_once()  # a quiet poll: big has 10 outstanding, no room
    assert len(published()) == 13

    answer(published()[:4])  # 4 of big's answered: room for 4 more
    worker.run_once()
    assert len(published()) == 17 and {r.run_id for r in published()[13:]} == {big.id}
    assert len({r.id for r in published()}) == 17  # the next ones, none sent twice

    answer(published())
    for _ in range(30):  # answered as fast as published: the rest goes out 10 at a time
        worker.run_once()
        answer(published())
    assert len(published()) == 123 and store.get(schema.runs, big.id)["published"] is None  # type: ignore[index]

    later = build_run("big", RELEASE, common_pb2.ModelSpec(name="big-model-2", backend="openai", model="b"),
                      samples=40)
    bus.publish(Outgoing(RUNS, later, key=later.id, message_id=later.id))
    worker.run_once()
    assert len(published()) == 133
    store.update(schema.runs, later.id, cancelled_at=1.0)  # what POST /runs/{id}/cancel writes
    answer(published())
    worker.run_once()
    assert len(published()) == 133  # nothing more of a cancelled run
