"""One asyncio loop in a background thread, so a synchronous handler can drive async model clients and
keep their sessions (connection pools) alive between batches. Started on first use."""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

__all__ = ["BackgroundLoop"]

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

    def submit_many(self, coros: list[Coroutine[Any, Any, T]]) -> list[concurrent.futures.Future[T]]:
        """Start every coroutine of `coros` on the loop with one wake-up of its thread (a wake-up per
        coroutine is a write to the loop's self-pipe each); their futures, in order (cancelling one
        cancels its task)."""
        loop = self._started()
        futures: list[concurrent.futures.Future[T]] = [concurrent.futures.Future() for _ in coros]

        def start() -> None:
            for coro, fut in zip(coros, futures, strict=True):
                if fut.cancelled():  # cancelled before it started
                    coro.close()
                    continue
                task = loop.create_task(coro)
                task.add_done_callback(functools.partial(_settle, fut))
                fut.add_done_callback(functools.partial(_cancel_task, loop, task))

        loop.call_soon_threadsafe(start)
        return futures


def _cancel_task(loop: asyncio.AbstractEventLoop, task: asyncio.Task[Any], fut: concurrent.futures.Future[Any]) -> None:
    if fut.cancelled():
        loop.call_soon_threadsafe(task.cancel)


def _settle(fut: concurrent.futures.Future[T], task: asyncio.Task[T]) -> None:
    """Copy a finished task's outcome onto its concurrent future (unless that was cancelled meanwhile)."""
    if task.cancelled():
        fut.cancel()
    if not fut.set_running_or_notify_cancel():  # cancelled (here or by its owner)
        return
    exc = task.exception()
    if exc is not None:
        fut.set_exception(exc)
    else:
        fut.set_result(task.result())
