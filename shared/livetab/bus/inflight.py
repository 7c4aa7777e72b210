"""The in-flight worker: many records' work pending at once, across polls, each published as it completes.

For a handler whose work is mostly waiting (model calls), a batch loop waits for the slowest record of
each batch before it takes the next one. This loop instead keeps up to `max_in_flight` slots' work running
(a slot: one record's work, or a group's that shares one), and up to `read_ahead` more taken and prepared,
waiting for a slot:

  poll while fewer than `max_in_flight + read_ahead` slots' work is pending → `handler.begin(messages)` gives
  one coroutine per message (its synchronous preparation, e.g. store reads, batched) → the coroutines are
  started together on the handler's event loop, each taking one of `max_in_flight` slots first (so a slot
  freed by a completion is taken by a prepared coroutine on the loop at once, as in a plain asyncio loop;
  coroutines that `begin` says share a slot, `Begun.shares`, e.g. the samples of one model call, take one
  between them: the first to start takes it, the last to end gives it back)
  → whatever completed is handed to `handler.finish(values)` (store effects, batched) and its outputs
  published → at most every `commit_interval_s`, the producer flushed (every published output
  acknowledged) and then offsets committed per partition up to, never past, the oldest record still
  pending (completed offsets are tracked; only the contiguous finished prefix is committed). A slot freed
  by a completion is taken at once by a coroutine the read-ahead prepared; in the served loop (`run`) the
  next poll, which tops the read-ahead up, waits while completions are due to be finished
  (`finish_interval_s`), so a poll's preparation never holds finished answers back from the next stage.

So a crash loses nothing (an uncommitted record is polled again; what it published is deduplicated by
message id downstream, and the handler's own cache makes the second pass cheap), and one slow record
holds back only the commit, not the others. Dead letters, `Retryable` (every pending record is abandoned,
the consumer rewound to its committed offsets, then a back-off) and SIGTERM (stop polling, start nothing
new, finish what is running within `drain_timeout_s`, commit the finished prefix, abandon the rest) work
as in `Worker`. `run_once` polls once and waits for everything it took; `advance` (embedded mode) takes one
streaming step and returns without waiting for what is still in flight.
"""

from __future__ import annotations

import asyncio
import concurrent.futures as cf
import logging
import queue
import time
from collections import deque
from collections.abc import Callable, Coroutine, Hashable
from typing import Any, Protocol

from google.protobuf.message import Message

from livetab.aioloop import Handoff
from livetab.bus.base import Bus, Outgoing, PoisonMessage, Record, Retryable, decode, header_maker
from livetab.bus.worker import HandlerContext, Worker, WorkerStats, run_of

__all__ = ["Begun", "InFlightHandler", "InFlightWorker", "OffsetTracker"]

log = logging.getLogger(__name__)
MAX_SHARE = 256  # the most records a poll asks for per slot's work (a model call's most samples)
LOG_EVERY_S = 5.0  # one progress line per this many seconds (a line per completion would flood the log)


class InFlightHandler(Protocol):
    service: str
    topics: list[str]

    def begin(self, messages: list[Message], ctx: HandlerContext) -> list[Coroutine[Any, Any, Any]]:
        """One coroutine per message, in order (a `Begun` where some share a slot); raise PoisonMessage for a
        message that cannot be handled."""

    def finish(self, values: list[Any], ctx: HandlerContext) -> list[list[Outgoing]]:
        """Store the effects of completed coroutines' values; the outputs of each, in order."""

    def submit(self, coro: Coroutine[Any, Any, Any]) -> cf.Future[Any]:
        """Run `coro` on the handler's event loop (where its clients live). A handler may also have
        `submit_many(coros) -> futures`, which the worker then uses to start a poll's coroutines together."""


class Outcome(Protocol):
    """What the worker holds for a started coroutine: a `concurrent.futures.Future` (`handler.submit`) or what
    `submit_many` gives (`livetab.aioloop.Handoff`): settled on the handler's loop, read on the worker's thread."""

    def done(self) -> bool: ...

    def result(self, timeout: float | None = None) -> Any: ...

    def cancel(self) -> bool: ...

    def add_done_callback(self, fn: Callable[[Any], object]) -> None: ...


class Begun(list):  # type: ignore[type-arg]
    """What `InFlightHandler.begin` may return instead of a plain list: the coroutines, in order, and for each the
    key of the slot it shares (`shares`; None: a slot of its own). Pending coroutines with the same key (from one
    poll or several) take one of the worker's `max_in_flight` slots between them, and count once against its
    read-ahead: a model call that answers several requests (the samples of one question) is one unit of work in
    flight, as it is one call at the endpoint.

    `serial`: the coroutines that share a slot wait on one and the same thing (the call), so once the first has
    ended the others end without waiting. The members of a slot's group that one poll took then run one after
    another in one task on the handler's loop (with `submit_many`), the slot taken once: a task, a wait on the
    slot and a wake-up per group instead of per member."""

    def __init__(self, coros: list[Coroutine[Any, Any, Any]], shares: list[Hashable | None], *,
                 serial: bool = False) -> None:
        if len(shares) != len(coros):
            raise ValueError(f"{len(coros)} coroutines, {len(shares)} slot keys")
        super().__init__(coros)
        self.shares = shares
        self.serial = serial


class _Share:
    """One slot shared by the coroutines of one group. On the handler's loop: `enter` (each member, as it starts)
    takes the slot for the group, the first member in taking it and the others waiting until it is taken (one of
    them takes over if the taker is cancelled while it waits); `leave` (each member that entered, once, whatever
    became of it) gives it back with the last member inside, so a member cancelled before it ever started holds
    nothing. On the worker's thread: `pending`, the members not yet collected."""

    __slots__ = ("_ready", "_taking", "held", "inside", "key", "pending")

    def __init__(self, key: Hashable) -> None:
        self.key = key
        self.inside = 0
        self.pending = 0
        self.held = False
        self._taking = False
        self._ready: asyncio.Event | None = None

    async def enter(self, slots: asyncio.Semaphore) -> None:
        self.inside += 1
        while not self.held:
            if not self._taking:
                self._taking = True
                try:
                    await slots.acquire()
                finally:
                    self._taking = False
                    self._wake()  # the others go on, or one of them takes over
                self.held = True
                return
            if self._ready is None:
                self._ready = asyncio.Event()
            await self._ready.wait()

    def _wake(self) -> None:
        if self._ready is not None:
            self._ready.set()
            self._ready = None

    def leave(self, slots: asyncio.Semaphore) -> None:
        self.inside -= 1
        if self.inside == 0 and self.held:
            self.held = False
            slots.release()


class NotStarted(Exception):
    """A read-ahead record's work was not started because the worker is stopping."""


class OffsetTracker:
    """Per partition: the positions taken, in order, and which are finished; `committable` gives the last
    position of each partition's finished prefix (and forgets it), so a commit never passes a pending one. A
    position is an offset and, for a message of a frame (livetab.bus.frames), its index: the messages of a frame
    share its offset, and the consumer commits past that offset only with the frame's last message."""

    def __init__(self) -> None:
        self._taken: dict[tuple[str, int], deque[tuple[int, int, int]]] = {}
        self._done: dict[tuple[str, int], set[tuple[int, int]]] = {}

    def take(self, rec: Record) -> None:
        self._taken.setdefault((rec.topic, rec.partition), deque()).append((rec.offset, rec.index, rec.count))

    def finish(self, rec: Record) -> None:
        self._done.setdefault((rec.topic, rec.partition), set()).add((rec.offset, rec.index))

    def committable(self) -> list[Record]:
        out = []
        for tp, taken in self._taken.items():
            done = self._done.get(tp, set())
            last = None
            while taken and (taken[0][0], taken[0][1]) in done:
                last = taken.popleft()
                done.discard((last[0], last[1]))
            if last is not None:
                out.append(Record(tp[0], tp[1], last[0], None, b"", index=last[1], count=last[2]))
        return out

    def pending(self) -> int:
        return sum(len(t) for t in self._taken.values()) - sum(len(d) for d in self._done.values())

    def clear(self) -> None:
        self._taken.clear()
        self._done.clear()


class InFlightWorker(Worker):
    handler: InFlightHandler  # type: ignore[assignment]

    def __init__(self, handler: InFlightHandler, bus: Bus, ctx: HandlerContext, *, group: str | None = None,
                 max_in_flight: int = 64, poll_timeout_s: float = 0.5, drain_timeout_s: float = 30.0,
                 busy_wait_s: float = 0.02, commit_interval_s: float = 0.2,
                 finish_interval_s: float = 0.02, read_ahead: int | None = None) -> None:
        if max_in_flight < 1:
            raise ValueError("max_in_flight must be at least 1")
        read_ahead = max_in_flight if read_ahead is None else read_ahead
        if read_ahead < 0:
            raise ValueError("read_ahead must not be negative")
        super().__init__(handler, bus, ctx, group=group, max_records=max_in_flight + read_ahead,  # type: ignore[arg-type]
                         poll_timeout_s=poll_timeout_s)
        self.max_in_flight = max_in_flight
        self.read_ahead = read_ahead
        # slots' work taken and not finished, at most: a record of its own, or a group sharing a slot (`Begun`)
        self.capacity = max_in_flight + read_ahead
        # With every slot busy, the read-ahead is topped up only once this much of it is free: a poll and a
        # `begin` (store reads) cost about the same for one record as for sixteen.
        self._refill_at = max(1, read_ahead // 4)
        self._slots: asyncio.Semaphore | None = None  # max_in_flight running coroutines; made on the handler's loop
        self._running: set[int] = set()  # id() of the records whose coroutine holds a slot
        self.drain_timeout_s = drain_timeout_s
        self.busy_wait_s = busy_wait_s  # how long to wait for a completion before polling again, when there is room
        self.commit_interval_s = commit_interval_s
        self.finish_interval_s = finish_interval_s
        self._held: list[tuple[Record, Outcome]] = []  # completed, not yet finished
        self._held_at = 0.0
        self._committed_at = 0.0
        self._unflushed = False
        self.offsets = OffsetTracker()
        self._pending: dict[Outcome, Record] = {}
        self._share_of: dict[Outcome, _Share] = {}  # the pending whose coroutine shares a slot
        # the groups with members pending, by key: a member that a later poll takes joins its group's slot
        self._groups: dict[Hashable, _Share] = {}
        self._per_unit = 1.0  # records per unit of work lately (a poll asks for about as many records as units)
        self._done: queue.SimpleQueue[Outcome] = queue.SimpleQueue()
        self._ready: list[tuple[Record, list[Outgoing]]] = []  # finished without a coroutine (dead letters)
        self._window = WorkerStats()
        self._window_at = time.monotonic()

    @property
    def _units(self) -> int:
        """Slots' work pending: each pending record of a slot of its own, each group with members pending once."""
        return len(self._pending) - len(self._share_of) + len(self._groups)

    @property
    def in_flight(self) -> int:
        return len(self._pending)

    def run_once(self) -> int:
        """Poll once and wait for all it took (embedded mode drives its stages with this)."""
        records = self.consumer.poll(self._records_for(self.capacity - self._units), self.poll_timeout_s)
        if records:
            self._start(records)
        while self._pending or self._ready or self._held:
            self._collect(self._wait(self.poll_timeout_s or 0.5))
            self._complete_held(force_commit=True)
        if not records:
            self._idle()
        return len(records)

    @property
    def busy(self) -> bool:
        """Work taken and not finished: running or waiting for a slot, completed and held, or a dead letter."""
        return bool(self._pending or self._held or self._ready)

    def advance(self, wait_s: float = 0.0) -> int:
        """Embedded mode, streaming (`livetab.runtime.embedded`): fill the free slots, take what has completed
        (waiting up to `wait_s` for a first completion when nothing has), refill, and finish the completed once
        `finish_interval_s` has passed since the first of them (or nothing else is pending) — without waiting
        for the rest, so the other services handle the outputs while requests are in flight. The number of
        records started and finished."""
        n = self._fill(block=False)
        if self._collect(self._wait(0.0 if n else wait_s), since=time.monotonic()):
            n += self._fill(block=False)  # refill the freed slots before the finishing work
        if self._finish_due():
            n += self._complete_held(force_commit=True)
        return n

    def finish_completed(self) -> int:
        """Finish (store, publish, commit) what has completed, held or not, without waiting for the rest: what a
        caller stopping early (Ctrl-C in embedded mode) keeps, so that a resumed run does not ask it again. That
        includes what a finishing step interrupted by the Ctrl-C was storing (`_complete_held`), and a completed
        request wherever the interrupt found it: still pending, its completion taken off the queue or not (the
        pending are asked whether they are done, not the queue)."""
        self._collect([f for f in self._pending if f.done()])
        return self._complete_held(force_commit=True)

    @property
    def running(self) -> int:
        """Requests whose coroutine holds a slot: started and not completed."""
        return len(self._running)

    def settle(self, timeout_s: float) -> int:
        """Stopping early (Ctrl-C in embedded mode): start nothing more (a read-ahead record waiting for a slot is
        not started and stays unfinished), wait up to `timeout_s` for the requests already running, then finish
        what completed (`finish_completed`), how many. An answer already asked for is kept when it comes within
        the wait, so a resumed run does not ask it (and pay for it) again. A KeyboardInterrupt during the wait (a
        second Ctrl-C) ends it; what had completed is finished either way."""
        self._stopping = True
        deadline = time.monotonic() + timeout_s
        try:
            while self._running and (left := deadline - time.monotonic()) > 0:
                self._collect(self._wait(min(left, 0.1)))
        finally:
            n = self.finish_completed()
        return n

    def _complete_held(self, *, force_commit: bool = False) -> int:
        """Finish what is held, which stays held until that is done: an interrupt that lands in the middle (Ctrl-C
        during the store write, in embedded mode) leaves it for `finish_completed` to finish again (store effects
        are idempotent upserts; a second publish is deduplicated by message id downstream), where taking it first
        would lose it, and a resumed run would ask those requests again."""
        n = self._complete(list(self._held), force_commit=force_commit)
        self._held = []
        return n

    # ---- the loop's parts ----

    def _finish_due(self) -> bool:
        """Completions to finish now: a dead letter, or what has been held `finish_interval_s` (or anything held
        once nothing else is pending)."""
        return bool(self._ready or (self._held and (not self._pending or
                                                    time.monotonic() - self._held_at >= self.finish_interval_s)))

    def _step(self) -> int:
        # What is due is finished before the next poll: a poll's preparation (`begin`: store reads, prompts) took
        # 40-70 ms for a few hundred requests on a busy machine, and finishing after it held that many answers
        # back from the judge as long, every time (the first answers of a 2,000-request round of `python -m
        # bench pipeline` left at ~230 ms after the POST instead of ~120, 7 December 2026). Freed slots do not
        # wait for it: the read-ahead's prepared coroutines take them on the loop.
        n = self._complete_held() if self._finish_due() else 0
        n += self._fill(block=not self._pending and not self._ready and not self._held)
        if not self._pending and not self._ready and not self._held:
            if not n:
                self._idle()
            self._commit()
            return n
        wait = 0.0 if n else (self.busy_wait_s if self._units < self.capacity else self.poll_timeout_s)
        if self._held:
            wait = min(wait, max(0.0, self._held_at + self.finish_interval_s - time.monotonic()))
        waited_from = time.monotonic()  # they may have completed as soon as the wait began: timed from then
        if self._collect(self._wait(wait, gather=self._units > self.max_in_flight), since=waited_from) \
                and not self._finish_due():
            n += self._fill(block=False)  # top the read-ahead up while the completions are gathered
        # Finishing (store, publish, flush) costs about the same for one result as for fifty: completions
        # are gathered for up to `finish_interval_s` (their slots already taken by the read-ahead) and finished
        # together.
        if self._finish_due():
            n += self._complete_held()
        self._commit()  # a prefix held back by the commit interval goes out even when nothing else completes
        return n

    def _fill(self, *, block: bool) -> int:
        room = self.capacity - self._units
        if room <= 0 or (self._units >= self.max_in_flight and room < self._refill_at):
            return 0  # every slot busy and the read-ahead nearly full: take records in larger polls
        records = self.consumer.poll(self._records_for(room), self.poll_timeout_s if block else 0)
        if records:
            self._start(records)
        return len(records)

    def _records_for(self, units: int) -> int:
        """How many records to poll for `units` more slots' work: as many as units held lately (at least one
        each, at most `MAX_SHARE`)."""
        return max(1, round(units * min(max(self._per_unit, 1.0), MAX_SHARE)))

    def _wait(self, timeout_s: float, *, gather: bool = False) -> list[Outcome]:
        """The pending futures that completed, waiting up to `timeout_s` for the first. Completions arrive on
        a queue (one callback per future), so a wait costs the same however many are pending. With `gather`
        (prepared records are waiting for slots, so no slot idles while this thread sleeps) it waits the
        whole `timeout_s`, at most `finish_interval_s`, and takes what completed meanwhile: one wake-up per
        group of completions, not one per completion."""
        if not self._pending:
            return []
        if gather and timeout_s > 0:
            time.sleep(min(timeout_s, self.finish_interval_s))
            timeout_s = 0
        try:
            first = self._done.get(timeout=timeout_s) if timeout_s > 0 else self._done.get_nowait()
        except queue.Empty:
            return []
        done = [first]
        while True:
            try:
                done.append(self._done.get_nowait())
            except queue.Empty:
                break
        return [f for f in done if f in self._pending]  # an abandoned one may still report in

    def _submit(self, started: list[tuple[Record, Coroutine[Any, Any, Any], Hashable | None]],
                serial: bool = False) -> None:
        """Start the coroutines on the handler's loop: all at once where the handler can (`submit_many`);
        those given the same slot key share a slot (`Begun`), and with `serial` those of one key run in one task
        (`_gated_group`)."""
        if not started:
            return
        shares: list[_Share | None] = []
        for _, _, key in started:
            share = None
            if key is not None:
                share = self._groups.get(key)
                if share is None:
                    share = self._groups[key] = _Share(key)
            shares.append(share)
        units = len({id(share) for share in shares if share is not None}) + shares.count(None)
        self._per_unit = 0.5 * self._per_unit + 0.5 * len(started) / units
        submit_many = getattr(self.handler, "submit_many", None)
        if serial and submit_many is not None:
            futures = self._grouped(started, shares, submit_many)
        else:
            coros = [self._gated(c, id(rec), share) for (rec, c, _), share in zip(started, shares, strict=True)]
            futures = submit_many(coros) if submit_many is not None else [self.handler.submit(c) for c in coros]
        for (rec, _, _), share, fut in zip(started, shares, futures, strict=True):
            self._pending[fut] = rec
            if share is not None:
                self._share_of[fut] = share
                share.pending += 1
            fut.add_done_callback(self._done.put)

    def _grouped(self, started: list[tuple[Record, Coroutine[Any, Any, Any], Hashable | None]],
                 shares: list[_Share | None], submit_many: Callable[[list[Coroutine[Any, Any, Any]]], list[Outcome]]
                 ) -> list[Outcome]:
        """Start a poll's coroutines with those of one slot's group in one task (`_gated_group`), the tasks in the
        order of their first coroutine; the outcome of each coroutine, in order."""
        outcomes: list[Outcome | None] = [None] * len(started)
        tasks: list[Coroutine[Any, Any, Any]] = []
        alone: list[int | None] = []  # per task: the coroutine it runs, if that has a slot of its own
        members: dict[int, list[tuple[Coroutine[Any, Any, Any], int, Handoff[Any]]]] = {}
        for i, ((rec, coro, _), share) in enumerate(zip(started, shares, strict=True)):
            if share is None:
                tasks.append(self._gated(coro, id(rec)))
                alone.append(i)
                continue
            handoff: Handoff[Any] = Handoff()
            outcomes[i] = handoff
            group = members.get(id(share))
            if group is None:
                group = members[id(share)] = []
                tasks.append(self._gated_group(group, share))
                alone.append(None)
            group.append((coro, id(rec), handoff))
        for own, outcome in zip(alone, submit_many(tasks), strict=True):
            if own is not None:
                outcomes[own] = outcome
        return outcomes  # type: ignore[return-value]  # every one set

    async def _gated_group(self, members: list[tuple[Coroutine[Any, Any, Any], int, Handoff[Any]]],
                           share: _Share) -> None:
        """The members of one slot's group that one poll took, in one task: the slot taken once (with the group's
        members from other polls), then each member run in turn (the first asks; the others find the answer and
        end at once: `Begun.serial`) and its outcome handed back as it ends. Cancelling any member's outcome
        cancels the task (the worker cancels a group's members together: stopping, the ones not started;
        abandoning, all); the members not yet ended are then cancelled too. Stopping before the slot is taken,
        none starts (`NotStarted`)."""
        task = asyncio.current_task()
        for _, _, handoff in members:
            if task is not None:
                handoff.attach(task)  # one cancelled before the task began cancels it
        slots = self._semaphore()
        tokens = [token for _, token, _ in members]
        left = 0  # the first member not ended
        try:
            try:
                await share.enter(slots)
                if self._stopping:
                    raise NotStarted
                self._running.update(tokens)
                while left < len(members):
                    coro, token, handoff = members[left]
                    try:
                        value = await coro
                    except asyncio.CancelledError:
                        raise
                    except Exception as e:  # the member's own outcome
                        handoff.set_exception(e)
                    else:
                        handoff.set_result(value)
                    self._running.discard(token)
                    left += 1
            finally:
                self._running.difference_update(tokens)
                share.leave(slots)
        except asyncio.CancelledError:
            for coro, _, handoff in members[left:]:
                coro.close()
                handoff.cancel()
            raise
        except BaseException as e:  # NotStarted (stopping), or no member's own: the members not ended end with it
            for coro, _, handoff in members[left:]:
                coro.close()
                handoff.set_exception(e)
            if not isinstance(e, NotStarted):
                raise

    def _semaphore(self) -> asyncio.Semaphore:
        """The `max_in_flight` slots, made on the handler's loop the first time a coroutine waits for one."""
        if self._slots is None:
            self._slots = asyncio.Semaphore(self.max_in_flight)
        return self._slots

    def _forget(self, fut: Outcome) -> Record:
        """Take `fut` off the pending (its group forgotten with its last member); its record."""
        rec = self._pending.pop(fut)
        share = self._share_of.pop(fut, None)
        if share is not None:
            share.pending -= 1
            if not share.pending:
                del self._groups[share.key]
        return rec

    async def _gated(self, coro: Coroutine[Any, Any, Any], token: int, share: _Share | None = None) -> Any:
        """Run `coro` once one of the `max_in_flight` slots is free (or its group's slot is taken). Read-ahead
        records wait here, prepared, so a slot freed by a completion is taken on the loop at once, not after a
        trip through this thread. Once the worker is stopping, a waiting one does not start (`NotStarted`): it
        stays uncommitted."""
        slots = self._semaphore()
        try:
            if share is None:
                await slots.acquire()
            else:
                await share.enter(slots)
        except BaseException:
            coro.close()
            if share is not None:
                share.leave(slots)
            raise
        try:
            if self._stopping:
                coro.close()
                raise NotStarted
            self._running.add(token)
            try:
                return await coro
            finally:
                self._running.discard(token)
        finally:
            if share is None:
                slots.release()
            else:
                share.leave(slots)

    def _start(self, records: list[Record]) -> None:
        good: list[tuple[Record, Message]] = []
        for rec in records:
            self.offsets.take(rec)
            try:
                message = decode(rec)
            except PoisonMessage as e:
                self._ready.append((rec, [self._letter(rec, f"PoisonMessage: {e}")]))
                continue
            self._runs[run_of(message)] += 1
            good.append((rec, message))
        if not good:
            return
        try:
            coros = self.handler.begin([m for _, m in good], self.ctx)
            shares: list[Hashable | None] = getattr(coros, "shares", None) or [None] * len(coros)
            serial = bool(getattr(coros, "serial", False))
        except Retryable:
            raise
        except Exception:  # isolate the message that cannot begin
            started: list[tuple[Record, Coroutine[Any, Any, Any], Hashable | None]] = []
            for rec, message in good:
                try:
                    (coro,) = self.handler.begin([message], self.ctx)
                except Retryable:
                    raise
                except Exception as e:
                    self._ready.append((rec, [self._letter(rec, f"{type(e).__name__}: {e}", message)]))
                    continue
                started.append((rec, coro, None))
            self._submit(started)
            return
        self._submit([(rec, coro, key) for (rec, _), coro, key in zip(good, coros, shares, strict=True)], serial)

    def _collect(self, done: list[Outcome], since: float | None = None) -> int:
        """Move the completed from the pending set (their slots are free from here on) to the held list, how many.
        Each is held before it leaves the pending set, and nothing else runs between the two: an interrupt
        (Ctrl-C in embedded mode) finds a completed request in one of them, where `finish_completed` takes it.
        (Before, the refill of the freed slots came between, and a Ctrl-C during its store reads lost what had
        just completed: a resumed run asked it again.) `since`: when this group of completions is timed from, if
        it starts one (`finish_interval_s`)."""
        held = {id(f) for _, f in self._held}  # one the interrupt found held and still pending is held once
        fresh = [f for f in done if id(f) not in held]
        if fresh and not self._held:
            self._held_at = time.monotonic() if since is None else since
        for fut in done:
            if id(fut) not in held:
                self._held.append((self._pending[fut], fut))
            self._forget(fut)
        return len(fresh)

    def _complete(self, done: list[tuple[Record, Outcome]], *, force_commit: bool = False) -> int:
        """Finish the completed: store, publish, flush, then commit each partition's finished prefix."""
        finished, self._ready = self._ready, []
        values: list[tuple[Record, Any]] = []
        for rec, fut in done:
            try:
                values.append((rec, fut.result()))
            except NotStarted:
                continue  # taken but never started (the worker is stopping): not finished, never committed
            except Retryable:
                raise  # the caller abandons everything pending and rewinds to the committed offsets
            except Exception as e:
                log.error("handler %s failed on %s: %s", self.handler.service, rec.position, e, exc_info=e)
                finished.append((rec, [self._letter(rec, f"{type(e).__name__}: {e}")]))
        if values:
            finished.extend(self._finish(values))
        if not finished:
            return 0
        published = 0
        make = header_maker()
        for rec, outs in finished:
            try:
                self._check_topics(outs)
            except PoisonMessage as e:
                outs = [self._letter(rec, f"PoisonMessage: {e}")]
            published += self._publish(rec, [(o, make(o)) for o in outs])
        self.bus.send_frames()  # on their way now, acknowledged by the flush before the commit
        self._unflushed = True  # flushed right before the commit that covers these records (`_commit`)
        for rec, _ in finished:
            self.offsets.finish(rec)
        self._commit(force=force_commit)
        n = len(finished)
        self.stats.batches += 1
        self.stats.published += published
        self._m_processed.add(n, self._attrs)
        self._window.processed += n
        self._window.published += published
        self._report()
        return n

    def _commit(self, *, force: bool = False) -> None:
        """Flush what was published, then commit each partition's finished prefix; at most every
        `commit_interval_s` unless forced. A flush waits for the broker's acknowledgements and a commit is a
        round trip: doing both once per interval, not once per finished group, keeps the loop refilling
        slots. Committing later only means a crash re-reads a little more (answered from the cache); a
        record is never committed before its outputs are acknowledged, since the flush comes first."""
        now = time.monotonic()
        if not force and now - self._committed_at < self.commit_interval_s:
            return
        if self._unflushed:
            self.bus.flush()
            self._unflushed = False
        commit = self.offsets.committable()
        if commit:
            self.consumer.commit(commit)
        self._committed_at = now

    def _finish(self, values: list[tuple[Record, Any]]) -> list[tuple[Record, list[Outgoing]]]:
        try:
            outs = self.handler.finish([v for _, v in values], self.ctx)
            self.stats.processed += len(values)
            return list(zip([r for r, _ in values], outs, strict=True))
        except Retryable:
            raise
        except Exception:
            log.warning("finishing %d in %s failed; finishing them one by one", len(values), self.handler.service)
        out: list[tuple[Record, list[Outgoing]]] = []
        for rec, value in values:
            try:
                (one,) = self.handler.finish([value], self.ctx)
                self.stats.processed += 1
            except Retryable:
                raise
            except Exception as e:
                log.exception("handler %s could not finish %s", self.handler.service, rec.position)
                one = [self._letter(rec, f"{type(e).__name__}: {e}")]
            out.append((rec, one))
        return out

    def _letter(self, rec: Record, reason: str, message: Message | None = None) -> Outgoing:
        self.stats.dead_lettered += 1
        self._window.dead_lettered += 1
        self._m_dead.add(1, self._attrs)
        return self._dead_letter(rec, reason, message)

    def _report(self) -> None:
        now = time.monotonic()
        if now - self._window_at < LOG_EVERY_S:
            return
        w = self._window
        runs = ", ".join(f"{r[:12]}:{n}" for r, n in self._runs.most_common(5))
        log.info("%s: %d done, %d out, %d dead-lettered in %.1fs; %d in flight%s", self.handler.service, w.processed,
                 w.published, w.dead_lettered, now - self._window_at, len(self._pending),
                 f" (runs {runs})" if runs else "")
        self._window = WorkerStats()
        self._window_at = now
        self._runs.clear()

    def _drain(self) -> None:
        """Stopping: finish what is pending within `drain_timeout_s`, commit the finished prefix."""
        deadline = time.monotonic() + self.drain_timeout_s
        for fut, rec in list(self._pending.items()):  # read ahead, not started: they never will (uncommitted)
            if id(rec) not in self._running:
                fut.cancel()
                self._forget(fut)
        self._complete_held(force_commit=True)
        while (self._pending or self._ready) and time.monotonic() < deadline:
            self._collect(self._wait(max(0.0, deadline - time.monotonic())))
            self._complete_held(force_commit=True)
        self._commit(force=True)
        if self._pending:
            log.warning("%s: %d requests unfinished after %.0fs of draining; they are not committed and run again "
                        "after a restart", self.handler.service, len(self._pending), self.drain_timeout_s)

    def _abandon(self) -> None:
        for fut in self._pending:
            fut.cancel()
        self._pending.clear()
        self._share_of.clear()
        self._groups.clear()
        self._ready.clear()
        self._held.clear()
        self.offsets.clear()
