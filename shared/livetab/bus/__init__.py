"""The message bus: one interface, a Kafka transport and an in-process one, and the worker loop."""

from livetab.bus.base import Bus, Consumer, Outgoing, OutgoingStream, PoisonMessage, Record, Retryable, decode
from livetab.bus.inproc import InProcBus
from livetab.bus.worker import AnyHandler, Handler, HandlerContext, Worker, WorkerStats

__all__ = ["AnyHandler", "Bus", "Consumer", "Handler", "HandlerContext", "InProcBus", "Outgoing", "OutgoingStream",
           "PoisonMessage", "Record", "Retryable", "Worker", "WorkerStats", "decode"]
