"""A question's samples asked in one model call (`InferenceRequest.call_size` > 1, as the planner sets it): one
request to the endpoint with n = call_size and the call's seed for the samples a poll holds, each sample taking
its own choice and storing its own result, the call's answers one cache row; the same answers however the samples
are split over polls; a server that ignores or refuses `n` still gives every sample; a choice the server did not
give, or call fields out of range, are that request's recorded error."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from livetab.bus import HandlerContext
from livetab.questions import Question
from livetab.settings import Settings
from livetab.store import schema
from livetab.v1 import common_pb2, inference_pb2
from livetab_inference.handler import InferenceHandler, cache_key

from services.inference.tests.inference_data import one_question_store
from tests.fakes.fault_server import Scenario, ThreadedFaultServer


def _requests(model: common_pb2.ModelSpec, q: Question, *, size: int = 16, run: str = "run",
              base: int = 100) -> list[inference_pb2.InferenceRequest]:
    return [inference_pb2.InferenceRequest(
        id=f"{run}-{i}", run_id=run, question_id=q.id, model=model, format="markdown", setting="with_table",
        sample_index=i, sampling=common_pb2.Sampling(temperature=0.8, max_tokens=8, seed=base + i),
        call_size=size, call_choice=i) for i in range(size)]


def _spec(url: str, **params: str) -> common_pb2.ModelSpec:
    return common_pb2.ModelSpec(name="fake", backend="openai", base_url=url, model="fake-model", params=params)


def test_a_polls_samples_of_one_call_are_one_request_and_each_takes_its_choice(tmp_path: Path) -> None:
    store, q = one_question_store(tmp_path / "one.db")
    ctx = HandlerContext(store=store, settings=Settings())
    with ThreadedFaultServer() as server:
        url = server.set("calls", Scenario())
        handler = InferenceHandler(timeout_s=10)
        answers = [o.message for o in handler.handle_batch(_requests(_spec(url), q), ctx)]
        assert server.count("calls") == 1  # sixteen samples, one request (the fault server answers n choices)
        assert [a.response for a in answers] == [f"seed=100 choice={i} " + a.response.split()[2]
                                                 for i, a in enumerate(answers)]
        assert [a.seed for a in answers] == list(range(100, 116))  # each result keeps its own sample's seed
        assert not any(a.error or a.cached for a in answers) and handler.model_answers == 16
        (row,) = store.select(schema.response_cache)  # the call's answers, one row
        assert [c.response for c in inference_pb2.CallAnswers.FromString(row["payload"]).choices] == \
            [a.response for a in answers]
        assert {r["id"] for r in store.select(schema.results)} == {a.id for a in answers}

        again = [o.message for o in handler.handle_batch(list(reversed(_requests(_spec(url), q))), ctx)]
        assert all(a.cached for a in again) and server.count("calls") == 1
        assert [a.response for a in reversed(again)] == [a.response for a in answers]
    store.close()


def test_a_call_split_over_polls_gives_each_sample_the_same_answer(tmp_path: Path) -> None:
    """Samples 0-9 in one poll and 10-15 in the next: the first poll asks the call and stores all its answers, the
    second takes its samples' choices from that row; every sample's answer, and the cache, are those of the poll
    that held them all. A row that lacks a sample's choice (a server that gave fewer) is no answer for it."""
    whole_store, q = one_question_store(tmp_path / "whole.db")
    split_store, _ = one_question_store(tmp_path / "split.db")
    with ThreadedFaultServer() as server:
        url = server.set("split", Scenario())
        reqs = _requests(_spec(url), q)
        whole = [o.message for o in InferenceHandler(timeout_s=10).handle_batch(
            reqs, HandlerContext(store=whole_store, settings=Settings()))]
        handler = InferenceHandler(timeout_s=10)
        ctx = HandlerContext(store=split_store, settings=Settings())
        split = [o.message for part in (reqs[:10], reqs[10:]) for o in handler.handle_batch(part, ctx)]
        assert server.count("split") == 2  # once for the whole poll, once for the first part
        assert [a.cached for a in split] == [False] * 10 + [True] * 6
        for a in (*split, *whole):
            a.latency_ms, a.cached = 0.0, False  # what a call's timing and the cache change
        assert [a.SerializeToString(deterministic=True) for a in split] == \
            [a.SerializeToString(deterministic=True) for a in whole]
        rows = [s.select(schema.response_cache) for s in (whole_store, split_store)]
        assert [r["key"] for r in rows[0]] == [r["key"] for r in rows[1]]
        assert [[c.response for c in inference_pb2.CallAnswers.FromString(r["payload"]).choices] for r in rows[1]] \
            == [[a.response for a in whole]]

        # a row holding only the first four choices answers those; the others ask the call again
        (row,) = rows[1]
        short = inference_pb2.CallAnswers.FromString(row["payload"])
        del short.choices[4:]
        split_store.upsert(schema.response_cache, [{**row, "payload": short.SerializeToString()}])
        again = [o.message for o in handler.handle_batch(
            [r for r in _requests(_spec(url), q, run="again")], ctx)]
        assert [a.cached for a in again] == [True] * 4 + [False] * 12 and server.count("split") == 3
        assert [a.response for a in again] == [a.response for a in whole]
    whole_store.close()
    split_store.close()


def test_a_later_polls_samples_join_their_call_in_flight_and_share_its_slot(tmp_path: Path) -> None:
    """Samples 0-9 taken by one poll and 10-15 by the next while the call is still in flight (the in-flight worker
    begins the next poll before the first completes): the second poll's samples join the call, so the endpoint is
    asked once; every sample of the call names the call as the slot it shares (`Begun.shares`: one of the worker's
    `max_in_flight` slots for the call, as it is one call at the endpoint); a request of its own names none. Once
    stored, the call is forgotten: the cache answers from then on."""
    store, q = one_question_store(tmp_path / "join.db")
    ctx = HandlerContext(store=store, settings=Settings())
    with ThreadedFaultServer() as server:
        url = server.set("join", Scenario())
        reqs = _requests(_spec(url), q)
        handler = InferenceHandler(timeout_s=10)
        first, second = handler.begin(reqs[:10], ctx), handler.begin(reqs[10:], ctx)
        key = cache_key(reqs[0].model, [], reqs[0].sampling, prompt_digest="", call=(16, 0))
        assert len(set(first.shares + second.shares)) == 1 and first.shares[0] not in (None, key)

        async def both() -> list[object]:
            import asyncio

            return list(await asyncio.gather(*first, *second))

        answers = handler._loop.run(both())
        outs = [o.message for group in handler.finish(answers, ctx) for o in group]  # type: ignore[arg-type]
        assert server.count("join") == 1 and not any(a.error or a.cached for a in outs)
        assert [a.response.split()[:2] for a in outs] == [["seed=100", f"choice={i}"] for i in range(16)]
        assert handler._calls == {} and len(store.select(schema.response_cache)) == 1

        lone = handler.begin(_requests(_spec(url), q, size=1, run="lone"), ctx)
        assert lone.shares == [None]  # a call of its own: a slot of its own
        for coro in lone:
            coro.close()
    store.close()


def test_a_server_that_ignores_n_still_answers_every_sample(tmp_path: Path) -> None:
    """`auto`: the call returns one choice, the backend asks the rest one by one (seed + i each) and from then on
    loops; `native`: the server's one choice is sample 0's answer, the others get the reason as their error."""
    store, q = one_question_store(tmp_path / "n.db")
    ctx = HandlerContext(store=store, settings=Settings())
    with ThreadedFaultServer() as server:
        url = server.set("no-n", Scenario(honour_n=False))
        answers = [o.message for o in InferenceHandler(timeout_s=10).handle_batch(_requests(_spec(url), q), ctx)]
        assert [a.response.split()[:2] for a in answers] == [[f"seed={100 + i}", "choice=0"] for i in range(16)]
        assert server.count("no-n") == 16 and not any(a.error for a in answers)

        native = _spec(url, n_mode="native")
        got = [o.message for o in InferenceHandler(timeout_s=10).handle_batch(
            _requests(native, q, run="native", base=500), ctx)]
        assert got[0].response.startswith("seed=500 choice=0") and not got[0].error
        assert all(a.error == "model error: fake gave 1 of the 16 samples asked in one call, not choice "
                   f"{i}" for i, a in enumerate(got) if i) and all(not a.response for a in got[1:])
        assert server.count("no-n") == 17
    store.close()


def test_a_server_that_refuses_n_is_asked_one_sample_at_a_time(tmp_path: Path) -> None:
    """A server that answers a request for several choices with HTTP 400 (some hosted APIs take only one): the
    samples are asked one by one, each with its own seed, and the backend asks one by one from then on; with
    n_mode native the refusal is every sample's recorded error."""
    store, q = one_question_store(tmp_path / "refuse.db")
    ctx = HandlerContext(store=store, settings=Settings())
    with ThreadedFaultServer() as server:
        url = server.set("one", Scenario(max_n=1))
        handler = InferenceHandler(timeout_s=10)
        answers = [o.message for o in handler.handle_batch(_requests(_spec(url), q), ctx)]
        assert [a.response.split()[:2] for a in answers] == [[f"seed={100 + i}", "choice=0"] for i in range(16)]
        assert not any(a.error for a in answers) and server.count("one") == 1 + 16
        later = [o.message for o in handler.handle_batch(_requests(_spec(url), q, run="later", base=300), ctx)]
        assert not any(a.error for a in later) and server.count("one") == 1 + 16 + 16  # no n asked again

        native = [o.message for o in InferenceHandler(timeout_s=10).handle_batch(
            _requests(_spec(url, n_mode="native"), q, run="native", base=700), ctx)]
        assert {a.error.split(":")[0] for a in native} == {"model error"} and all(
            "n must be at most 1" in a.error for a in native)
    store.close()


def test_call_fields_out_of_range_are_the_requests_error(tmp_path: Path) -> None:
    store, q = one_question_store(tmp_path / "bad.db")
    ctx = HandlerContext(store=store, settings=Settings())
    with ThreadedFaultServer() as server:
        url = server.set("bad", Scenario())
        bad = _requests(_spec(url), q, size=4)
        bad[1].call_choice = 4
        bad[2].call_choice = -1
        bad[3].call_size = 1000
        out = [o.message for o in InferenceHandler(timeout_s=10).handle_batch(bad, ctx)]
        assert not out[0].error and out[0].response.startswith("seed=100 choice=0")
        assert out[1].error == ("request: choice 4 of a call of 4 samples (a choice from 0 below the call's size, "
                                "at most 256)")
        assert "choice -1 of a call of 4" in out[2].error and "choice 3 of a call of 1000" in out[3].error
        assert server.count("bad") == 1  # the bad requests ask nothing
        assert {r["id"] for r in store.select(schema.results)} == {r.id for r in bad}  # recorded, not lost
    store.close()


def test_the_cache_key_names_the_call_a_sample_was_drawn_from() -> None:
    """The samples of one call share its key (the call's seed and size); a sample asked alone, and the same seed
    drawn from a call of another size or seed, have other keys. The key of a sample asked alone is the recipe it
    always was (test_inference_cache_key.py)."""
    from livetab.models.base import ChatMessage

    model = common_pb2.ModelSpec(name="m", backend="openai", base_url="http://127.0.0.1:1/v1", model="m-1")
    messages = [ChatMessage(role="user", content="Which team?")]
    at = common_pb2.Sampling(temperature=0.7, top_p=0.9, max_tokens=32, seed=105)
    alone = cache_key(model, messages, at)
    assert cache_key(model, messages, at, call=(0, 0)) == alone == cache_key(model, messages, at, call=(1, 0))
    drawn = {cache_key(model, messages, at, call=(16, 5)), cache_key(model, messages, at, call=(8, 5)),
             cache_key(model, messages, at, call=(16, 4))}
    assert len(drawn) == 3 and alone not in drawn
    first = common_pb2.Sampling(temperature=0.7, top_p=0.9, max_tokens=32, seed=100)
    assert cache_key(model, messages, first, call=(16, 0)) == cache_key(model, messages, at, call=(16, 5))


def test_a_sample_cancelled_while_its_call_runs_leaves_the_call_to_the_others() -> None:
    """The samples of a call wait on it together (`_SharedCall.answers`): one whose coroutine is cancelled (the
    worker stopping, a deadline) stops waiting, and the call goes on for the others, asked once; a call that fails
    with an exception raises it in every sample still waiting, and one cancelled cancels them."""
    from livetab.models.base import Completion
    from livetab_inference.calls import CallOutcome
    from livetab_inference.handler import _SharedCall

    asked: list[int] = []

    async def main() -> None:
        release = asyncio.Event()

        async def call(model: Any, request: Any) -> CallOutcome:
            asked.append(1)
            await release.wait()
            return CallOutcome([Completion(text=f"a{i}") for i in range(3)])

        shared = _SharedCall(call, common_pb2.ModelSpec(name="m"), None, "k")  # type: ignore[arg-type]
        waiting = [asyncio.ensure_future(shared.answers()) for _ in range(3)]
        await asyncio.sleep(0)
        waiting[1].cancel()
        await asyncio.sleep(0)
        assert waiting[1].cancelled() and not waiting[0].done()
        release.set()
        firsts = [await waiting[0], await waiting[2]]
        assert [[a.response for a in f] for f in firsts] == [["a0", "a1", "a2"]] * 2
        assert asked == [1] and (await shared.answers())[2].response == "a2"  # a late sample: no second call

        async def broken(model: Any, request: Any) -> CallOutcome:
            await asyncio.sleep(0.01)
            raise RuntimeError("backend bug")

        failing = _SharedCall(broken, common_pb2.ModelSpec(name="m"), None, "k2")  # type: ignore[arg-type]
        results = await asyncio.gather(*(failing.answers() for _ in range(2)), return_exceptions=True)
        assert [str(r) for r in results] == ["backend bug", "backend bug"]

        stuck = _SharedCall(call, common_pb2.ModelSpec(name="m"), None, "k3")  # type: ignore[arg-type]
        release.clear()
        waiters = [asyncio.ensure_future(stuck.answers()) for _ in range(2)]
        await asyncio.sleep(0)
        assert stuck._task is not None
        stuck._task.cancel()
        results = await asyncio.gather(*waiters, return_exceptions=True)
        assert all(isinstance(r, asyncio.CancelledError) for r in results)

    asyncio.run(main())
