"""Without a span exporter, spans are not recorded, yet every record still carries a traceparent and a
consumer's downstream records stay in the producer's trace (run in a fresh process: the switch is global)."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def test_context_propagates_without_recording_spans() -> None:
    code = textwrap.dedent("""
        from livetab.bus import HandlerContext, InProcBus, Outgoing, Worker
        from livetab.telemetry import configure_telemetry, tracer
        from livetab.v1 import question_pb2, table_pb2
        configure_telemetry("t")
        bus = InProcBus()
        with tracer().start_as_current_span("cycle") as root:
            assert not root.is_recording()
            bus.publish(Outgoing("livetab.tables.v1", table_pb2.Table(id="t1")))
        class Forward:
            service = "qagen"
            topics = ["livetab.tables.v1"]
            def handle(self, m, ctx):
                return [Outgoing("livetab.questions.v1", question_pb2.Question(id="q" + m.id))]
        Worker(Forward(), bus, HandlerContext(store=None, settings=None), poll_timeout_s=0).run_once()
        up = bus.records("livetab.tables.v1")[0].headers["traceparent"].split("-")
        down = bus.records("livetab.questions.v1")[0].headers["traceparent"].split("-")
        want = f"{root.get_span_context().trace_id:032x}"
        assert up[1] == down[1] == want, (up, down, want)
        assert up[2] != down[2]  # a span of its own for each hop
        print("ok")
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr
