"""The in-process bus for embedded mode: one ordered log per topic, committed offsets per group."""

from __future__ import annotations

import threading
import time
from collections import defaultdict

from livetab.bus.base import Outgoing, Record, Uncommitted, producer_headers

__all__ = ["InProcBus"]


class InProcBus:
    def __init__(self, known_topics: set[str] | None = None) -> None:
        """`known_topics`: the topics that exist (as on a broker without auto-creation); None: every topic."""
        self.known_topics = known_topics
        self._logs: dict[str, list[Record]] = defaultdict(list)
        self._committed: dict[tuple[str, str], int] = defaultdict(int)
        self._lock = threading.Lock()

    def publish(self, out: Outgoing, headers: dict[str, str] | None = None) -> None:
        headers = headers if headers is not None else producer_headers(out)
        with self._lock:
            log = self._logs[out.topic]
            log.append(Record(out.topic, 0, len(log), out.key.encode() or None, out.message.SerializeToString(),
                              headers))

    def topic_exists(self, name: str) -> bool:
        return self.known_topics is None or name in self.known_topics

    def publish_raw(self, topic: str, value: bytes, headers: dict[str, str], key: bytes | None = None) -> None:
        """For tests: put arbitrary bytes on a topic (e.g. a malformed record)."""
        with self._lock:
            log = self._logs[topic]
            log.append(Record(topic, 0, len(log), key, value, dict(headers)))

    def send_frames(self) -> None:
        return None  # every publish is in the log at once

    def flush(self, timeout_s: float = 30.0) -> None:
        return None

    def records(self, topic: str) -> list[Record]:
        with self._lock:
            return list(self._logs[topic])

    def lag(self, group: str, topic: str) -> int:
        with self._lock:
            return len(self._logs[topic]) - self._committed[(group, topic)]

    def consumer(self, group: str, topic_names: list[str]) -> InProcConsumer:
        return InProcConsumer(self, group, topic_names)

    def tail(self, topic_names: list[str]) -> InProcTail:
        return InProcTail(self, topic_names)

    def close(self) -> None:
        return None


class InProcConsumer:
    def __init__(self, bus: InProcBus, group: str, topic_names: list[str]) -> None:
        self._bus = bus
        self._group = group
        self._topics = topic_names
        self._pos = {t: bus._committed[(group, t)] for t in topic_names}

    def poll(self, max_records: int, timeout_s: float) -> list[Record]:
        out: list[Record] = []
        with self._bus._lock:
            for t in self._topics:
                log = self._bus._logs[t]
                take = log[self._pos[t]: self._pos[t] + max_records - len(out)]
                self._pos[t] += len(take)
                out.extend(take)
                if len(out) >= max_records:
                    break
        return out

    def commit(self, records: list[Record]) -> None:
        with self._bus._lock:
            for r in records:
                key = (self._group, r.topic)
                self._bus._committed[key] = max(self._bus._committed[key], r.next_offset)

    def rewind(self) -> None:
        with self._bus._lock:
            self._pos = {t: self._bus._committed[(self._group, t)] for t in self._topics}

    def close(self) -> None:
        return None


class InProcTail(Uncommitted, InProcConsumer):
    """What is published from now on (`Bus.tail`): no group, nothing committed."""

    def __init__(self, bus: InProcBus, topic_names: list[str]) -> None:
        super().__init__(bus, "", topic_names)
        with bus._lock:
            self._pos = {t: len(bus._logs[t]) for t in topic_names}

    def poll(self, max_records: int, timeout_s: float) -> list[Record]:
        out = super().poll(max_records, timeout_s)
        if not out and timeout_s > 0:
            time.sleep(min(timeout_s, 0.01))  # a watcher's loop polls again; the in-process log has no wait
        return out
