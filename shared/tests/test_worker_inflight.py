"""The in-flight worker: results published as they complete, commits only up to the oldest pending record,
at most `max_in_flight` pending across polls, failures dead-lettered, SIGTERM draining what it can.

The handler is a stand-in whose requests finish when the test says so (fault injection: it decides the
order of completion); the bus is the in-process one, which records committed offsets per group."""

from __future__ import annotations

import asyncio
import concurrent.futures as cf
import threading
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from google.protobuf.message import Message
from livetab.aioloop import BackgroundLoop
from livetab.bus import HandlerContext, InProcBus, Outgoing
from livetab.bus.base import Record
from livetab.bus.inflight import Begun, InFlightWorker, OffsetTracker, _Share
from livetab.store import open_store, schema
from livetab.v1 import inference_pb2, judgment_pb2

IN = "livetab.inference.results.v1"
OUT = "livetab.judgments.v1"


class Gated:
    """Each message's coroutine waits until `release(id)`; a message whose format is "boom" raises."""

    service = "judge"
    topics = [IN]

    def __init__(self) -> None:
        self.loop = BackgroundLoop("gated")
        self._gates: dict[str, asyncio.Event] = {}
        self.started: list[str] = []  # begun (taken and prepared)
        self.entered: list[str] = []  # their coroutines running (holding one of the worker's slots)
        self.finished_batches: list[list[str]] = []

    def _gate(self, key: str) -> asyncio.Event:
        return self._gates.setdefault(key, asyncio.Event())

    def release(self, *keys: str) -> None:
        async def go() -> None:
            for k in keys:
                self._gate(k).set()

        self.loop.run(go())

    def begin(self, messages: list[Message], ctx: HandlerContext) -> list[Coroutine[Any, Any, Any]]:
        async def one(m: inference_pb2.InferenceResult) -> str:
            self.entered.append(m.id)
            await self._gate(m.id).wait()
            if m.format == "boom":
                raise RuntimeError(f"{m.id} blew up")
            return m.id

        out = []
        for m in messages:
            assert isinstance(m, inference_pb2.InferenceResult)
            self.started.append(m.id)
            out.append(one(m))
        return out

    def finish(self, values: list[Any], ctx: HandlerContext) -> list[list[Outgoing]]:
        self.finished_batches.append(list(values))
        return [[Outgoing(OUT, judgment_pb2.Judgment(id=v, run_id="run-1"), message_id=v)] for v in values]

    def submit(self, coro: Coroutine[Any, Any, Any]) -> cf.Future[Any]:
        return self.loop.submit(coro)


def _streaming(handler: Gated, records: int, *, max_in_flight: int, read_ahead: int) -> tuple[InProcBus, InFlightWorker]:
    """`records` requests r0, r1, ... on the bus, taken by one streaming step of a new worker, and as many of them
    running as it has slots."""
    bus = InProcBus()
    for i in range(records):
        bus.publish(Outgoing(IN, inference_pb2.InferenceResult(id=f"r{i}", run_id="run-1")))
    worker = InFlightWorker(handler, bus, HandlerContext(store=None, settings=None), max_in_flight=max_in_flight,
                            poll_timeout_s=0, read_ahead=read_ahead)
    assert worker.advance() == min(records, max_in_flight + read_ahead)  # advance returns at once
    _until(lambda: len(handler.entered) == min(records, max_in_flight), "the slots' requests running")
    return bus, worker


def _interrupted(handler: Gated, method: str, on_call: int) -> list[list[Any]]:
    """`handler.<method>` (begin or finish) made to raise KeyboardInterrupt on its `on_call`-th call, as SIGINT's
    handler raises it in the middle of that work; each call's first argument is kept, as a list."""
    real, calls = getattr(handler, method), []

    def interrupted(first: list[Any], ctx: HandlerContext) -> Any:
        calls.append(list(first))
        if len(calls) == on_call:
            raise KeyboardInterrupt
        return real(first, ctx)

    setattr(handler, method, interrupted)
    return calls


def _until(cond: Callable[[], bool], what: str, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.01)


def _setup(tmp_path: Path, n: int, *, max_in_flight: int, drain_timeout_s: float = 5.0, boom: tuple[int, ...] = (),
           read_ahead: int | None = None) -> tuple[InProcBus, Gated, InFlightWorker, threading.Thread]:
    bus = InProcBus()
    for i in range(n):
        bus.publish(Outgoing(IN, inference_pb2.InferenceResult(id=f"r{i}", run_id="run-1",
                                                               format="boom" if i in boom else "")))
    handler = Gated()
    store = open_store(f"sqlite:///{tmp_path / 'w.db'}")
    worker = InFlightWorker(handler, bus, HandlerContext(store=store, settings=None), max_in_flight=max_in_flight,
                            poll_timeout_s=0.05, drain_timeout_s=drain_timeout_s, read_ahead=read_ahead)
    thread = threading.Thread(target=worker.run, daemon=True)
    thread.start()
    return bus, handler, worker, thread


def _published(bus: InProcBus) -> list[str]:
    return [judgment_pb2.Judgment.FromString(r.value).id for r in bus.records(OUT)]


def _committed(bus: InProcBus, worker: InFlightWorker) -> int:
    return len(bus.records(IN)) - bus.lag(worker.group, IN)


def test_results_publish_as_they_complete_and_commits_stop_at_the_oldest_pending(tmp_path: Path) -> None:
    bus, handler, worker, thread = _setup(tmp_path, 5, max_in_flight=8)
    try:
        _until(lambda: len(handler.started) == 5, "five started")
        handler.release("r2", "r3")
        _until(lambda: sorted(_published(bus)) == ["r2", "r3"], "r2 and r3 published")
        assert _committed(bus, worker) == 0  # r0 is pending: nothing committed past it
        handler.release("r0")
        _until(lambda: "r0" in _published(bus), "r0 published")
        _until(lambda: _committed(bus, worker) == 1, "offset 0 committed")
        time.sleep(0.1)
        assert _committed(bus, worker) == 1  # r1 still pending holds back r2 and r3
        handler.release("r1", "r4")
        _until(lambda: _committed(bus, worker) == 5, "all committed")
        assert sorted(_published(bus)) == [f"r{i}" for i in range(5)]  # each exactly once
    finally:
        worker.stop()
        thread.join(10)
    assert worker.alive and not thread.is_alive()


def test_at_most_max_in_flight_running_and_a_free_slot_is_filled_at_once(tmp_path: Path) -> None:
    bus, handler, worker, thread = _setup(tmp_path, 12, max_in_flight=4, read_ahead=2)
    try:
        _until(lambda: len(handler.entered) == 4 and len(handler.started) == 6, "four running, two read ahead")
        time.sleep(0.2)
        assert len(handler.entered) == 4 and len(handler.started) == 6 and worker.in_flight == 6
        handler.release("r3")  # the newest running one finishes: one slot frees, the oldest three still wait
        _until(lambda: len(handler.entered) == 5, "a fifth running")  # r4, prepared, takes the slot at once
        _until(lambda: _published(bus) == ["r3"], "r3 published")
        _until(lambda: len(handler.started) == 7, "one more read ahead")  # the freed place refilled
        assert handler.entered == ["r0", "r1", "r2", "r3", "r4"] and worker.in_flight == 6
        handler.release(*(f"r{i}" for i in range(12)))
        _until(lambda: _committed(bus, worker) == 12, "all committed")
        assert sorted(_published(bus)) == sorted(f"r{i}" for i in range(12))
    finally:
        worker.stop()
        thread.join(10)


def test_what_is_due_to_be_finished_is_finished_before_the_next_polls_preparation(tmp_path: Path) -> None:
    """A completion due to be finished (here at once: `finish_interval_s` 0) is stored and published before the
    worker polls again and prepares what it took (`begin`: the store reads of up to a read-ahead's requests,
    tens of milliseconds each on a busy machine); the freed slot does not wait for that poll, the read-ahead's
    prepared request takes it. (Before, the poll that tops the read-ahead up came first, and every answer
    waited for it.)"""
    events: list[tuple[str, list[str]]] = []

    class Logged(Gated):
        def begin(self, messages: list[Message], ctx: HandlerContext) -> list[Coroutine[Any, Any, Any]]:
            events.append(("begin", [m.id for m in messages]))  # type: ignore[attr-defined]
            return super().begin(messages, ctx)

        def finish(self, values: list[Any], ctx: HandlerContext) -> list[list[Outgoing]]:
            events.append(("finish", list(values)))
            return super().finish(values, ctx)

    bus = InProcBus()
    for i in range(6):
        bus.publish(Outgoing(IN, inference_pb2.InferenceResult(id=f"r{i}", run_id="run-1")))
    handler = Logged()
    worker = InFlightWorker(handler, bus, HandlerContext(store=None, settings=None), max_in_flight=2, read_ahead=1,
                            poll_timeout_s=0.05, finish_interval_s=0.0)
    bus_poll = worker.consumer.poll
    worker.consumer.poll = lambda n, timeout: bus_poll(min(n, 1), timeout)  # type: ignore[method-assign]
    thread = threading.Thread(target=worker.run, daemon=True)
    thread.start()
    try:
        _until(lambda: len(handler.started) == 3 and len(handler.entered) == 2, "two running, one read ahead")
        handler.release("r0")
        _until(lambda: _published(bus) == ["r0"], "r0 published")
        _until(lambda: len(handler.entered) == 3 and len(handler.started) == 4, "r2 running, r3 read ahead")
        done = events.index(("finish", ["r0"]))
        assert events[done - 1] == ("begin", ["r2"]) and events[done + 1] == ("begin", ["r3"]), events
        handler.release(*(f"r{i}" for i in range(6)))
        _until(lambda: _committed(bus, worker) == 6, "all committed")
        assert sorted(_published(bus)) == [f"r{i}" for i in range(6)]
    finally:
        worker.stop()
        thread.join(10)


def test_stopping_starts_no_read_ahead_record_and_leaves_it_uncommitted(tmp_path: Path) -> None:
    bus, handler, worker, thread = _setup(tmp_path, 6, max_in_flight=2, read_ahead=4, drain_timeout_s=5.0)
    _until(lambda: len(handler.started) == 6 and len(handler.entered) == 2, "two running, four read ahead")
    worker.stop()
    handler.release(*(f"r{i}" for i in range(6)))  # the two running finish; the four waiting never start
    thread.join(10)
    assert not thread.is_alive() and worker.alive
    assert handler.entered == ["r0", "r1"] and sorted(_published(bus)) == ["r0", "r1"]
    assert _committed(bus, worker) == 2


def test_a_failing_request_is_dead_lettered_and_committed(tmp_path: Path) -> None:
    bus, handler, worker, thread = _setup(tmp_path, 3, max_in_flight=8, boom=(1,))
    try:
        _until(lambda: len(handler.started) == 3, "three started")
        handler.release("r0", "r1", "r2")
        _until(lambda: _committed(bus, worker) == 3, "all committed")
    finally:
        worker.stop()
        thread.join(10)
    assert sorted(_published(bus)) == ["r0", "r2"]
    (letter,) = worker.ctx.store.select(schema.dead_letters)
    assert (letter["offset"], letter["run_id"]) == (1, "") and "r1 blew up" in letter["error"]
    assert len(bus.records("livetab.dlq.v1")) == 1 and worker.alive


def test_stopping_drains_what_finishes_and_leaves_the_rest_uncommitted(tmp_path: Path) -> None:
    bus, handler, worker, thread = _setup(tmp_path, 4, max_in_flight=8, drain_timeout_s=0.5)
    _until(lambda: len(handler.entered) == 4, "four running")
    worker.stop()
    handler.release("r0", "r2")  # r1 never finishes: r2 is published but cannot be committed past r1
    thread.join(10)
    assert not thread.is_alive()
    assert sorted(_published(bus)) == ["r0", "r2"]
    assert _committed(bus, worker) == 1
    # a restarted worker takes the uncommitted ones again (r2 a second time: at least once, deduplicated by id)
    handler2 = Gated()
    w2 = InFlightWorker(handler2, bus, worker.ctx, max_in_flight=8, poll_timeout_s=0)
    handler2.release("r1", "r2", "r3")
    w2.run(until_idle=True)
    assert handler2.started == ["r1", "r2", "r3"] and _committed(bus, w2) == 4


def test_run_once_waits_for_everything_it_polled(tmp_path: Path) -> None:
    bus = InProcBus()
    for i in range(6):
        bus.publish(Outgoing(IN, inference_pb2.InferenceResult(id=f"r{i}", run_id="run-1")))
    handler = Gated()
    handler.release(*(f"r{i}" for i in range(6)))
    worker = InFlightWorker(handler, bus, HandlerContext(store=None, settings=None), max_in_flight=4,
                            poll_timeout_s=0, read_ahead=0)
    assert worker.run_once() == 4 and _committed(bus, worker) == 4 and worker.in_flight == 0
    assert worker.run_once() == 2 and worker.run_once() == 0
    assert sorted(_published(bus)) == sorted(f"r{i}" for i in range(6))


def test_advance_finishes_what_completed_without_waiting_for_the_rest(tmp_path: Path) -> None:
    """Embedded mode's streaming step: a completed request is stored and published while the others are still in
    flight, and what completed is kept when the caller stops early (Ctrl-C)."""
    handler = Gated()
    bus, worker = _streaming(handler, 4, max_in_flight=4, read_ahead=0)
    handler.release("r1")
    deadline = time.monotonic() + 10
    while _published(bus) != ["r1"]:
        assert time.monotonic() < deadline, "r1 was not published while the others ran"
        worker.advance(wait_s=0.02)
    assert worker.busy and worker.in_flight == 3 and _committed(bus, worker) == 0  # r0 still pending
    handler.release("r0")
    _until(lambda: worker._done.qsize() > 0, "r0 completed")
    assert worker.finish_completed() == 1 and sorted(_published(bus)) == ["r0", "r1"]
    assert _committed(bus, worker) == 2
    handler.release("r2", "r3")
    while worker.busy:
        assert time.monotonic() < deadline, "r2 and r3 were not finished"
        worker.advance(wait_s=0.02)
    assert sorted(_published(bus)) == [f"r{i}" for i in range(4)] and _committed(bus, worker) == 4


def test_a_ctrl_c_while_completed_requests_are_stored_loses_none_of_them(tmp_path: Path) -> None:
    """Ctrl-C lands while a streaming step stores what completed (the store write is where a step spends its
    time, and the slot it freed was refilled just before, so that is when a watcher sees the next request go
    out). What was being stored stays held: `finish_completed` stores it, and a resumed run does not ask it
    again. (Before, the step had taken it off the held list first, and it was lost.)"""
    handler = Gated()
    calls = _interrupted(handler, "finish", on_call=1)  # in the middle of the store write
    bus, worker = _streaming(handler, 3, max_in_flight=3, read_ahead=0)
    handler.release("r0", "r1")
    _until(lambda: worker._done.qsize() == 2, "r0 and r1 completed")
    deadline = time.monotonic() + 10
    try:
        while True:
            assert time.monotonic() < deadline, "r0 and r1 were never finished"
            worker.advance(wait_s=0.02)
    except KeyboardInterrupt:
        pass
    assert sorted(calls[0]) == ["r0", "r1"] and _published(bus) == []
    assert worker.finish_completed() == 2  # what the interrupted step was storing
    assert sorted(_published(bus)) == ["r0", "r1"] and _committed(bus, worker) == 2
    assert worker.in_flight == 1  # r2 still running: not finished, not committed
    handler.release("r2")
    while worker.busy:
        assert time.monotonic() < deadline, "r2 was not finished"
        worker.advance(wait_s=0.02)
    assert sorted(_published(bus)) == ["r0", "r1", "r2"] and _committed(bus, worker) == 3


def test_a_ctrl_c_while_the_freed_slot_is_refilled_loses_nothing_that_completed(tmp_path: Path) -> None:
    """Ctrl-C lands while a streaming step refills the slot a completion freed (the next record's preparation:
    the store reads of `begin`). That is also when a watcher sees the next request go out, so it is where a Ctrl-C
    often lands. What completed is held before the refill: `finish_completed` stores it. (Before, it was off
    the pending set and not yet held, and it was lost: `livetab eval` asked it again when resumed, CI run of
    stop 32.) Then a completion that the interrupt found still pending, its queue entry already taken, is
    finished too."""
    handler = Gated()
    begun = _interrupted(handler, "begin", on_call=2)  # during the refill's store reads
    bus, worker = _streaming(handler, 4, max_in_flight=2, read_ahead=0)
    handler.release("r0")
    _until(lambda: worker._done.qsize() == 1, "r0 completed")
    try:
        worker.advance(wait_s=1.0)
        raise AssertionError("the refill was not interrupted")
    except KeyboardInterrupt:
        pass
    assert [[m.id for m in call] for call in begun] == [["r0", "r1"], ["r2"]] and _published(bus) == []
    assert worker.finish_completed() == 1 and _published(bus) == ["r0"] and _committed(bus, worker) == 1
    handler.release("r1")
    _until(lambda: worker._done.qsize() == 1, "r1 completed")
    assert worker._wait(0.0) and worker.in_flight == 1  # its completion taken, as an interrupt might leave it
    assert worker.finish_completed() == 1 and sorted(_published(bus)) == ["r0", "r1"]
    assert worker.finish_completed() == 0 and not worker.busy  # nothing finished twice


def test_settle_keeps_the_answers_in_flight_and_starts_nothing_more(tmp_path: Path) -> None:
    """Ctrl-C in embedded mode: the requests already running are waited for, up to a grace, and stored (they are
    asked and paid for: a resumed run would ask them again); the read-ahead ones waiting for a slot are not started
    and stay uncommitted, for the resumed run to take."""
    handler = Gated()
    bus, worker = _streaming(handler, 4, max_in_flight=2, read_ahead=2)
    assert worker.running == 2
    t0 = time.monotonic()
    assert worker.settle(0.2) == 0 and time.monotonic() - t0 >= 0.2  # nothing came back within the grace
    assert worker.running == 2 and _published(bus) == []
    threading.Timer(0.2, handler.release, ("r0", "r1")).start()
    assert worker.settle(10.0) == 2
    assert sorted(_published(bus)) == ["r0", "r1"] and _committed(bus, worker) == 2
    time.sleep(0.1)  # the freed slots' waiting coroutines had their chance to start
    assert handler.entered == ["r0", "r1"] and worker.running == 0


def test_a_second_ctrl_c_ends_the_wait_and_keeps_what_came_back(tmp_path: Path) -> None:
    """A second Ctrl-C while `settle` waits: it stops waiting, and the answer that had come back is stored."""
    handler = Gated()
    bus, worker = _streaming(handler, 2, max_in_flight=2, read_ahead=0)
    handler.release("r0")
    _until(lambda: worker._done.qsize() == 1, "r0 completed")
    real_wait, waits = worker._wait, []

    def wait(timeout_s: float, *, gather: bool = False) -> list[cf.Future[Any]]:
        waits.append(timeout_s)
        if len(waits) == 2:
            raise KeyboardInterrupt  # the second Ctrl-C, r1 still running
        return real_wait(timeout_s, gather=gather)

    worker._wait = wait  # type: ignore[method-assign]
    try:
        worker.settle(10.0)
        raise AssertionError("the wait was not interrupted")
    except KeyboardInterrupt:
        pass
    assert _published(bus) == ["r0"] and worker.running == 1


class Grouped(Gated):
    """Gated, but the messages of one begin with the same `setting` share a slot (as a model call's samples do)."""

    def begin(self, messages: list[Message], ctx: HandlerContext) -> list[Coroutine[Any, Any, Any]]:
        return Begun(super().begin(messages, ctx), [m.setting or None for m in messages])


def test_requests_that_share_a_call_take_one_slot_between_them(tmp_path: Path) -> None:
    """One slot and one unit read ahead: the three samples of call a (taken by two polls) run together on the one
    slot; b's first sample, taken and prepared, waits until the last of a's is done; b's others, taken later, join
    b's slot at once; a request of its own (r6) waits for a slot of its own. (Before, every sample held a slot:
    max_in_flight samples were max_in_flight / 16 model calls of 16.)"""
    bus = InProcBus()
    for i in range(7):
        bus.publish(Outgoing(IN, inference_pb2.InferenceResult(id=f"r{i}", run_id="run-1",
                                                               setting="ab"[i // 3] if i < 6 else "")))
    handler = Grouped()
    worker = InFlightWorker(handler, bus, HandlerContext(store=None, settings=None), max_in_flight=1,
                            poll_timeout_s=0, read_ahead=1)
    deadline = time.monotonic() + 10

    def until(cond: Callable[[], bool], what: str) -> None:
        while not cond():
            assert time.monotonic() < deadline, f"{what}: taken {handler.started}, running {handler.entered}"
            worker.advance(wait_s=0.01)

    until(lambda: len(handler.started) == 4 and len(handler.entered) == 3, "a's three running, r3 read ahead")
    time.sleep(0.1)
    worker.advance()
    assert handler.entered == ["r0", "r1", "r2"] and handler.started == ["r0", "r1", "r2", "r3"]  # two units
    handler.release("r0", "r1")
    until(lambda: sorted(_published(bus)) == ["r0", "r1"], "r0 and r1 finished")
    time.sleep(0.1)
    worker.advance()
    assert handler.entered == ["r0", "r1", "r2"] and len(handler.started) == 4  # r2 still holds a's slot
    handler.release("r2")
    until(lambda: len(handler.started) == 7 and len(handler.entered) == 6, "b's three running, r6 taken")
    time.sleep(0.1)
    worker.advance()
    assert handler.entered == [f"r{i}" for i in range(6)]  # r6 waits for a slot of its own
    handler.release("r3", "r4", "r5", "r6")
    until(lambda: _committed(bus, worker) == 7, "everything committed")
    assert sorted(_published(bus)) == [f"r{i}" for i in range(7)] and handler.entered[-1] == "r6"
    assert not worker.busy and worker._units == 0 and not worker._groups
    assert worker._slots is not None and worker._slots._value == 1  # the slot given back


def test_a_shared_slot_is_taken_over_when_its_taker_is_cancelled_and_given_back_by_the_last() -> None:
    async def go() -> None:
        slots = asyncio.Semaphore(1)
        await slots.acquire()  # the one slot busy: the group waits for it
        share, order = _Share("call"), []

        async def member(name: str) -> None:
            await share.enter(slots)
            try:
                order.append(name)
                await asyncio.sleep(0.01)
            finally:
                share.leave(slots)

        async def cancelled_member() -> None:
            try:
                await share.enter(slots)
            except asyncio.CancelledError:
                share.leave(slots)
                raise

        taker = asyncio.ensure_future(cancelled_member())
        others = [asyncio.ensure_future(member(n)) for n in ("m1", "m2")]
        await asyncio.sleep(0.01)
        taker.cancel()  # cancelled while it waits for the slot: m1 or m2 takes over the taking
        await asyncio.sleep(0.01)
        assert order == [] and share.inside == 2
        slots.release()
        await asyncio.gather(*others)
        assert sorted(order) == ["m1", "m2"] and share.inside == 0 and not share.held
        assert slots._value == 1  # given back once, by the last member out

    asyncio.run(go())


class SharedCalls(Gated):
    """As the inference handler: the messages with one `setting` are the samples of one call, which the first of
    them to run asks (its gate: `release(setting)`) and the others wait on; a message whose format is "boom"
    raises once the call is answered. `Begun(serial=True)`, started with `submit_many`; every task the handler's
    loop creates is counted."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: dict[str, asyncio.Future[None]] = {}
        self.asked: list[str] = []
        self.tasks = 0
        loop = self.loop._started()

        def counting(lp: asyncio.AbstractEventLoop, coro: Any, **kw: Any) -> asyncio.Task[Any]:
            self.tasks += 1
            return asyncio.Task(coro, loop=lp, **kw)

        loop.call_soon_threadsafe(loop.set_task_factory, counting)

    async def _ask(self, key: str) -> None:
        self.asked.append(key)
        await self._gate(key).wait()

    def begin(self, messages: list[Message], ctx: HandlerContext) -> list[Coroutine[Any, Any, Any]]:
        async def one(m: inference_pb2.InferenceResult) -> str:
            self.entered.append(m.id)
            call = self.calls.get(m.setting)
            if call is None:
                call = self.calls[m.setting] = asyncio.ensure_future(self._ask(m.setting))
            await call
            if m.format == "boom":
                raise RuntimeError(f"{m.id} blew up")
            return m.id

        for m in messages:
            self.started.append(m.id)
        return Begun([one(m) for m in messages], [m.setting for m in messages], serial=True)  # type: ignore[arg-type]

    def submit_many(self, coros: list[Coroutine[Any, Any, Any]]) -> list[Any]:
        return self.loop.submit_many(coros)


def _calls(tmp_path: Path, calls: str, samples: int, *, max_in_flight: int, boom: tuple[int, ...] = ()
           ) -> tuple[InProcBus, SharedCalls, InFlightWorker, threading.Thread]:
    bus = InProcBus()
    for i in range(len(calls) * samples):
        bus.publish(Outgoing(IN, inference_pb2.InferenceResult(id=f"r{i}", run_id="run-1", setting=calls[i // samples],
                                                               format="boom" if i in boom else "")))
    handler = SharedCalls()
    worker = InFlightWorker(handler, bus, HandlerContext(store=open_store(f"sqlite:///{tmp_path / 'c.db'}"),
                                                         settings=None),
                            max_in_flight=max_in_flight, poll_timeout_s=0.05, drain_timeout_s=5.0,
                            read_ahead=len(calls) * samples)
    thread = threading.Thread(target=worker.run, daemon=True)
    thread.start()
    return bus, handler, worker, thread


def test_the_samples_of_a_call_taken_by_one_poll_run_in_one_task_on_one_slot(tmp_path: Path) -> None:
    """Three calls of four samples, two slots: one task per call's samples (and one for the call itself), not one
    per sample; the third call waits for a slot; a sample that fails is dead-lettered, its call's others are
    published."""
    bus, handler, worker, thread = _calls(tmp_path, "abc", 4, max_in_flight=2, boom=(5,))
    try:
        _until(lambda: len(handler.started) == 12 and handler.asked == ["a", "b"], "a and b asked, c waiting")
        time.sleep(0.1)
        assert handler.asked == ["a", "b"] and handler.entered == ["r0", "r4"]  # the first sample of each asks
        assert handler.tasks == 5  # three groups' tasks and the two calls asked (twelve and two before)
        handler.release("a")
        _until(lambda: sorted(_published(bus)) == ["r0", "r1", "r2", "r3"], "a's samples published")
        _until(lambda: handler.asked == ["a", "b", "c"], "c asked on a's slot")
        handler.release("b", "c")
        _until(lambda: _committed(bus, worker) == 12, "all committed")
    finally:
        worker.stop()
        thread.join(10)
    assert sorted(_published(bus)) == sorted(f"r{i}" for i in range(12) if i != 5)
    (letter,) = worker.ctx.store.select(schema.dead_letters)
    assert letter["offset"] == 5 and "r5 blew up" in letter["error"]
    assert handler.tasks == 6 + 2  # c's call, and a task for each of the test's two releases
    assert not worker.busy and worker._units == 0 and not worker._groups
    assert worker._slots is not None and worker._slots._value == 2 and not worker._running


def test_stopping_starts_no_waiting_call_and_leaves_its_samples_uncommitted(tmp_path: Path) -> None:
    bus, handler, worker, thread = _calls(tmp_path, "ab", 3, max_in_flight=1)
    _until(lambda: len(handler.started) == 6 and handler.asked == ["a"], "a asked, b waiting for the slot")
    worker.stop()
    handler.release("a", "b")  # a's samples finish; b's never start
    thread.join(10)
    assert not thread.is_alive() and worker.alive
    assert handler.asked == ["a"] and sorted(_published(bus)) == ["r0", "r1", "r2"]
    assert _committed(bus, worker) == 3 and not worker._running


def test_offset_tracker_commits_only_the_contiguous_finished_prefix() -> None:
    t = OffsetTracker()
    recs = [Record("t", p, o, None, b"") for p in (0, 1) for o in (10, 11, 12)]
    for r in recs:
        t.take(r)
    t.finish(recs[1])  # t/0@11
    t.finish(recs[3])  # t/1@10
    assert [(r.partition, r.offset) for r in t.committable()] == [(1, 10)]
    t.finish(recs[0])
    assert [(r.partition, r.offset) for r in t.committable()] == [(0, 11)]
    assert t.committable() == [] and t.pending() == 3
