"""How much memory the api's planner holds per planned request while it publishes one run.

    .venv/bin/python deploy/planner_memory.py [REQUESTS]     (default 100000)

One run of REQUESTS requests (200 questions x 2 formats x REQUESTS/400 samples) over a SQLite store goes through
the real PlannerHandler and Worker; the bus is the in-process one except that request records are serialised
and dropped, as a broker takes them. Prints the process's RSS growth while the run is planned and published
(VmHWM - VmRSS before), which includes the protobuf arenas tracemalloc does not see.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from livetab.bus import HandlerContext, InProcBus, Outgoing, Worker  # noqa: E402
from livetab.records import question_row  # noqa: E402
from livetab.runs import build_run  # noqa: E402
from livetab.store import open_store, schema  # noqa: E402
from livetab.topics import TOPICS  # noqa: E402
from livetab.v1 import common_pb2, question_pb2  # noqa: E402
from livetab_api.planner import PlannerHandler  # noqa: E402

from tests.support.releases import publish  # noqa: E402


class _Broker(InProcBus):
    def __init__(self) -> None:
        super().__init__(known_topics={t.name for t in TOPICS})
        self.sent = 0

    def publish(self, out: Outgoing, headers: dict[str, str] | None = None) -> None:
        if out.topic.startswith("livetab.inference.requests."):
            out.message.SerializeToString()
            self.sent += 1
            return
        super().publish(out, headers)


def _status(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    return 0


def main() -> None:
    requests = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    store = open_store(f"sqlite:///{Path(tempfile.mkdtemp()) / 'm.db'}")
    store.upsert(schema.questions, [question_row(question_pb2.Question(
        id=f"q{i:04d}", table_id=f"t{i}", family="direct", text=f"What is in row {i}?", status="verified",
        release="r")) for i in range(200)])
    publish(store, "r")
    spec = common_pb2.ModelSpec(name="m", backend="openai", base_url="http://127.0.0.1:9/v1", model="m")
    bus = _Broker()
    worker = Worker(PlannerHandler(), bus, HandlerContext(store=store, settings=None), poll_timeout_s=0)
    warm = build_run("team", "r", spec, samples=1, seed=1)  # a small run first: imports, store, caches
    bus.publish(Outgoing("livetab.runs.v1", warm, key=warm.id, message_id=warm.id))
    worker.run(until_idle=True)
    bus.sent = 0
    run = build_run("team", "r", spec, samples=max(1, requests // 400), formats=["markdown", "csv"])
    bus.publish(Outgoing("livetab.runs.v1", run, key=run.id, message_id=run.id))
    Path("/proc/self/clear_refs").write_text("5")  # reset VmHWM to the current RSS
    before = _status("VmRSS")
    t0 = time.perf_counter()
    worker.run(until_idle=True)
    seconds = time.perf_counter() - t0
    grown = max(0, _status("VmHWM") - before)  # (RSS may shrink below its start while the run is published)
    print(f"planner: {bus.sent} requests published in {seconds:.1f} s; peak RSS +{grown / 1e6:.1f} MB "
          f"({grown / max(1, bus.sent):.0f} B per planned request)")


if __name__ == "__main__":
    main()
