"""The background loop's hand-off of coroutine outcomes to the thread that started them (`Handoff`): what the
in-flight worker relies on, as a `concurrent.futures.Future` would give it."""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
import time
from typing import Any

import pytest
from livetab.aioloop import BackgroundLoop, Handoff


async def _value(v: Any, after_s: float = 0.0) -> Any:
    await asyncio.sleep(after_s)
    return v


async def _fail() -> None:
    raise ValueError("no answer")


def test_outcomes_come_back_in_order_with_their_exceptions_and_callbacks() -> None:
    loop = BackgroundLoop("handoff")
    futures = loop.submit_many([_value(1, 0.02), _fail(), _value("x")])
    seen: list[Any] = []
    futures[0].add_done_callback(seen.append)
    assert futures[0].result(timeout=5) == 1 and futures[2].result(timeout=5) == "x"
    with pytest.raises(ValueError, match="no answer"):
        futures[1].result(timeout=5)
    assert isinstance(futures[1].exception(), ValueError)
    assert seen == [futures[0]] and all(f.done() and not f.cancelled() for f in futures)
    late: list[Any] = []
    futures[2].add_done_callback(late.append)  # settled already: the callback runs at once, here
    assert late == [futures[2]]
    assert futures[0].cancel() is False and futures[0].result() == 1  # a finished one stays finished


def test_a_cancelled_outcome_cancels_its_task_and_one_cancelled_before_it_starts_never_runs() -> None:
    loop = BackgroundLoop("handoff-cancel")
    ran: list[str] = []
    cancelled_inside = threading.Event()

    async def slow() -> None:
        ran.append("slow")
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled_inside.set()
            raise

    async def never() -> None:
        ran.append("never")

    (running,) = loop.submit_many([slow()])
    deadline = time.monotonic() + 5
    while "slow" not in ran and time.monotonic() < deadline:
        time.sleep(0.005)
    calls: list[Any] = []
    running.add_done_callback(calls.append)
    assert running.cancel() is True and running.cancelled() and calls == [running]
    assert cancelled_inside.wait(5)  # its task was cancelled on the loop
    with pytest.raises(concurrent.futures.CancelledError):
        running.result()

    # cancelled before the loop starts it: its coroutine is closed, never run
    blocker = threading.Event()
    loop._started().call_soon_threadsafe(blocker.wait, 5)  # the loop's thread is busy until set
    (unstarted,) = loop.submit_many([never()])
    assert unstarted.cancel() is True
    blocker.set()
    time.sleep(0.1)
    assert ran == ["slow"]
    with pytest.raises(concurrent.futures.CancelledError):
        unstarted.exception()


def test_a_result_asked_before_it_is_settled_waits_for_it_or_times_out() -> None:
    loop = BackgroundLoop("handoff-wait")
    (fut,) = loop.submit_many([_value(7, 0.05)])
    assert not fut.done()
    assert fut.result(timeout=5) == 7
    (slow,) = loop.submit_many([_value(8, 5)])
    with pytest.raises(TimeoutError):
        slow.result(timeout=0.01)
    slow.cancel()


def test_a_callback_that_raises_does_not_stop_the_others(caplog: pytest.LogCaptureFixture) -> None:
    fut: Handoff[int] = Handoff()
    seen: list[int] = []

    def bad(_: Any) -> None:
        raise RuntimeError("callback bug")

    fut.add_done_callback(bad)
    fut.add_done_callback(lambda f: seen.append(1))
    assert fut.cancel() is True and seen == [1]
    assert "callback bug" in caplog.text
