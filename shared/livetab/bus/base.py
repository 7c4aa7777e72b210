"""The bus interface both transports implement, and the record/header conventions they share."""

from __future__ import annotations

import itertools
import random
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Protocol, overload

from google.protobuf.message import DecodeError, Message
from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace import SpanKind

from livetab import topics
from livetab.telemetry import recording, traceparent, tracer

__all__ = ["BrokerUnreachable", "Bus", "Consumer", "Outgoing", "OutgoingStream", "PoisonMessage", "Record", "Retryable",
           "Uncommitted", "decode", "header_maker", "make_headers", "producer_headers"]

H_TYPE = "message-type"
H_ID = "message-id"
H_TRACE = "traceparent"
H_PRODUCED = "produced-at"
# Records without a content id get a process-unique one: a random prefix and a counter (uuid4 per record is slow).
_ID_PREFIX = uuid.uuid4().hex[:12]
_ID_COUNTER = itertools.count()
_SPAN_NAMES: dict[str, tuple[str, dict[str, str]]] = {}
_TOPIC_TYPES: dict[str, tuple[type[Message], str]] = {}  # per-record checks, looked up once per topic
_random = random.Random()  # span ids need uniqueness, not secrecy
_ZERO_TRACE, _ZERO_SPAN = "0" * 32, "0" * 16


@dataclass(slots=True)  # not frozen: a frozen dataclass costs ~4x more to build, and one is built per record
class Record:
    topic: str
    partition: int
    offset: int
    key: bytes | None
    value: bytes
    headers: dict[str, str] = field(default_factory=dict)
    # A message of a frame (livetab.bus.frames): its index in the frame and the frame's size. The offset is the
    # frame record's, shared by all its messages; a record that is one message is index 0 of 1.
    index: int = 0
    count: int = 1

    @property
    def next_offset(self) -> int:
        """The offset to commit once this record is done: past it, or, for a message of a frame that is not the
        frame's last, the frame's own (so a restart reads the frame again rather than lose its other messages)."""
        return self.offset + 1 if self.index == self.count - 1 else self.offset

    @property
    def position(self) -> str:
        """`topic:partition:offset`, with `:index` for a message of a frame: unique on the bus."""
        where = f"{self.topic}:{self.partition}:{self.offset}"
        return where if self.count == 1 else f"{where}:{self.index}"


@dataclass(slots=True)
class Outgoing:
    """A message a handler wants published. `key` decides the partition; `message_id` dedups downstream."""

    topic: str
    message: Message
    key: str = ""
    message_id: str = ""


class OutgoingStream(Sequence[Outgoing]):
    """A handler's outputs made one by one as they are published, never all held at once (a run's planned
    requests: 100,000 of them held as messages cost ~300 MB). `size` (its len) says how many there are, `topics`
    every topic they go to (the worker checks those before the first is made); `make()` yields them in
    order, again on each call. The worker publishes a stream as it iterates, so memory is bounded by the
    producer's buffer, not by the stream's length; indexing makes the outputs up to the index (for tests)."""

    def __init__(self, size: int, topics: set[str], make: Callable[[], Iterator[Outgoing]]) -> None:
        self.size, self.topics, self.make = size, topics, make

    def __len__(self) -> int:
        return self.size

    def __iter__(self) -> Iterator[Outgoing]:
        return self.make()

    @overload
    def __getitem__(self, index: int) -> Outgoing: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Outgoing]: ...

    def __getitem__(self, index: int | slice) -> Outgoing | Sequence[Outgoing]:
        if isinstance(index, slice):
            return list(self)[index]
        if index < 0:
            index += self.size
        if not 0 <= index < self.size:
            raise IndexError(index)
        return next(itertools.islice(self.make(), index, None))


class PoisonMessage(Exception):
    """The record can never be processed (undecodable, wrong type, invalid content): dead-letter it."""


class Retryable(Exception):
    """A passing failure (store or endpoint down): do not commit; back off and process the record again."""


class BrokerUnreachable(Exception):
    """No Kafka broker answered at the configured bootstrap address. Defined here, not beside the Kafka bus
    (`livetab.bus.kafka`, which raises it), so that a command can catch it without importing the Kafka client."""


def make_headers(topic: str, message: Message, message_id: str = "") -> dict[str, str]:
    expected = _TOPIC_TYPES.get(topic)
    if expected is None:
        t = topics.by_name(topic)
        expected = _TOPIC_TYPES[topic] = (t.message, t.message_type)
    if type(message) is not expected[0]:
        raise TypeError(f"topic {topic} carries {expected[1]}, not {message.DESCRIPTOR.full_name}")
    return {
        H_TYPE: expected[1],
        H_ID: message_id or f"{_ID_PREFIX}-{next(_ID_COUNTER)}",
        H_PRODUCED: str(time.time_ns() // 1_000_000),  # epoch milliseconds
    }


def producer_headers(out: Outgoing) -> dict[str, str]:
    """Headers for `out`, carrying a PRODUCER span `<topic> publish` so the consumer continues the trace (one
    output alone; a stage's outputs take theirs from one `header_maker`)."""
    return header_maker()(out)


def header_maker(context: otel_context.Context | None = None) -> Callable[[Outgoing], dict[str, str]]:
    """What makes `producer_headers` for the outputs of one piece of work, in one span context (the current one,
    or `context`).

    When no exporter records spans, only the context is carried: that context's trace id (or a new one for each
    output when there is none) with a fresh span id, formatted straight into `traceparent` (the SDK's span
    machinery costs ~10x more); the context is read once here, not once a message, as a stage's outputs are (~1.5
    µs of context lookups a message, for every answer at every stage). With spans recorded, each output gets its
    own PRODUCER span, a child of `context`'s span when given."""
    if recording():
        if context is None:
            return _recorded_headers

        def in_context(out: Outgoing) -> dict[str, str]:
            token = otel_context.attach(context)
            try:
                return _recorded_headers(out)
            finally:
                otel_context.detach(token)

        return in_context
    ctx = trace.get_current_span(context).get_span_context()
    trace_id = ctx.trace_id if ctx.is_valid else None

    def unrecorded(out: Outgoing) -> dict[str, str]:
        headers = make_headers(out.topic, out.message, out.message_id)
        headers[H_TRACE] = _fresh_traceparent() if trace_id is None else _continued(trace_id)
        return headers

    return unrecorded


def _recorded_headers(out: Outgoing) -> dict[str, str]:
    """`out`'s headers with a PRODUCER span of its own in the current context, ended at once."""
    names = _SPAN_NAMES.get(out.topic)
    if names is None:
        names = _SPAN_NAMES[out.topic] = (f"{out.topic} publish", {"messaging.destination.name": out.topic})
    # One attribute only: the SDK validates every attribute on every span, and this runs per record.
    span = tracer().start_span(names[0], kind=SpanKind.PRODUCER, attributes=names[1])
    try:
        headers = make_headers(out.topic, out.message, out.message_id)
        sc = span.get_span_context()
        if sc.is_valid:
            headers[H_TRACE] = traceparent(sc.trace_id, sc.span_id, sampled=sc.trace_flags.sampled)
        return headers
    finally:
        span.end()


def _fresh_traceparent() -> str:
    """An unsampled `traceparent` with a new random trace id and span id (one random draw, formatted once: this
    runs per record). Neither id may be all zeros (W3C)."""
    h = f"{_random.getrandbits(192):048x}"
    if h.startswith(_ZERO_TRACE) or h.endswith(_ZERO_SPAN):
        return _fresh_traceparent()
    return "00-" + h[:32] + "-" + h[32:] + "-00"


def _continued(trace_id: int) -> str:
    """An unsampled `traceparent` continuing `trace_id` with a new span id."""
    return f"00-{trace_id:032x}-{_random.getrandbits(64) or 1:016x}-00"


def decode(record: Record) -> Message:
    """Parse a record into the message type its topic carries; anything off is a PoisonMessage."""
    try:
        topic = topics.by_name(record.topic)
    except KeyError as e:
        raise PoisonMessage(str(e)) from None
    declared = record.headers.get(H_TYPE)
    if declared is None:
        raise PoisonMessage(f"record has no '{H_TYPE}' header")
    if declared != topic.message_type:
        raise PoisonMessage(f"record declares {declared!r} but {record.topic} carries {topic.message_type!r}")
    msg = topic.message()
    try:
        msg.ParseFromString(record.value)
    except DecodeError as e:
        raise PoisonMessage(f"cannot decode {topic.message_type}: {e}") from None
    return msg


class Consumer(Protocol):
    def poll(self, max_records: int, timeout_s: float) -> list[Record]: ...

    def commit(self, records: list[Record]) -> None:
        """Mark these records (and everything before them in their partitions) as done."""

    def rewind(self) -> None:
        """Go back to the last committed position (after a retryable failure)."""

    def close(self) -> None: ...


class Uncommitted:
    """For a reader that commits nothing (`Bus.tail`): `commit` and `rewind` do nothing."""

    def commit(self, records: list[Record]) -> None:
        return None

    def rewind(self) -> None:
        return None


class Bus(Protocol):
    def publish(self, out: Outgoing, headers: dict[str, str] | None = None) -> None:
        """Queue `out`; `headers` default to `producer_headers(out)` made now."""

    def send_frames(self) -> None:
        """Hand what `publish` holds back (Kafka: the frames being filled) to the transport now, without waiting
        for acknowledgements; `flush` does this too, then waits."""

    def flush(self, timeout_s: float = 30.0) -> None: ...

    def topic_exists(self, name: str) -> bool:
        """Whether publishing to `name` can succeed (the topic exists on the broker)."""

    def consumer(self, group: str, topic_names: list[str]) -> Consumer: ...

    def tail(self, topic_names: list[str]) -> Consumer:
        """A reader of what is published to `topic_names` from now on, for this process alone: no consumer group
        (every partition, from its end), nothing committed (`commit` and `rewind` do nothing). For watchers that
        only need to hear of changes, e.g. the api's long polls hearing of leaderboard updates."""

    def close(self) -> None: ...
