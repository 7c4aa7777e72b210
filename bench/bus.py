"""Kafka bus throughput: 1 KB protobuf messages produced and consumed back through livetab's bus
(confluent-kafka; headers, trace context, acks=all idempotent producer, manual commits) against raw kafka-python
doing the same round trip with its default settings, on the same broker in the same run.

Also measured, side by side: livetab with every message a record of its own (`kafka.frame_max_records` 1, the
bus before frames), raw kafka-python given livetab's producer settings and the same four headers (the client the
bus used before confluent-kafka, without the bus), livetab recording every span, and livetab with a no-op
tracer."""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kafka import KafkaConsumer, KafkaProducer
from kafka.admin import KafkaAdminClient, NewTopic
from livetab import telemetry
from livetab.bus import Outgoing
from livetab.bus.kafka import KafkaBus, ensure_topics
from livetab.settings import KafkaSettings
from livetab.telemetry import configure_telemetry
from livetab.topics import by_name, requests_topic
from livetab.v1 import common_pb2, inference_pb2
from opentelemetry import trace

from bench.common import peak_rss_mb, write_result

N = 20_000
ROUNDS = 5
ROOT = Path(__file__).resolve().parents[1]


def _message(i: int) -> inference_pb2.InferenceRequest:
    """About 1 KB: an inference request whose model spec carries a padded parameter."""
    return inference_pb2.InferenceRequest(id=f"req{i:08d}", run_id="run", question_id=f"q{i}", format="markdown",
                                          model=common_pb2.ModelSpec(name="m", params={"pad": "x" * 860}))


def _fresh_topic(bootstrap: str, name: str) -> None:
    admin = KafkaAdminClient(bootstrap_servers=bootstrap)
    admin.create_topics([NewTopic(name, 3, 1)])
    admin.close()


def bench_livetab(bootstrap: str, **settings: Any) -> float:
    """Messages per second through livetab's Kafka bus (its settings, as deployed, unless `settings` says)."""
    # a fresh pool topic each round (registry-typed: InferenceRequest), like the raw side's fresh topic
    topic = requests_topic(f"bench{uuid.uuid4().hex[:6]}")
    _fresh_topic(bootstrap, topic)
    bus = KafkaBus(KafkaSettings(bootstrap_servers=bootstrap, session_timeout_ms=6000, heartbeat_interval_ms=1000,
                                 max_poll_records=2000, **settings))
    c = bus.consumer(f"g-{topic}", [topic])
    c.poll(1, 1.0)  # join the group before timing
    t0 = time.perf_counter()
    for i in range(N):
        bus.publish(Outgoing(topic, _message(i), key=str(i % 64)))
    bus.flush(120)
    got = 0
    while got < N:
        recs = c.poll(2000, 1.0)
        got += len(recs)
        if recs:
            c.commit(recs)
    dt = time.perf_counter() - t0
    c.close()
    bus.close()
    return N / dt


HEADERS = [("message-type", b"livetab.v1.InferenceRequest"), ("message-id", b"0123456789ab-12345"),
           ("produced-at", b"1796014634897"), ("traceparent", b"00-" + b"a" * 32 + b"-" + b"b" * 16 + b"-01")]


def bench_raw(bootstrap: str, headers: list[tuple[str, bytes]] | None = None, n: int = N,
              measure: dict[str, float] | None = None, other_cpu: Callable[[], float] | None = None,
              **producer_settings: object) -> float:
    """Messages per second of `n` messages produced and consumed back (bench/pipeline.py's baseline too).
    `measure`, if given, gets this process's CPU seconds over the clocked part (`cpu_s`: the producer's sender
    thread included), its `seconds`, and, with `other_cpu` (another process's CPU seconds so far: the broker's),
    that process's over the same part (`other_cpu_s`)."""
    topic = f"bench-raw-{uuid.uuid4().hex[:6]}"
    _fresh_topic(bootstrap, topic)
    prod = KafkaProducer(bootstrap_servers=bootstrap, acks="all", **producer_settings)
    cons = KafkaConsumer(topic, bootstrap_servers=bootstrap, group_id=f"g-{topic}", auto_offset_reset="earliest",
                         enable_auto_commit=False, session_timeout_ms=6000, heartbeat_interval_ms=1000,
                         max_poll_records=2000)
    cons.poll(timeout_ms=1000)
    o0 = other_cpu() if other_cpu is not None else 0.0
    t0, c0 = time.perf_counter(), time.process_time()
    for i in range(n):
        prod.send(topic, value=_message(i).SerializeToString(), key=str(i % 64).encode(), headers=headers)
    prod.flush(120)
    got = 0
    while got < n:
        batch = cons.poll(timeout_ms=1000, max_records=2000)
        got += sum(len(v) for v in batch.values())
        if batch:
            cons.commit()
    dt = time.perf_counter() - t0
    if measure is not None:
        measure |= {"cpu_s": time.process_time() - c0, "seconds": dt}
        if other_cpu is not None:
            measure["other_cpu_s"] = other_cpu() - o0
    cons.close()
    prod.close()
    return n / dt


def bench_recording(bootstrap: str) -> float:
    """livetab with every span recorded, as when an exporter is configured."""
    telemetry._sampler.recording = True
    try:
        return bench_livetab(bootstrap)
    finally:
        telemetry._sampler.recording = False


def bench_untraced(bootstrap: str) -> float:
    """livetab with a no-op tracer: what trace-context propagation itself costs."""
    telemetry._tracer = trace.NoOpTracer()
    try:
        return bench_livetab(bootstrap)
    finally:
        telemetry._tracer = None


def contenders() -> dict[str, Callable[[str], float]]:
    k = KafkaSettings()
    same: dict[str, Any] = {"enable_idempotence": True, "linger_ms": k.linger_ms, "batch_size": k.batch_size}
    return {
        "raw": bench_raw,  # the baseline: kafka-python as it comes (acks=all), no headers
        "livetab": bench_livetab,  # as deployed: no span exporter, trace context propagated, messages in frames
        # every message a record of its own (kafka.frame_max_records 1): the bus before frames
        "livetab_unframed": lambda b: bench_livetab(b, frame_max_records=1),
        # raw kafka-python given livetab's producer settings and the same four headers (the bus's client until
        # 7 December 2026, without the bus)
        "raw_same_settings_and_headers": lambda b: bench_raw(b, HEADERS, **same),
        "livetab_recording_spans": bench_recording,
        "livetab_untraced": bench_untraced,
    }


def main(argv: list[str] | None = None) -> None:
    """No options: `python -m bench bus` or `python -m bench.bus`."""
    configure_telemetry("bench")
    state = ROOT / ".state" / "bench-kafka"
    bootstrap = subprocess.run([str(ROOT / "deploy" / "kafka.sh"), "up", str(state)], check=True, text=True,
                               capture_output=True).stdout.strip().splitlines()[-1]
    runs: dict[str, list[float]] = {name: [] for name in contenders()}
    try:
        ensure_topics(bootstrap)
        for fn in contenders().values():  # warm-up round, not counted: the broker's JIT and page cache settle
            fn(bootstrap)
        for r in range(ROUNDS):  # every contender once per round, the order rotated, so load hits all alike
            items = list(contenders().items())
            for name, fn in items[r % len(items):] + items[:r % len(items)]:
                runs[name].append(fn(bootstrap))
    finally:
        subprocess.run([str(ROOT / "deploy" / "kafka.sh"), "down", str(state)], check=False)
    # each round's ratio pairs runs made seconds apart; their median is steadier than a ratio of medians
    ratios = {name: [x / r for x, r in zip(xs, runs["raw"], strict=True)] for name, xs in runs.items() if name != "raw"}
    med = {name: statistics.median(xs) for name, xs in runs.items()}
    k = KafkaSettings()
    cap = by_name(requests_topic("bench")).frame_cap(k.frame_max_records)
    write_result("bus", statistics.median(ratios["livetab"]), 0.8,
                 "raw kafka-python producer+consumer (acks=all, otherwise its defaults, manual commit), same broker, "
                 f"same run; a warm-up round, then {ROUNDS} rounds of every contender in rotated order; the ratio is "
                 "the median of the per-round livetab/raw ratios. livetab as deployed: idempotent producer with "
                 f"batch_size {k.batch_size} and linger_ms {k.linger_ms}, up to {cap} messages a record on a requests "
                 "topic (livetab.v1.Frame; Topic.frame_records), four headers per message, no span exporter "
                 "(trace context propagated, spans not recorded)", {
                     "messages": N, "message_bytes": len(_message(0).SerializeToString()), "rounds": ROUNDS,
                     "msgs_per_s_median": {name: round(v, 1) for name, v in med.items()},
                     "msgs_per_s_runs": {name: [round(x, 1) for x in xs] for name, xs in runs.items()},
                     "ratio_to_raw_median": {name: round(statistics.median(xs), 4) for name, xs in ratios.items()},
                     "ratio_to_raw_range": {name: [round(min(xs), 4), round(max(xs), 4)] for name, xs in ratios.items()},
                     "livetab_to_unframed": round(statistics.median(
                         [a / b for a, b in zip(runs["livetab"], runs["livetab_unframed"], strict=True)]), 4),
                     "livetab_to_raw_same_settings_and_headers": round(statistics.median(
                         [a / b for a, b in zip(runs["livetab"], runs["raw_same_settings_and_headers"], strict=True)]), 4),
                     "peak_rss_mb": round(peak_rss_mb(), 1)})


if __name__ == "__main__":
    sys.exit(main())
