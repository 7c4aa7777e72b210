"""A worker process for delivery tests: for every table it upserts one effect row and publishes one
question downstream. `--delay` slows each record so a test can kill the process mid-batch."""

from __future__ import annotations

import argparse
import time

from google.protobuf.message import Message
from livetab.bus import HandlerContext, Outgoing, Worker
from livetab.bus.kafka import KafkaBus
from livetab.settings import KafkaSettings
from livetab.store import open_store
from livetab.telemetry import configure_telemetry
from livetab.v1 import question_pb2, table_pb2

from tests.support.effects import effects, with_effects


class EchoHandler:
    service = "qagen"
    topics = ["livetab.tables.v1"]

    def __init__(self, delay: float, prefix: str) -> None:
        self.delay = delay
        self.prefix = prefix

    def handle(self, message: Message, ctx: HandlerContext) -> list[Outgoing]:
        assert isinstance(message, table_pb2.Table)
        if not message.id.startswith(self.prefix):  # other tests' records on the shared topic
            return []
        time.sleep(self.delay)
        ctx.store.upsert(effects, [{"id": message.id, "kind": "echo", "value": message.caption}])
        q = question_pb2.Question(id="q-" + message.id, table_id=message.id, text=message.caption)
        return [Outgoing("livetab.questions.v1", q, key=message.id, message_id=q.id)]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--bootstrap", required=True)
    ap.add_argument("--store", required=True)
    ap.add_argument("--group", required=True)
    ap.add_argument("--delay", type=float, default=0.0)
    ap.add_argument("--batch", type=int, default=10)
    ap.add_argument("--prefix", default="")
    args = ap.parse_args()
    configure_telemetry("echo")
    bus = KafkaBus(KafkaSettings(bootstrap_servers=args.bootstrap, session_timeout_ms=6000,
                                 heartbeat_interval_ms=1000))
    store = with_effects(open_store(args.store))
    worker = Worker(EchoHandler(args.delay, args.prefix), bus, HandlerContext(store=store, settings=None), group=args.group,
                    max_records=args.batch, poll_timeout_s=1.0)
    worker.install_signal_handlers()
    stats = worker.run(max_seconds=120)
    bus.close()
    print(f"processed={stats.processed} dead={stats.dead_lettered}", flush=True)


if __name__ == "__main__":
    main()
