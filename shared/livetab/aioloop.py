"""One asyncio loop in a background thread, so a synchronous handler can drive async model clients and
keep their sessions (connection pools) alive between batches. Started on first use."""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
from collections.abc import Callable, Coroutine
from typing import Any, Generic, TypeVar

__all__ = ["BackgroundLoop", "Handoff"]

log = logging.getLogger(__name__)

T = TypeVar("T")


class BackgroundLoop:
    def __init__(self, name: str) -> None:
        self._name = name
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock = threading.Lock()

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run `coro` on the loop and wait for its result."""
        return self.submit(coro).result()

    def _started(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                self._loop = asyncio.new_event_loop()
                threading.Thread(target=self._loop.run_forever, daemon=True, name=self._name).start()
            return self._loop

    def submit(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        """Start `coro` on the loop; its future (cancelling it cancels the task)."""
        return asyncio.run_coroutine_threadsafe(coro, self._started())

    def submit_many(self, coros: list[Coroutine[Any, Any, T]]) -> list[Handoff[T]]:
        """Start every coroutine of `coros` on the loop with one wake-up of its thread (a wake-up per
        coroutine is a write to the loop's self-pipe each); their outcomes (`Handoff`), in order (cancelling one
        cancels its task, or closes its coroutine unstarted)."""
        loop = self._started()
        futures: list[Handoff[T]] = [Handoff() for _ in coros]

        def start() -> None:
            for coro, fut in zip(coros, futures, strict=True):
                if fut.cancelled():  # cancelled before it started
                    coro.close()
                    continue
                task = loop.create_task(coro)
                task.add_done_callback(fut._settle)
                fut.attach(task)

        loop.call_soon_threadsafe(start)
        return futures


_PENDING, _CANCELLED, _FINISHED = 0, 1, 2


class Handoff(Generic[T]):
    """The outcome of a coroutine that `submit_many` started on the loop, for the thread that asked: the part of
    `concurrent.futures.Future` the in-flight worker uses (`done`, `result`, `exception`, `cancel`, `cancelled`,
    `add_done_callback`), with one plain lock where that keeps a `threading.Condition` per future and takes it
    for every question (a future for each of the sixteen samples of a call: ~14 % of the inference service's
    time in `python -m bench pipeline`, 6 December 2026). Settled once, on the loop (the task's result,
    exception or cancellation) or by `cancel` from any thread, whichever comes first; callbacks run once, in the
    thread that settled it, or at once in the caller's when it is already settled. `result` and `exception`
    of a cancelled one raise `concurrent.futures.CancelledError`, as a `concurrent.futures.Future` does."""

    __slots__ = ("_callbacks", "_exception", "_lock", "_result", "_state", "_task")

    def __init__(self) -> None:
        self._state = _PENDING
        self._result: T | None = None
        self._exception: BaseException | None = None
        self._callbacks: list[Callable[[Handoff[T]], object]] = []
        self._lock = threading.Lock()
        self._task: asyncio.Task[T] | None = None

    def done(self) -> bool:
        return self._state != _PENDING

    def cancelled(self) -> bool:
        return self._state == _CANCELLED

    def cancel(self) -> bool:
        """Cancel it unless it is finished: its task is cancelled on the loop (or its coroutine never starts).
        True if it is cancelled now."""
        with self._lock:
            if self._state == _FINISHED:
                return False
            if self._state == _CANCELLED:
                return True
            self._state = _CANCELLED
            callbacks, self._callbacks = self._callbacks, []
            task = self._task
        if task is not None:
            task.get_loop().call_soon_threadsafe(task.cancel)
        self._run(callbacks)
        return True

    def result(self, timeout: float | None = None) -> T:
        self._wait(timeout)
        if self._exception is not None:
            raise self._exception
        return self._result  # type: ignore[return-value]

    def exception(self, timeout: float | None = None) -> BaseException | None:
        self._wait(timeout)
        return self._exception

    def add_done_callback(self, fn: Callable[[Handoff[T]], object]) -> None:
        with self._lock:
            if self._state == _PENDING:
                self._callbacks.append(fn)
                return
        self._run([fn])

    def _wait(self, timeout: float | None) -> None:
        if self._state == _PENDING:
            settled = threading.Event()
            self.add_done_callback(lambda _: settled.set())
            if not settled.wait(timeout):
                raise TimeoutError(f"not settled within {timeout} s")
        if self._state == _CANCELLED:
            raise concurrent.futures.CancelledError()

    def attach(self, task: asyncio.Task[T]) -> None:
        """On the loop: `task` is what makes this outcome (it is running), so cancelling this cancels it; one
        cancelled before it began has its task cancelled here. Its own task's (`submit_many`), or one that runs
        several coroutines in turn and hands back each one's outcome (the in-flight worker's slot groups)."""
        with self._lock:
            self._task = task
            cancelled = self._state == _CANCELLED
        if cancelled:
            task.cancel()

    def _settle(self, task: asyncio.Task[T]) -> None:
        """The task's done callback, on the loop: its outcome, unless this was cancelled first."""
        if task.cancelled():
            self.cancel()
            return
        exc = task.exception()
        self._set(task.result() if exc is None else None, exc)

    def set_result(self, value: T) -> None:
        """Settle it with `value` (a coroutine that settles the outcomes of several, `InFlightWorker`'s groups),
        unless it was cancelled first."""
        self._set(value, None)

    def set_exception(self, exc: BaseException) -> None:
        self._set(None, exc)

    def _set(self, value: T | None, exc: BaseException | None) -> None:
        with self._lock:
            if self._state != _PENDING:
                return
            self._result, self._exception = value, exc
            self._state = _FINISHED
            callbacks, self._callbacks = self._callbacks, []
        self._run(callbacks)

    def _run(self, callbacks: list[Callable[[Handoff[T]], object]]) -> None:
        for fn in callbacks:
            try:
                fn(self)
            except Exception:
                log.exception("a done callback of %r raised", self)

