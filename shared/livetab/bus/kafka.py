"""The Kafka transport (confluent-kafka, librdkafka): idempotent acks=all producer, manual-commit consumers.

Offsets are committed only for records whose effects are durable: the worker flushes the producer and
then commits. On a retryable failure the consumer seeks back to its committed positions.

librdkafka does a client's network work (fetching, heartbeats, sending batches, retries, reconnecting after a
broker restart) in its own threads, outside the Python interpreter's lock: a service's worker thread spends the
interpreter only on the records it hands out and takes in. kafka-python did the same work in Python, a fifth to a
quarter of the judge's, the reporter's and the api's CPU in `python -m bench pipeline` (docs/capacity.md, the
twenty-second and twenty-third measurements). kafka-python stays the raw baseline that bench measures against.

Messages travel in frames (livetab.bus.frames, `livetab.v1.Frame`): `publish` adds a message to its
partition's frame (the partition its key gives, as the Java client's and kafka-python's default partitioner would:
murmur2, which librdkafka's `murmur2_random` partitioner gives too), a frame goes out once it holds
`frame_max_records` messages (or its topic's `Topic.frame_records`, if fewer) or `frame_max_bytes` bytes, at
`send_frames` and at `flush`; the consumer unpacks each frame into the records its messages would have been and
commits past a frame's offset only with its last message. `frame_max_records: 1` sends every message as a record
of its own.
"""

from __future__ import annotations

import logging
import math
import random
import re
import socket
import threading
import time
import uuid
from collections import deque
from collections.abc import Iterable
from typing import Any

from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, KafkaException, Message, Producer, TopicPartition
from confluent_kafka.admin import AdminClient
from confluent_kafka.cimpl import NewTopic

from livetab import topics
from livetab.bus.base import BrokerUnreachable, Outgoing, Record, Retryable, Uncommitted, producer_headers
from livetab.bus.frames import FrameBuffer, unpack
from livetab.settings import KafkaSettings

__all__ = ["BrokerUnreachable", "DeliveryFailed", "KafkaBus", "RecordRefused", "check_broker", "ensure_topics", "move_group",
           "murmur2"]

log = logging.getLogger(__name__)


class _Repeats(logging.Filter):
    """librdkafka's log lines and client-wide errors once per `every_s` seconds each (numbers aside): with the
    broker away every client logs its failed connect ~20 times a second, and the worker goes on by itself once the
    broker is back."""

    def __init__(self, every_s: float = 30.0) -> None:
        super().__init__()
        self.every_s = every_s
        self._last: dict[str, float] = {}
        self._lock = threading.Lock()

    def filter(self, record: logging.LogRecord) -> bool:
        key = _DIGITS.sub("#", _SUPPRESSED.sub("", record.getMessage()))[:160]
        now = time.monotonic()
        with self._lock:
            if now - self._last.get(key, -math.inf) < self.every_s:
                return False
            if len(self._last) > 1000:
                self._last.clear()
            self._last[key] = now
        return True


_DIGITS = re.compile(r"\d+")
_SUPPRESSED = re.compile(r", \d+ identical error\(s\) suppressed")  # librdkafka's own count of a repeat
# librdkafka's own log lines and errors, through Python's logging (a child of "kafka", which livetab.telemetry keeps
# at WARNING), each kind once per 30 s
_client_log = logging.getLogger("kafka.librdkafka")
_client_log.addFilter(_Repeats())

# a commit refused because this consumer's group membership changed: passing, the worker rewinds and goes on
_MEMBERSHIP = frozenset({KafkaError.REBALANCE_IN_PROGRESS, KafkaError.ILLEGAL_GENERATION,
                         KafkaError.UNKNOWN_MEMBER_ID, KafkaError.FENCED_INSTANCE_ID, KafkaError._ASSIGNMENT_LOST})
# errors a later try may not meet: the broker away or restarting, a coordinator moving, a wait that ran out
_PASSING = frozenset({KafkaError._TRANSPORT, KafkaError._ALL_BROKERS_DOWN, KafkaError._TIMED_OUT,
                      KafkaError._MSG_TIMED_OUT, KafkaError._WAIT_COORD, KafkaError.REQUEST_TIMED_OUT,
                      KafkaError.COORDINATOR_NOT_AVAILABLE, KafkaError.NOT_COORDINATOR,
                      KafkaError.COORDINATOR_LOAD_IN_PROGRESS, KafkaError.NOT_ENOUGH_REPLICAS,
                      KafkaError.LEADER_NOT_AVAILABLE, KafkaError.NOT_LEADER_FOR_PARTITION,
                      KafkaError._RESOLVE, KafkaError.NETWORK_EXCEPTION})


class DeliveryFailed(Exception):
    """Records the broker did not take for a reason a retry will not mend (a flush raises it; nothing is
    committed then)."""


class RecordRefused(Exception):
    """The client refused one record outright (e.g. larger than `message.max.bytes`): that record's failure."""


def _passing(err: KafkaError) -> bool:
    """Whether librdkafka's error is one a later try may not meet."""
    return err.code() in _PASSING or err.code() in _MEMBERSHIP or bool(err.retriable())


def _error_of(e: KafkaException) -> KafkaError:
    return e.args[0] if e.args and isinstance(e.args[0], KafkaError) else KafkaError(KafkaError._FAIL, str(e))


def _described(err: KafkaError) -> str:
    return f"{err.name()}: {err.str()}"


def _client_config(bootstrap: str, what: str, **extra: Any) -> dict[str, Any]:
    """A client's settings: librdkafka's log lines and its client-wide errors (e.g. every connection refused while a
    broker restarts; the client reconnects by itself) both through `_client_log`, each kind once per 30 s."""

    def error(err: KafkaError) -> None:
        _client_log.log(logging.ERROR if err.fatal() else logging.WARNING, "%s: %s", what, _described(err))

    return {"bootstrap.servers": bootstrap, "error_cb": error, "logger": _client_log, "log.connection.close": False,
            **extra}


def _consumer_config(settings: KafkaSettings, what: str, **extra: Any) -> dict[str, Any]:
    """What every consumer of the bus reads with: offsets never committed or stored by librdkafka itself, what it
    fetches ahead bounded (its default, 64 MiB, is a burst's memory in every service), and an idle fetch held at
    the broker `fetch_wait_max_ms` (each idle fetch costs the broker CPU)."""
    return _client_config(settings.bootstrap_servers, what, **{
        "enable.auto.commit": False, "enable.auto.offset.store": False,
        "queued.max.messages.kbytes": settings.fetch_queue_kbytes, "fetch.wait.max.ms": settings.fetch_wait_max_ms,
        **extra})


def check_broker(bootstrap: str, timeout_s: float = 10.0) -> None:
    """Fail fast, with the address in the message, when nothing listens at `bootstrap`."""
    for addr in bootstrap.split(","):
        host, _, port = addr.strip().rpartition(":")
        try:
            with socket.create_connection((host or "127.0.0.1", int(port)), timeout=timeout_s):
                return
        except (OSError, ValueError):
            continue
    raise BrokerUnreachable(f"no Kafka broker answers at {bootstrap!r} (kafka.bootstrap_servers)")


def ensure_topics(bootstrap: str, names: list[str] | None = None, extra: list[str] | None = None,
                  connect_timeout_s: float = 10.0, *, replication: int = 1, retention_ms: int | None = None) -> None:
    """Create the registry's topics (and `extra` ones, e.g. per-pool request topics) that do not exist yet,
    with the registry's partitions, `replication` and, when given, `retention.ms`.
    Nothing listening at `bootstrap` is one `BrokerUnreachable` at once, not a client's retry log."""
    check_broker(bootstrap, connect_timeout_s)
    wanted = [t for t in topics.TOPICS if names is None or t.name in names]
    wanted += [topics.by_name(n) for n in extra or [] if n not in {t.name for t in wanted}]
    admin = AdminClient(_client_config(bootstrap, "the topic admin", **{"client.id": "livetab-admin"}))
    try:
        existing = set(admin.list_topics(timeout=15).topics)
    except KafkaException:
        raise BrokerUnreachable(f"no Kafka broker answers at {bootstrap!r} (kafka.bootstrap_servers)") from None
    configs = {"retention.ms": str(retention_ms)} if retention_ms else {}
    new = [NewTopic(t.name, num_partitions=t.partitions, replication_factor=replication, config=configs)
           for t in wanted if t.name not in existing]
    if not new:
        return
    for name, future in admin.create_topics(new, request_timeout=15).items():
        try:
            future.result()
        except KafkaException as e:
            if _error_of(e).code() != KafkaError.TOPIC_ALREADY_EXISTS:
                raise RuntimeError(f"cannot create topic {name}: {_described(_error_of(e))}") from None


def murmur2(data: bytes) -> int:
    """The 32-bit MurmurHash2 of `data` with Kafka's seed, as the Java client's default partitioner computes it
    (a signed int): a key's partition is `(murmur2(key) & 0x7FFFFFFF) % partitions`."""
    m, mask = 0x5BD1E995, 0xFFFFFFFF
    length = len(data)
    h = (0x9747B28C ^ length) & mask
    end = length & ~3
    for i in range(0, end, 4):
        k = int.from_bytes(data[i:i + 4], "little")
        k = (k * m) & mask
        k ^= k >> 24
        k = (k * m) & mask
        h = ((h * m) & mask) ^ k
    rest = length & 3
    if rest:
        if rest == 3:
            h ^= data[end + 2] << 16
        if rest >= 2:
            h ^= data[end + 1] << 8
        h ^= data[end]
        h = (h * m) & mask
    h ^= h >> 13
    h = (h * m) & mask
    h ^= h >> 15
    return h - (1 << 32) if h & 0x80000000 else h


class KafkaBus:
    def __init__(self, settings: KafkaSettings, client_id: str = "livetab") -> None:
        self.settings = settings
        check_broker(settings.bootstrap_servers, settings.connect_timeout_s)
        self._producer = Producer(_client_config(settings.bootstrap_servers, f"{client_id}'s producer", **{
            "client.id": client_id,
            "acks": "all",
            "enable.idempotence": True,
            "linger.ms": settings.linger_ms,
            "batch.size": settings.batch_size,
            "request.timeout.ms": settings.request_timeout_ms,
            "message.timeout.ms": settings.delivery_timeout_ms,
            "queue.buffering.max.kbytes": settings.producer_buffer_kbytes,
            "max.in.flight.requests.per.connection": 5,
            "partitioner": "murmur2_random",  # a key's partition as `_partition` gives it
            "delivery.report.only.error": True,  # the callback runs for failures alone
            "on_delivery": self._delivered,
        }))
        self._failures: list[KafkaError] = []
        # frames being filled, per (topic, partition), and what picks a message's partition
        self._frames: dict[tuple[str, int], FrameBuffer] = {}
        self._frame_records: dict[str, int] = {}  # topic: messages per frame at most (`_frame_records`)
        self._frames_lock = threading.Lock()
        self._partitions: dict[str, tuple[float, list[int]]] = {}  # topic: (when asked, its partitions)
        self._keyed: dict[tuple[str, bytes], int] = {}  # (topic, key): partition (murmur2 is pure Python)
        self._sticky: dict[str, int] = {}  # topic: the partition of its keyless messages until their frame goes
        self._topics: set[str] = set()
        self._topics_at = 0.0
        self._topics_lock = threading.Lock()

    def topic_exists(self, name: str) -> bool:
        """Whether the broker has `name` (auto-creation is off: publishing to a missing topic would wait for its
        metadata and then fail). Known topics are cached; a miss asks the broker again, at most once a second."""
        with self._topics_lock:
            if name in self._topics:
                return True
            if time.monotonic() - self._topics_at < 1.0:
                return False
            try:
                found = self._producer.list_topics(timeout=self.settings.request_timeout_ms / 1000).topics
            except KafkaException as e:
                log.warning("cannot list the broker's topics (%s); assuming %s exists", e, name)
                return True
            self._topics = {t for t, meta in found.items() if meta.error is None}
            self._topics_at = time.monotonic()
            return name in self._topics

    def _delivered(self, err: KafkaError | None, msg: Message) -> None:
        if err is not None:
            self._failures.append(err)

    def publish(self, out: Outgoing, headers: dict[str, str] | None = None) -> None:
        """Add `out` to its partition's frame (sent when full, at `send_frames` or at `flush`). A message too
        large to share a frame is sent alone at once, so the client's refusal of it (over `message.max.bytes`)
        is raised here, the record's own. A send that cannot start in `max_block_ms` (no topic metadata, a full
        buffer) is a passing failure (`Retryable`)."""
        headers = headers if headers is not None else producer_headers(out)
        value = out.message.SerializeToString()
        key = out.key.encode() if out.key else None
        limit = self._frame_records.get(out.topic)
        if limit is None:
            limit = self._frame_records[out.topic] = _frame_records(out.topic, self.settings.frame_max_records)
        if limit <= 1 or len(value) > self.settings.frame_max_bytes // 4:
            self._send(out.topic, value, key, _encoded(headers))
            return
        partition = self._partition(out.topic, key)
        where = (out.topic, partition)
        with self._frames_lock:
            frame = self._frames.get(where)
            if frame is None:
                frame = self._frames[where] = FrameBuffer()
            frame.add(key, value, headers)
            if len(frame) < limit and frame.size < self.settings.frame_max_bytes:
                return
            del self._frames[where]
        self._send_frame(where, frame)

    def send_frames(self) -> None:
        """Hand every frame being filled to the producer now (sent as its linger allows, acknowledged by the next
        flush)."""
        with self._frames_lock:
            frames, self._frames = self._frames, {}
        for where, frame in frames.items():
            self._send_frame(where, frame)
        self._producer.poll(0)  # failures' callbacks and the client's log lines

    def _send_frame(self, where: tuple[str, int], frame: FrameBuffer) -> None:
        topic, partition = where
        if self._sticky.get(topic) == partition:
            del self._sticky[topic]  # the next keyless messages go to another partition
        if len(frame) == 1:  # a message alone goes as the plain record it is
            key, value, headers = frame.items[0]
            self._send(topic, value, key or None, _encoded(headers), partition)
        else:
            value, record_headers = frame.take()
            self._send(topic, value, None, record_headers, partition)

    def _send(self, topic: str, value: bytes, key: bytes | None, headers: list[tuple[str, bytes]],
              partition: int | None = None) -> None:
        """Hand a record to the producer; while its buffer is full, wait (serving its callbacks) for at most
        `max_block_ms`. A record the client refuses outright (too large) raises `RecordRefused`."""
        kwargs: dict[str, Any] = {"value": value, "key": key, "headers": headers}
        if partition is not None:
            kwargs["partition"] = partition
        deadline = None
        while True:
            try:
                self._producer.produce(topic, **kwargs)
                return
            except BufferError:
                now = time.monotonic()
                deadline = deadline or now + self.settings.max_block_ms / 1000
                if now > deadline:
                    raise Retryable(f"publishing to {topic}: the producer's buffer stayed full for "
                                    f"{self.settings.max_block_ms} ms") from None
                self._producer.poll(0.05)
            except KafkaException as e:
                err = _error_of(e)
                raise RecordRefused(f"{err.name()} ({err.str()}): a record of {len(value):,} bytes to {topic}"
                                    ) from None

    def _partition(self, topic: str, key: bytes | None) -> int:
        """The partition the Java client's default partitioner gives `key` (murmur2 of the key over the topic's
        partitions, sorted); a keyless message joins the topic's current keyless frame, whose partition is drawn
        at random when it starts (as the sticky partitioner does). A topic's partitions are asked again after
        30 s, so partitions added to it are used."""
        now = time.monotonic()
        known = self._partitions.get(topic)
        if known is None or now - known[0] > 30.0:
            parts = self._partitions_of(topic)
            if known is not None and known[1] != parts:
                self._keyed.clear()
            known = self._partitions[topic] = (now, parts)
        parts = known[1]
        if key is None:
            sticky = self._sticky.get(topic)
            if sticky is None or sticky not in parts:
                sticky = self._sticky[topic] = random.choice(parts)
            return sticky
        partition = self._keyed.get((topic, key))
        if partition is None:
            if len(self._keyed) > 100_000:
                self._keyed.clear()
            partition = self._keyed[(topic, key)] = parts[(murmur2(key) & 0x7FFFFFFF) % len(parts)]
        return partition

    def _partitions_of(self, topic: str) -> list[int]:
        """The topic's partitions, sorted, from the broker's metadata (asked for up to `max_block_ms`)."""
        deadline = time.monotonic() + self.settings.max_block_ms / 1000
        while True:
            parts, why = _partitions(self._producer, topic, max(0.1, deadline - time.monotonic()))
            if parts:
                return parts
            if time.monotonic() > deadline:
                raise Retryable(f"no partitions known for {topic} after {self.settings.max_block_ms} ms: {why}")
            time.sleep(0.1)

    def publish_raw(self, topic: str, value: bytes, headers: dict[str, str], key: bytes | None = None) -> None:
        self._send(topic, value, key, _encoded(headers))

    def flush(self, timeout_s: float = 30.0) -> None:
        """Send the frames being filled, then block until every published record is acknowledged; raise if any
        was not (nothing is committed then): `Retryable` when the broker may take them later (still away after
        `timeout_s`, a delivery that timed out), `DeliveryFailed` when it refused them."""
        self.send_frames()
        left = self._producer.flush(timeout_s)
        failures, self._failures = self._failures, []
        if failures:
            lasting = [f for f in failures if not _passing(f)]
            text = f"{len(failures)} record(s) were not acknowledged: {_described((lasting or failures)[0])}"
            if lasting:
                raise DeliveryFailed(text)
            raise Retryable(text)
        if left:
            raise Retryable(f"{left} record(s) still unacknowledged after {timeout_s:.0f} s")

    def consumer(self, group: str, topic_names: list[str]) -> KafkaBusConsumer:
        return KafkaBusConsumer(self.settings, group, topic_names)

    def tail(self, topic_names: list[str]) -> KafkaTail:
        return KafkaTail(self.settings, topic_names)

    def close(self) -> None:
        try:
            self.flush(10)
        except (Retryable, DeliveryFailed) as e:
            log.warning("records still unacknowledged at close: %s", e)


def _encoded(headers: dict[str, str]) -> list[tuple[str, bytes]]:
    """Headers as a Kafka record carries them."""
    return [(k, v.encode()) for k, v in headers.items()]


METADATA_WAIT_S = 10.0  # how long a new consumer asks for its topics' partitions before it joins without them


def _assignment_text(assigned: Iterable[TopicPartition]) -> str:
    """`topic [0, 1]; other [0]` (sorted), or "no partitions"."""
    by_topic: dict[str, list[int]] = {}
    for tp in assigned:
        by_topic.setdefault(tp.topic, []).append(tp.partition)
    return "; ".join(f"{t} {sorted(ps)}" for t, ps in sorted(by_topic.items())) or "no partitions"


def _record(m: Any) -> Record:  # a confluent_kafka.Message (its stubs type a record's fields loosely)
    raw = m.headers()
    try:  # this runs per record: the plain decode first, the careful one for odd headers
        headers = {k: v.decode() for k, v in raw} if raw else {}
    except (AttributeError, UnicodeDecodeError):  # a null value, or bytes that are not UTF-8
        headers = {k: (v.decode("utf-8", "replace") if v is not None else "") for k, v in raw or ()}
    return Record(m.topic(), m.partition(), m.offset(), m.key(), m.value() or b"", headers)


class _Reader:
    """What a group consumer and a tail share: a poll that returns as soon as one record is there and then takes
    what else is already fetched, up to `want`; librdkafka's events among the records logged (or raised when
    fatal)."""

    _c: Consumer
    _what: str

    def _read(self, want: int, timeout_s: float) -> list[Record]:
        # Consumer.consume(n, timeout) waits until it has n records or the timeout ran out: a first poll that
        # returns with the first record, then a consume that does not wait
        try:
            first = self._c.poll(timeout_s)
            if first is None:
                return []
            got = [first] + (self._c.consume(want - 1, 0) if want > 1 else [])
        except KafkaException as e:
            err = _error_of(e)
            if _passing(err):
                raise Retryable(f"{self._what}: {_described(err)}") from None
            raise
        out: list[Record] = []
        for m in got:
            event = m.error()
            if event is None:
                out.append(_record(m))
            elif event.fatal():
                raise KafkaException(event)
            elif event.code() != KafkaError._PARTITION_EOF:
                log.warning("%s: %s", self._what, _described(event))
        return out


def _partitions(client: Producer | Consumer, topic: str, timeout_s: float) -> tuple[list[int], str]:
    """The topic's partitions, sorted, as the broker's metadata gives them now; none, and why, when it gives none
    (the topic does not exist, or the broker did not answer in `timeout_s`)."""
    try:
        meta = client.list_topics(topic, timeout=timeout_s).topics.get(topic)
    except KafkaException as e:
        return [], _described(_error_of(e))
    if meta is None:
        return [], "not in the broker's metadata"
    if meta.error is not None:
        return [], _described(meta.error)
    return sorted(meta.partitions), "no partitions"


def _unknown_partitions(client: Consumer, names: list[str]) -> dict[str, list[int]]:
    """The partitions of each topic of `names`, asked for a few seconds (a topic another process has just created
    may not have them yet): a topic still unknown then has none."""
    known: dict[str, list[int]] = {}
    deadline = time.monotonic() + METADATA_WAIT_S
    while True:
        for name in names:
            if not known.get(name):
                known[name] = _partitions(client, name, 2.0)[0]
        if all(known.values()) or time.monotonic() > deadline:
            return known
        time.sleep(0.2)


def _watermarks(client: Consumer, tp: TopicPartition, timeout_s: float) -> tuple[int, int]:
    """The partition's first and end offsets now; a passing refusal (a leader the client does not know yet) is
    asked again until `timeout_s` ran out."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            low, high = client.get_watermark_offsets(tp, timeout=max(0.1, deadline - time.monotonic()))
            return int(low), int(high)
        except KafkaException as e:
            err = _error_of(e)
            if not _passing(err):
                raise
            if time.monotonic() > deadline:
                raise Retryable(f"no end offset for {tp.topic} [{tp.partition}]: {_described(err)}") from None
            time.sleep(0.1)


class KafkaTail(_Reader, Uncommitted):
    """What is published to `topic_names` from now on (`Bus.tail`): no consumer group joined (librdkafka asks
    for a group id; this one is never used), every partition assigned from its end as it is now, nothing
    committed; frames unpacked into their messages."""

    def __init__(self, settings: KafkaSettings, topic_names: list[str]) -> None:
        self._what = "tailing " + ", ".join(topic_names)
        self._c = Consumer(_consumer_config(settings, self._what, **{"group.id": f"livetab-tail-{uuid.uuid4().hex}"}))
        known = _unknown_partitions(self._c, topic_names)
        if missing := [name for name, parts in known.items() if not parts]:
            self._c.close()
            raise Retryable(f"no partitions known for {', '.join(missing)} after {METADATA_WAIT_S:.0f} s")
        timeout = settings.request_timeout_ms / 1000
        # from each partition's end, now (an assignment "from the end" would find it only at its first fetch, later)
        self._c.assign([TopicPartition(name, p, _watermarks(self._c, TopicPartition(name, p), timeout)[1])
                        for name, parts in known.items() for p in parts])

    def poll(self, max_records: int, timeout_s: float) -> list[Record]:
        return [m for rec in self._read(max_records, timeout_s) for m in unpack(rec)]

    def close(self) -> None:
        self._c.close()


class KafkaBusConsumer(_Reader):
    def __init__(self, settings: KafkaSettings, group: str, topic_names: list[str]) -> None:
        self._group = group
        self._what = f"group {group}"
        self._c = Consumer(_consumer_config(settings, self._what, **{
            "group.id": group,
            "auto.offset.reset": "earliest",
            "session.timeout.ms": settings.session_timeout_ms,
            "heartbeat.interval.ms": settings.heartbeat_interval_ms,
            "on_commit": self._answered,
        }))
        self._max_poll_records = settings.max_poll_records
        self._commit_wait_s = max(settings.request_timeout_ms, settings.session_timeout_ms + 5000) / 1000
        # Commits are sent without waiting (librdkafka sends them in order); their answers come back through
        # `_answered` during a later poll: how many are unanswered, the last refusal by a rebalance not yet
        # raised, and whether the broker took the last one sent
        self._unanswered = 0
        self._refused: KafkaError | None = None
        self._confirmed = True
        self._last: dict[tuple[str, int], int] = {}  # the offsets committed last, by (topic, partition)
        self._rewind_due = False  # a rewind could not read the committed offsets: seek before the next poll
        # Read and not handed out yet (a poll hands out at most `max_records` messages): records, a frame unpacked
        # only when its turn comes, so what is held as messages stays near `max_records` whatever the frames' size.
        # The client is polled, and so may rebalance, only once both are empty: nothing held belongs to a
        # partition another member has taken.
        self._polled: deque[Record] = deque()
        self._unpacked: deque[Record] = deque()  # the messages of the frame being handed out
        # messages per Kafka record lately, which says how many records a poll asks for; it starts at a frame's
        # most, so a first poll never takes far more messages than asked for
        self._per_record = float(settings.frame_max_records)
        # The topics' partitions known before the first poll joins the group: a join that comes first is given
        # nothing and the group must rebalance again once they are known.
        if missing := [name for name, parts in _unknown_partitions(self._c, topic_names).items() if not parts]:
            log.warning("group %s: no partitions known yet for %s; its first assignment may leave them out",
                        group, ", ".join(missing))
        self._c.subscribe(topic_names, on_assign=self._assigned)

    def _assigned(self, consumer: Consumer, partitions: list[TopicPartition]) -> None:
        """One log line each time the group gives this consumer its partitions: a worker that reads nothing shows
        whether it holds nothing or holds partitions and waits."""
        log.info("group %s assigned %s", self._group, _assignment_text(partitions))

    def _answered(self, err: KafkaError | None, partitions: list[TopicPartition]) -> None:
        """The broker's answer to a commit (called by librdkafka during a poll)."""
        self._unanswered = max(0, self._unanswered - 1)
        err = err or next((tp.error for tp in partitions if tp.error is not None), None)
        if err is None or err.code() == KafkaError._NO_OFFSET:
            self._confirmed = self._unanswered == 0 or self._confirmed
            return
        self._confirmed = False
        if err.code() in _MEMBERSHIP:
            self._refused = err
        else:
            log.warning("an offset commit failed (%s); the next commit covers its offsets", _described(err))

    def poll(self, max_records: int, timeout_s: float) -> list[Record]:
        """Up to `max_records` messages: those read earlier first, else a poll of about as many messages
        (records asked for by how many messages a record held lately), frames unpacked in turn."""
        if not (self._polled or self._unpacked):
            if self._rewind_due:
                self._seek_committed()
            self._raise_refusal()
            self._recommit()
            want = max(1, min(self._max_poll_records, math.ceil(max_records / self._per_record)))
            self._polled.extend(self._read(want, timeout_s))
        return self._hand_out(max_records)

    def _hand_out(self, max_records: int) -> list[Record]:
        out: list[Record] = []
        polled, unpacked = self._polled, self._unpacked
        while len(out) < max_records:
            if not unpacked:
                if not polled:
                    break
                messages = unpack(polled.popleft())  # a plain record is one message
                self._per_record = 0.9 * self._per_record + 0.1 * len(messages)
                unpacked.extend(messages)
            take = unpacked.popleft
            out.extend(take() for _ in range(min(max_records - len(out), len(unpacked))))
        return out

    def commit(self, records: list[Record]) -> None:
        """Commit past each partition's last record here; past a frame's offset only with its last message (a
        frame partly done is read again after a restart).

        The commit is sent and not waited for: the broker takes ~7-14 ms to answer one, time a worker spends on
        its next batch instead. librdkafka sends commits in order. A refusal by a rebalance (answered during a
        later poll) is raised by the next `commit` or poll as `Retryable` (the worker rewinds to what is
        committed and reads its records again: effects are idempotent). A commit that failed for a passing
        reason (a timeout, the coordinator moving) is left to the next, which covers its offsets, or sent again
        by an idle poll; `close` commits the last offsets and waits."""
        offsets: dict[tuple[str, int], int] = {}
        for r in records:
            where, nxt = (r.topic, r.partition), r.next_offset
            if offsets.get(where, -1) < nxt:
                offsets[where] = nxt
        if not offsets:
            return
        self._raise_refusal()
        self._send_commit(offsets)
        self._last = {**self._last, **offsets}

    def _send_commit(self, offsets: dict[tuple[str, int], int]) -> None:
        try:
            self._c.commit(offsets=[TopicPartition(t, p, o) for (t, p), o in offsets.items()], asynchronous=True)
        except KafkaException as e:  # refused before it was sent (e.g. no group coordinator known yet)
            err = _error_of(e)
            if err.code() in _MEMBERSHIP:
                raise self._refusal(err) from None
            log.warning("an offset commit could not be sent (%s); the next commit covers its offsets",
                        _described(err))
            self._confirmed = False
            return
        self._unanswered += 1
        self._confirmed = False

    def _raise_refusal(self) -> None:
        """A commit refused by a rebalance since the last call: the group may have moved its partitions, so what
        a later poll reads is committed anew (the worker rewinds and reads again)."""
        refused, self._refused = self._refused, None
        if refused is not None:
            raise self._refusal(refused)

    def _refusal(self, err: KafkaError) -> Retryable:
        """The group may have moved its partitions: what a later poll reads is committed anew."""
        self._last = {}
        return Retryable(f"offset commit refused while the group rebalances: {_described(err)}")

    def _recommit(self) -> None:
        """Before a poll: once every commit is answered, send the last again if it failed for a passing reason,
        since no later commit may come to cover it (an idle consumer's lag would stay)."""
        if not self._unanswered and not self._confirmed and (last := self._last_assigned()):
            self._send_commit(last)

    def _last_assigned(self) -> dict[tuple[str, int], int]:
        """The last offsets committed of the partitions still assigned: never another member's, whose offsets a
        commit of ours would move back."""
        try:
            mine = {(tp.topic, tp.partition) for tp in self._c.assignment()}
        except KafkaException:
            return {}
        return {where: o for where, o in self._last.items() if where in mine}

    def rewind(self) -> None:
        """Drop what was read and not handed out, and go back to the committed offsets. With the broker away the
        committed offsets cannot be read: the seek is then due, and the next poll makes it (or fails as passing)
        before it reads anything, so nothing after a committed offset is skipped."""
        self._polled.clear()
        self._unpacked.clear()
        self._refused = None  # the rewind is what a refusal asks for
        self._rewind_due = True
        try:
            self._seek_committed()
        except Retryable as e:
            log.warning("%s; the seek is made before the next poll", e)

    def _seek_committed(self) -> None:
        what = f"reading the committed offsets of group {self._group}"
        try:
            assigned = self._c.assignment()
            if assigned:
                for tp in self._c.committed(assigned, timeout=self._commit_wait_s):
                    if tp.error is not None:
                        raise KafkaException(tp.error)
                    self._c.seek(TopicPartition(tp.topic, tp.partition, tp.offset if tp.offset >= 0
                                                else OFFSET_BEGINNING))
        except KafkaException as e:
            err = _error_of(e)
            if not (_passing(err) or err.code() == KafkaError._STATE):
                raise
            raise Retryable(f"{what}: {_described(err)}") from None
        self._rewind_due = False

    def close(self) -> None:
        """Commit the last offsets once more and wait, unless the broker took them (one that failed for a passing
        reason was left to a next that never came), then leave the group."""
        try:
            if not self._confirmed and (last := self._last_assigned()):
                self._c.commit(offsets=[TopicPartition(t, p, o) for (t, p), o in last.items()],
                               asynchronous=False)
        except KafkaException as e:  # the group moved on: a later member reads from what was committed
            log.warning("the last offset commit on close failed (%s)", _described(_error_of(e)))
        self._c.close()


def move_group(bootstrap: str, group: str, topic: str, start: int | float) -> dict[int, int]:
    """Commit `group`'s offsets on every partition of `topic` to `start`: an offset (within each partition's
    first and end), or a time in epoch milliseconds given as a float (the first record at or after it; the end
    when none). {partition: offset}. A group with running members refuses it: `ValueError` says so."""
    c = Consumer(_client_config(bootstrap, f"moving group {group}", **{"group.id": group,
                                                                      "enable.auto.commit": False}))
    try:
        parts, _ = _partitions(c, topic, 10.0)
        if not parts:
            raise ValueError(f"topic {topic} does not exist on the broker")
        target: dict[int, int] = {}
        for p in parts:
            low, high = _watermarks(c, TopicPartition(topic, p), 10.0)
            if isinstance(start, float):
                found = c.offsets_for_times([TopicPartition(topic, p, int(start))], timeout=10)[0].offset
                target[p] = found if found >= 0 else high
            else:
                target[p] = min(max(start, low), high)
        try:
            c.commit(offsets=[TopicPartition(topic, p, o) for p, o in target.items()], asynchronous=False)
        except KafkaException as e:
            raise ValueError(f"the broker refused the new offsets of group {group} ({_error_of(e).name()}); "
                             "stop the group's workers first") from None
        return target
    finally:
        c.close()


def _frame_records(topic: str, most: int) -> int:
    """Messages per frame at most on `topic` (`Topic.frame_cap`); a topic outside the registry (a test's) has no
    cap of its own."""
    try:
        return topics.by_name(topic).frame_cap(most)
    except KeyError:
        return most
