"""The worker each handler runs in: the in-flight worker for handlers that keep requests pending across
polls (`begin`/`finish`: the inference handler), the batch worker for the rest."""

from __future__ import annotations

from livetab import topics
from livetab.bus import AnyHandler, Bus, HandlerContext, Worker
from livetab.bus.inflight import InFlightWorker
from livetab.settings import Settings

__all__ = ["EMBEDDED_PUBLISH_SLICE", "keeps_in_flight", "worker_for"]

# embedded mode: the outputs a worker publishes per step (`Worker.publish_slice`), so that the services after it
# take their first records while it is still making the rest (a run's planned requests, 2,000 or 100,000)
EMBEDDED_PUBLISH_SLICE = 256


def keeps_in_flight(handler: AnyHandler) -> bool:
    return hasattr(handler, "begin") and hasattr(handler, "finish")


def worker_for(handler: AnyHandler, bus: Bus, ctx: HandlerContext, settings: Settings, *, pool: str = "",
               embedded: bool = False) -> Worker:
    """`embedded`: polls never wait (the in-process bus has nothing in flight between polls), and a batch's
    outputs go out EMBEDDED_PUBLISH_SLICE per step."""
    k = settings.kafka
    poll_s = 0.0 if embedded else k.poll_timeout_ms / 1000
    if keeps_in_flight(handler):
        return InFlightWorker(handler, bus, ctx, group=topics.consumer_group(handler.service, pool),  # type: ignore[arg-type]
                              max_in_flight=(settings.inference.embedded_max_in_flight if embedded
                                             else settings.inference.max_in_flight), poll_timeout_s=poll_s,
                              drain_timeout_s=settings.inference.drain_timeout_s)
    batch = k.batch_records.get(handler.service, k.max_poll_records)
    if handler.service == "judge" and settings.judge.asks_models():
        batch = min(batch, settings.judge.llm_batch_records)  # an answer may cost model calls
    return Worker(handler, bus, ctx, max_records=100 if embedded else batch, poll_timeout_s=poll_s,
                  publish_slice=EMBEDDED_PUBLISH_SLICE if embedded else 0)
