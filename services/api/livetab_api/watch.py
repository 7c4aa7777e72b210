"""Long polls of a run's status: `GET /runs/{id}?wait_s=S` with `If-None-Match: <the ETag it last got>` answers as
soon as the run's status differs from that one, or 304 after S seconds.

What wakes a waiting poll is the run's leaderboard being recomputed: the reporter publishes a LeaderboardUpdate on
the reports topic after storing the rows, and each api process reads that topic from its end, alone (`Bus.tail`:
no consumer group, so every replica hears every update). A poll also reads the run again every `recheck_s`, so an
update it did not hear (the tail reconnecting, answers that failed and were never judged) delays it by that at
most, never past its wait. Clients that watch a run (the bench, `livetab wait`, a page) then ask a few times per
recompute instead of many times a second, and hear of the last one within a Kafka hop of it."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import threading
from typing import Any

from livetab import topics as topic_names
from livetab.bus import Bus
from livetab.bus.base import Consumer, PoisonMessage, Retryable, decode
from livetab.v1 import report_pb2

__all__ = ["RunWatch", "etag_of", "status_json"]

log = logging.getLogger(__name__)


def status_json(doc: dict[str, Any]) -> bytes:
    """A status document as the api sends it (as `JSONResponse` writes JSON), once: its ETag hashes these bytes."""
    return json.dumps(doc, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode()


def etag_of(body: bytes) -> str:
    """The entity tag of a status document's JSON: a hash of it, quoted as HTTP writes one."""
    return '"' + hashlib.sha256(body).hexdigest()[:32] + '"'


class RunWatch:
    """The long polls waiting on each run, and what wakes them (`notify`, from the tail's thread)."""

    def __init__(self, *, recheck_s: float = 1.0) -> None:
        self.recheck_s = recheck_s
        self._lock = threading.Lock()
        self._waiting: dict[str, set[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]]] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.heard = 0  # leaderboard updates read from the tail

    def waiter(self, run_id: str) -> asyncio.Future[None]:
        """A future set by the next update of `run_id` (registered before the caller reads the run, so an update
        that lands in between is not missed); `forget` it once done."""
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[None] = loop.create_future()
        with self._lock:
            self._waiting.setdefault(run_id, set()).add((loop, fut))
        return fut

    def forget(self, run_id: str, fut: asyncio.Future[None]) -> None:
        with self._lock:
            waiting = self._waiting.get(run_id)
            if waiting is not None:
                waiting.discard((fut.get_loop(), fut))
                if not waiting:
                    del self._waiting[run_id]

    def notify(self, run_id: str) -> None:
        """Wake every poll waiting on `run_id` (from any thread)."""
        with self._lock:
            waiting = list(self._waiting.get(run_id, ()))
        for loop, fut in waiting:
            loop.call_soon_threadsafe(_settle, fut)

    def start(self, bus: Bus) -> None:
        """Read the reports topic from its end on a thread of its own, waking the polls of each updated run."""
        self._thread = threading.Thread(target=self._tail, args=(bus,), name="api-run-watch", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)

    def _tail(self, bus: Bus) -> None:
        backoff = 0.5
        while not self._stop.is_set():
            try:
                reader = bus.tail([topic_names.REPORTS])
            except Exception as e:  # the broker away: polls fall back on their re-reads meanwhile
                log.warning("run watch: cannot read %s (%s); again in %.1f s", topic_names.REPORTS, e, backoff)
                self._stop.wait(backoff)
                backoff = min(backoff * 2, 30.0)
                continue
            backoff = 0.5
            try:
                self._hear(reader)
            except Retryable as e:
                log.warning("run watch: %s; reading %s again", e, topic_names.REPORTS)
            except Exception:
                log.exception("run watch: reading %s failed; reading it again", topic_names.REPORTS)
                self._stop.wait(backoff)
            finally:
                reader.close()

    def _hear(self, reader: Consumer) -> None:
        """Until stopped: wake the polls of each run whose leaderboard update `reader` brings."""
        while not self._stop.is_set():
            for rec in reader.poll(500, 0.5):
                with contextlib.suppress(PoisonMessage):  # not a leaderboard update: nothing to wake
                    update = decode(rec)
                    if isinstance(update, report_pb2.LeaderboardUpdate):
                        self.heard += 1
                        self.notify(update.run_id)


def _settle(fut: asyncio.Future[None]) -> None:
    if not fut.done():
        fut.set_result(None)
