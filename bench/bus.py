"""Kafka bus throughput: 1 KB protobuf messages produced and consumed back through livetab's bus
(headers, trace context, acks=all idempotent producer, manual commits) against raw kafka-python doing
the same round trip with default settings, on the same broker in the same run."""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path

from kafka import KafkaConsumer, KafkaProducer
from kafka.admin import KafkaAdminClient, NewTopic
from livetab import telemetry
from livetab.bus import Outgoing
from livetab.bus.kafka import KafkaBus, ensure_topics
from livetab.settings import KafkaSettings
from livetab.telemetry import configure_telemetry
from livetab.topics import requests_topic
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


def bench_livetab(bootstrap: str) -> float:
    # a fresh pool topic each round (registry-typed: InferenceRequest), like the raw side's fresh topic
    topic = requests_topic(f"bench{uuid.uuid4().hex[:6]}")
    _fresh_topic(bootstrap, topic)
    bus = KafkaBus(KafkaSettings(bootstrap_servers=bootstrap, session_timeout_ms=6000, heartbeat_interval_ms=1000,
                                 max_poll_records=2000))
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


def bench_raw(bootstrap: str, headers: list[tuple[str, bytes]] | None = None) -> float:
    topic = f"bench-raw-{uuid.uuid4().hex[:6]}"
    _fresh_topic(bootstrap, topic)
    prod = KafkaProducer(bootstrap_servers=bootstrap, acks="all")
    cons = KafkaConsumer(topic, bootstrap_servers=bootstrap, group_id=f"g-{topic}", auto_offset_reset="earliest",
                         enable_auto_commit=False, session_timeout_ms=6000, heartbeat_interval_ms=1000,
                         max_poll_records=2000)
    cons.poll(timeout_ms=1000)
    t0 = time.perf_counter()
    for i in range(N):
        prod.send(topic, value=_message(i).SerializeToString(), key=str(i % 64).encode(), headers=headers)
    prod.flush(120)
    got = 0
    while got < N:
        batch = cons.poll(timeout_ms=1000, max_records=2000)
        got += sum(len(v) for v in batch.values())
        if batch:
            cons.commit()
    dt = time.perf_counter() - t0
    cons.close()
    prod.close()
    return N / dt


def main() -> None:
    configure_telemetry("bench")
    state = ROOT / ".state" / "bench-kafka"
    bootstrap = subprocess.run([str(ROOT / "deploy" / "kafka.sh"), "up", str(state)], check=True, text=True,
                               capture_output=True).stdout.strip().splitlines()[-1]
    try:
        ensure_topics(bootstrap)
        bench_raw(bootstrap)  # warm-up round, not counted: the broker's JIT and page cache settle first
        bench_livetab(bootstrap)
        raws, lts, raw_h = [], [], []
        for _ in range(ROUNDS):  # interleaved, so load changes hit both sides alike
            raws.append(bench_raw(bootstrap))
            lts.append(bench_livetab(bootstrap))
            raw_h.append(bench_raw(bootstrap, HEADERS))
        # the same path with every span recorded (as when an exporter is configured), and with no tracer at all
        telemetry._sampler.recording = True
        try:
            recorded = bench_livetab(bootstrap)
        finally:
            telemetry._sampler.recording = False
        telemetry._tracer = trace.NoOpTracer()
        try:
            untraced = bench_livetab(bootstrap)
        finally:
            telemetry._tracer = None
    finally:
        subprocess.run([str(ROOT / "deploy" / "kafka.sh"), "down", str(state)], check=False)
    lt, raw = statistics.median(lts), statistics.median(raws)
    write_result("bus", lt / raw, 0.8, "raw kafka-python producer+consumer (acks=all, manual commit), same broker, "
                 "same run, a warm-up round then 5 interleaved rounds, medians; livetab as deployed without a span exporter (trace context propagated, "
                 "spans not recorded)", {
                     "messages": N, "message_bytes": len(_message(0).SerializeToString()),
                     "livetab_msgs_per_s": round(lt, 1), "raw_msgs_per_s": round(raw, 1),
                     "rounds": ROUNDS, "livetab_runs_msgs_per_s": [round(x, 1) for x in lts],
                     "raw_runs_msgs_per_s": [round(x, 1) for x in raws],
                     "raw_with_same_4_headers_msgs_per_s": round(statistics.median(raw_h), 1),
                     "ratio_vs_raw_with_same_headers": round(lt / statistics.median(raw_h), 4),
                     "livetab_recording_spans_msgs_per_s": round(recorded, 1),
                     "recording_spans_ratio": round(recorded / raw, 4),
                     "livetab_untraced_msgs_per_s": round(untraced, 1),
                     "untraced_ratio": round(untraced / raw, 4), "peak_rss_mb": round(peak_rss_mb(), 1)})


if __name__ == "__main__":
    sys.exit(main())
