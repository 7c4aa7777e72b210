"""Kafka bus throughput: 1 KB protobuf messages produced and consumed back through livetab's bus
(headers, trace context, acks=all idempotent producer, manual commits) against raw kafka-python doing
the same round trip with default settings, on the same broker in the same run."""

from __future__ import annotations

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
from livetab.v1 import table_pb2
from opentelemetry import trace

from bench.common import peak_rss_mb, write_result

N = 20_000
ROOT = Path(__file__).resolve().parents[1]


def _message(i: int) -> table_pb2.Table:
    t = table_pb2.Table(id=f"t{i:08d}", caption="x" * 900, language="en", domain="sport")
    return t


def bench_livetab(bootstrap: str) -> float:
    bus = KafkaBus(KafkaSettings(bootstrap_servers=bootstrap, session_timeout_ms=6000, heartbeat_interval_ms=1000,
                                 max_poll_records=2000))
    tag = uuid.uuid4().hex[:6]
    c = bus.consumer(f"bench-lt-{tag}", ["livetab.tables.v1"])
    c.poll(1, 1.0)  # join the group before timing
    t0 = time.perf_counter()
    for i in range(N):
        bus.publish(Outgoing("livetab.tables.v1", _message(i), key=str(i % 64)))
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


def bench_raw(bootstrap: str) -> float:
    topic = f"bench-raw-{uuid.uuid4().hex[:6]}"
    admin = KafkaAdminClient(bootstrap_servers=bootstrap)
    admin.create_topics([NewTopic(topic, 3, 1)])
    admin.close()
    prod = KafkaProducer(bootstrap_servers=bootstrap, acks="all")
    cons = KafkaConsumer(topic, bootstrap_servers=bootstrap, group_id=f"g-{topic}", auto_offset_reset="earliest",
                         enable_auto_commit=False, session_timeout_ms=6000, heartbeat_interval_ms=1000,
                         max_poll_records=2000)
    cons.poll(timeout_ms=1000)
    t0 = time.perf_counter()
    for i in range(N):
        prod.send(topic, value=_message(i).SerializeToString(), key=str(i % 64).encode())
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
        raw1 = bench_raw(bootstrap)
        lt1 = bench_livetab(bootstrap)
        raw2 = bench_raw(bootstrap)
        lt2 = bench_livetab(bootstrap)
        # the same livetab path with a no-op tracer, to show what one PRODUCER span per record costs
        telemetry._tracer = trace.NoOpTracer()
        try:
            untraced = bench_livetab(bootstrap)
        finally:
            telemetry._tracer = None
    finally:
        subprocess.run([str(ROOT / "deploy" / "kafka.sh"), "down", str(state)], check=False)
    lt, raw = (lt1 + lt2) / 2, (raw1 + raw2) / 2
    write_result("bus", lt / raw, 0.8, "raw kafka-python producer+consumer (acks=all, manual commit), same broker, "
                 "same run, interleaved", {
                     "messages": N, "message_bytes": len(_message(0).SerializeToString()),
                     "livetab_msgs_per_s": round(lt, 1), "raw_msgs_per_s": round(raw, 1),
                     "livetab_runs_msgs_per_s": [round(lt1, 1), round(lt2, 1)],
                     "raw_runs_msgs_per_s": [round(raw1, 1), round(raw2, 1)],
                     "livetab_untraced_msgs_per_s": round(untraced, 1),
                     "untraced_ratio": round(untraced / raw, 4), "peak_rss_mb": round(peak_rss_mb(), 1)})


if __name__ == "__main__":
    sys.exit(main())
