"""The worker loop: run one pure handler over either bus.

poll → decode → handle (store effects are idempotent upserts) → publish outputs → flush → commit.
Poison records go to the DLQ with their source topic/partition/offset and the error, and are committed.
A `Retryable` error rewinds to the committed offsets and backs off. SIGTERM only sets a flag: the
current batch finishes, is committed, and the loop ends.
"""

from __future__ import annotations

import logging
import random
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

from google.protobuf.message import Message
from opentelemetry import trace
from opentelemetry.trace import SpanKind, Status, StatusCode

from livetab import topics
from livetab.bus.base import Bus, Outgoing, PoisonMessage, Record, Retryable, decode, producer_headers
from livetab.telemetry import extract_context, meter, tracer
from livetab.v1 import dlq_pb2

__all__ = ["Handler", "HandlerContext", "Worker", "WorkerStats"]

log = logging.getLogger(__name__)


@dataclass
class HandlerContext:
    """What a handler may use besides the message: the store, settings, and the record's coordinates."""

    store: Any
    settings: Any
    record: Record | None = None
    services: dict[str, Any] = field(default_factory=dict)


class Handler(Protocol):
    service: str
    topics: list[str]

    def handle(self, message: Message, ctx: HandlerContext) -> list[Outgoing]: ...


@dataclass
class WorkerStats:
    processed: int = 0
    dead_lettered: int = 0
    published: int = 0
    batches: int = 0
    retries: int = 0


class Worker:
    def __init__(self, handler: Handler, bus: Bus, ctx: HandlerContext, *, group: str | None = None,
                 max_records: int = 100, poll_timeout_s: float = 0.5,
                 on_batch: Callable[[list[Record]], None] | None = None) -> None:
        self.handler = handler
        self.bus = bus
        self.ctx = ctx
        self.group = group or topics.consumer_group(handler.service)
        self.consumer = bus.consumer(self.group, handler.topics)
        self.max_records = max_records
        self.poll_timeout_s = poll_timeout_s
        self.stats = WorkerStats()
        m = meter()
        attrs = {"service": handler.service, "group": self.group}
        self._attrs = attrs
        self._m_processed = m.create_counter("livetab.worker.processed", unit="{record}",
                                             description="records handled")
        self._m_dead = m.create_counter("livetab.worker.dead_lettered", unit="{record}",
                                        description="records sent to the DLQ")
        self._m_batch = m.create_histogram("livetab.worker.batch_duration", unit="s",
                                           description="poll-to-commit time of one batch")
        self._stopping = False
        self._on_batch = on_batch

    def stop(self, *_: object) -> None:
        self._stopping = True

    def install_signal_handlers(self) -> None:
        signal.signal(signal.SIGTERM, self.stop)
        signal.signal(signal.SIGINT, self.stop)

    def run(self, *, until_idle: bool = False, max_seconds: float | None = None) -> WorkerStats:
        """Loop until stopped; with `until_idle`, return after the first empty poll."""
        deadline = time.monotonic() + max_seconds if max_seconds else None
        backoff = 0.5
        try:
            while not self._stopping:
                if deadline and time.monotonic() > deadline:
                    break
                try:
                    n = self.run_once()
                    backoff = 0.5
                except Retryable as e:
                    self.stats.retries += 1
                    wait = min(30.0, backoff) * (0.5 + random.random())
                    log.warning("retryable failure in %s, retrying in %.1fs: %s", self.handler.service, wait, e)
                    self.consumer.rewind()
                    time.sleep(wait)
                    backoff *= 2
                    continue
                if n == 0 and until_idle:
                    break
        finally:
            self.consumer.close()
        return self.stats

    def run_once(self) -> int:
        records = self.consumer.poll(self.max_records, self.poll_timeout_s)
        if not records:
            self._idle()
            return 0
        t0 = time.perf_counter()
        dead0 = self.stats.dead_lettered
        outgoing: list[tuple[Outgoing, dict[str, str]]] = []
        batch_handler = getattr(self.handler, "handle_batch", None)
        if batch_handler is not None and len(records) > 1:
            outgoing.extend(self._process_batch(records, batch_handler))
        else:
            for rec in records:
                outgoing.extend(self._process(rec))
        for out, headers in outgoing:
            self.bus.publish(out, headers)
        self.bus.flush()
        if self._on_batch:
            self._on_batch(records)
        self.consumer.commit(records)
        self._m_processed.add(len(records), self._attrs)
        self._m_dead.add(self.stats.dead_lettered - dead0, self._attrs)
        self._m_batch.record(time.perf_counter() - t0, self._attrs)
        self.stats.batches += 1
        self.stats.published += len(outgoing)
        return len(records)

    def _idle(self) -> None:
        """A quiet poll: a handler with `on_idle(ctx)` may publish what it held back (e.g. a throttled
        leaderboard). Nothing is committed, as no record was taken; a failure is logged and retried next time."""
        on_idle = getattr(self.handler, "on_idle", None)
        if on_idle is None:
            return
        try:
            outs = on_idle(self.ctx)
        except Exception:
            log.exception("on_idle of %s failed; it runs again on the next quiet poll", self.handler.service)
            return
        for out in outs:
            self.bus.publish(out)
        if outs:
            self.bus.flush()
            self.stats.published += len(outs)

    def _process(self, rec: Record) -> list[tuple[Outgoing, dict[str, str]]]:
        parent = extract_context(rec.headers)
        with tracer().start_as_current_span(
            f"{rec.topic} process", context=parent, kind=SpanKind.CONSUMER,
            attributes={
                "messaging.system": "kafka",
                "messaging.destination.name": rec.topic,
                "messaging.operation.type": "process",
                "messaging.consumer.group.name": self.group,
                "messaging.kafka.offset": rec.offset,
                "messaging.destination.partition.id": str(rec.partition),
                "messaging.message.id": rec.headers.get("message-id", ""),
            },
        ) as span:
            try:
                message = decode(rec)
                self.ctx.record = rec
                outs = self.handler.handle(message, self.ctx)
                self.stats.processed += 1
                return [(o, producer_headers(o)) for o in outs]
            except Retryable:
                raise
            except Exception as e:
                reason = f"{type(e).__name__}: {e}"
                if not isinstance(e, PoisonMessage):
                    log.exception("handler %s failed on %s/%d@%d", self.handler.service, rec.topic, rec.partition,
                                  rec.offset)
                span.set_status(Status(StatusCode.ERROR, reason))
                self.stats.dead_lettered += 1
                letter = self._dead_letter(rec, reason)
                return [(letter, producer_headers(letter))]

    def _process_batch(self, records: list[Record], batch_handler: Callable[..., list[Outgoing]]
                       ) -> list[tuple[Outgoing, dict[str, str]]]:
        """Decode all, hand the good ones over at once (for concurrency); isolate failures record by record."""
        out: list[tuple[Outgoing, dict[str, str]]] = []
        good: list[tuple[Record, Message]] = []
        for rec in records:
            try:
                good.append((rec, decode(rec)))
            except PoisonMessage as e:
                self.stats.dead_lettered += 1
                letter = self._dead_letter(rec, f"PoisonMessage: {e}")
                out.append((letter, producer_headers(letter)))
        if not good:
            return out
        with tracer().start_as_current_span(
            f"{good[0][0].topic} process batch", context=extract_context(good[0][0].headers), kind=SpanKind.CONSUMER,
            links=[trace.Link(trace.get_current_span(extract_context(r.headers)).get_span_context())
                   for r, _ in good],
            attributes={"messaging.system": "kafka", "messaging.batch.message_count": len(good),
                        "messaging.consumer.group.name": self.group},
        ):
            try:
                outs = batch_handler([m for _, m in good], self.ctx)
            except Retryable:
                raise
            except Exception:
                log.warning("batch of %d failed in %s; retrying record by record", len(good), self.handler.service)
                for rec, _ in good:
                    out.extend(self._process(rec))
                return out
            self.stats.processed += len(good)
            out.extend((o, producer_headers(o)) for o in outs)
        return out

    def _dead_letter(self, rec: Record, reason: str) -> Outgoing:
        letter = dlq_pb2.DeadLetter(
            source_topic=rec.topic, partition=rec.partition, offset=rec.offset, error=reason,
            consumer_group=self.group, key=rec.key or b"", value=rec.value, headers=rec.headers,
            failed_at=datetime.now(UTC).isoformat(timespec="milliseconds"),
        )
        return Outgoing(topics.DLQ, letter, key=rec.topic, message_id=f"{rec.topic}:{rec.partition}:{rec.offset}")
