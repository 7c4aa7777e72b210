"""A quiet poll gives a handler with `on_idle` the chance to publish what it held back; a failing
`on_idle` is logged and tried again, and the worker goes on consuming."""

from __future__ import annotations

import logging

import pytest
from google.protobuf.message import Message
from livetab.bus import HandlerContext, InProcBus, Outgoing, Worker
from livetab.v1 import report_pb2, table_pb2


class Holding:
    service = "reporter"
    topics = ["livetab.tables.v1"]

    def __init__(self) -> None:
        self.held: list[str] = []
        self.fail_next_idle = False

    def handle(self, message: Message, ctx: HandlerContext) -> list[Outgoing]:
        assert isinstance(message, table_pb2.Table)
        self.held.append(message.id)
        return []

    def on_idle(self, ctx: HandlerContext) -> list[Outgoing]:
        if self.fail_next_idle:
            self.fail_next_idle = False
            raise RuntimeError("store unreachable")
        out = [Outgoing("livetab.reports.v1", report_pb2.LeaderboardUpdate(id=f"lb-{t}", run_id=t)) for t in self.held]
        self.held.clear()
        return out


def test_on_idle_runs_on_a_quiet_poll_and_survives_its_own_failure(caplog: pytest.LogCaptureFixture) -> None:
    bus = InProcBus()
    handler = Holding()
    worker = Worker(handler, bus, HandlerContext(store=None, settings=None), poll_timeout_s=0)
    for t in ("t1", "t2"):
        bus.publish(Outgoing("livetab.tables.v1", table_pb2.Table(id=t)))
    assert worker.run_once() == 2
    assert bus.records("livetab.reports.v1") == []  # held back while records flow
    assert worker.run_once() == 0  # quiet: on_idle publishes
    assert [r.headers["message-type"] for r in bus.records("livetab.reports.v1")] == ["livetab.v1.LeaderboardUpdate"] * 2
    assert worker.stats.published == 2

    bus.publish(Outgoing("livetab.tables.v1", table_pb2.Table(id="t3")))
    handler.fail_next_idle = True
    with caplog.at_level(logging.ERROR):
        assert worker.run_once() == 1
        assert worker.run_once() == 0  # on_idle fails: logged, nothing published, nothing lost
    assert "on_idle of reporter failed" in caplog.text and len(bus.records("livetab.reports.v1")) == 2
    assert worker.run_once() == 0  # the next quiet poll publishes what was held
    assert len(bus.records("livetab.reports.v1")) == 3
    assert bus.lag(worker.group, "livetab.tables.v1") == 0
