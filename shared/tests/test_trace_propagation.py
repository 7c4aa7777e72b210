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


def test_a_header_maker_gives_what_producer_headers_gives_in_its_context() -> None:
    """`header_maker` reads the span context once for a stage's outputs: each message still continues that
    context's trace with a span id of its own, whether the context is the current one or handed over (a stream's
    outputs are made after the processing span has ended); with an exporter each output gets its own PRODUCER
    span, a child of the given context's span."""
    code = textwrap.dedent("""
        from opentelemetry import context as otel_context
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
        from livetab.bus import Outgoing
        from livetab.bus.base import header_maker, producer_headers
        from livetab.telemetry import configure_telemetry, tracer
        from livetab.v1 import table_pb2
        configure_telemetry("t")
        outs = [Outgoing("livetab.tables.v1", table_pb2.Table(id=f"t{i}"), message_id=f"m{i}") for i in range(3)]
        with tracer().start_as_current_span("stage") as span:
            want = f"{span.get_span_context().trace_id:032x}"
            made = [header_maker()(o) for o in outs] + [producer_headers(outs[0])]
            ctx = otel_context.get_current()
        later = header_maker(ctx)  # outside the span: the stream's case
        made += [later(o) for o in outs]
        parts = [h["traceparent"].split("-") for h in made]
        assert all(p[1] == want and p[3] == "00" for p in parts), parts
        assert len({p[2] for p in parts}) == len(parts)  # a span id of its own each
        assert [h["message-id"] for h in made] == ["m0", "m1", "m2", "m0", "m0", "m1", "m2"]
        assert {h["message-type"] for h in made} == {"livetab.v1.Table"}
        outside = [header_maker()(o)["traceparent"].split("-")[1] for o in outs]
        assert want not in outside and len(set(outside)) == 3  # no context: a fresh trace each
        exporter = InMemorySpanExporter()
        configure_telemetry("t", exporter)
        with tracer().start_as_current_span("recorded") as root:
            ctx = otel_context.get_current()
        headers = [header_maker(ctx)(o) for o in outs]
        spans = [s for s in exporter.get_finished_spans() if s.name == "livetab.tables.v1 publish"]
        assert len(spans) == 3
        assert all(s.parent.span_id == root.get_span_context().span_id for s in spans)
        assert all(h["traceparent"].split("-")[1] == f"{root.get_span_context().trace_id:032x}" for h in headers)
        print("ok")
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr
