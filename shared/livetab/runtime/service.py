"""What a service is: a name, the topics it consumes (from the topic registry), its handlers, optional
HTTP routes, and how its workers are sized."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from livetab import topics
from livetab.bus import AnyHandler, Bus, Worker
from livetab.settings import Settings
from livetab.store import Store

__all__ = ["Build", "HttpParts", "Service", "service_names"]


def service_names() -> tuple[str, ...]:
    """Every service of the pipeline, in the order work flows through them (the topic registry's list)."""
    return topics.SERVICES


@dataclass(frozen=True)
class Build:
    """What a service's handlers are built from."""

    settings: Settings
    pool: str = ""  # inference only: the worker pool served ("" = remote endpoints)
    backends: dict[str, Any] | None = None  # in-process model backends by model name (embedded mode, tests)
    embedded: bool = False  # every service in one process, driven to idle by its caller (`livetab run`)


@dataclass(frozen=True)
class HttpParts:
    """What a service's HTTP routes may use: the bus to publish on, the store, settings, and the service's
    own workers (a readiness probe reports a worker that stopped)."""

    bus: Bus
    store: Store
    settings: Settings
    workers: Sequence[Worker]


@dataclass(frozen=True)
class Service:
    """A service, as the runtime starts it.

    `handlers` builds the service's handlers; each consumes some of the topics the registry says this
    service consumes (`consumes`), never a literal. `http`, when set, builds the service's ASGI app (its
    routes), served beside the workers. `in_flight` marks handlers that keep requests pending across
    polls (`begin`/`finish`, livetab.bus.inflight): the runtime gives them the in-flight worker."""

    name: str
    handlers: Callable[[Build], list[AnyHandler]]
    http: Callable[[HttpParts], Any] | None = None
    description: str = ""

    def __post_init__(self) -> None:
        if self.name not in topics.SERVICES:
            raise ValueError(f"service {self.name!r} is not in the topic registry's services {topics.SERVICES}")

    @property
    def consumes(self) -> list[str]:
        """The topics this service's consumer groups read, from the topic registry."""
        return [t.name for t in topics.consumed_by(self.name)]

    def build(self, build: Build) -> list[AnyHandler]:
        """The handlers, checked against the registry: a handler may only consume this service's topics
        (an inference pool's own request topic counts as the base request topic)."""
        handlers = self.handlers(build)
        allowed = set(self.consumes)
        for h in handlers:
            if h.service != self.name:
                raise ValueError(f"handler {type(h).__name__} says it belongs to {h.service!r}, not {self.name!r}")
            for name in h.topics:
                base = topics.INFERENCE_REQUESTS if topics.by_name(name).pool else name
                if base not in allowed:
                    raise ValueError(f"{self.name}: handler {type(h).__name__} consumes {name}, which the topic "
                                     f"registry gives to {topics.by_name(name).consumer or 'no service'}")
        return handlers
