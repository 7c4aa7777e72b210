"""Distributed mode: one service per process over Kafka and PostgreSQL.

`python -m livetab_<svc>` and `livetab serve <svc>` both end here. The service's handlers each run in a
worker (its consumer group from the topic registry); a service with HTTP routes serves them with uvicorn
beside its workers, and a worker that stops on an error stops the process (exit 1) so its orchestrator
restarts it. SIGTERM drains: the current batch is finished and committed, then the process exits 0.
"""

from __future__ import annotations

import contextlib
import gc
import logging
import signal
import threading
import time
from collections.abc import Iterator

from livetab import interpreter
from livetab.bus import HandlerContext, Worker
from livetab.bus.kafka import KafkaBus, ensure_topics
from livetab.runtime.health import health_app
from livetab.runtime.registry import service as declared_service
from livetab.runtime.service import Build, HttpParts
from livetab.runtime.workers import worker_for
from livetab.settings import Settings
from livetab.store import open_store
from livetab.telemetry import configure_logging, configure_telemetry
from livetab.topics import requests_topic

__all__ = ["serve"]

log = logging.getLogger(__name__)


def serve(name: str, settings: Settings, *, port: int | None = None, pool: str = "") -> int:
    """Run service `name` until SIGTERM/SIGINT; the exit status (1 when a worker stopped on an error)."""
    import uvicorn

    svc = declared_service(name)
    configure_logging(settings.log_level, settings.log_format, name)
    configure_telemetry(name)
    store = open_store(settings.store.url)
    pools = sorted({m.pool for m in settings.models} | ({pool} if pool else set()))
    ensure_topics(settings.kafka.bootstrap_servers, extra=[requests_topic(p) for p in pools],
                  connect_timeout_s=settings.kafka.connect_timeout_s)
    bus = KafkaBus(settings.kafka, client_id=f"livetab-{name}")
    workers: list[Worker] = [worker_for(h, bus, HandlerContext(store=store, settings=settings), settings, pool=pool)
                             for h in svc.build(Build(settings, pool=pool))]
    log.info("%s serving %s over Kafka at %s with store %s", name, ", ".join(svc.consumes) or "no topic",
             settings.kafka.bootstrap_servers, store.engine.url.render_as_string())
    threads = [threading.Thread(target=w.run, daemon=True, name=f"{name}-worker-{i}") for i, w in enumerate(workers)]
    stopping = threading.Event()

    class _Server(uvicorn.Server):
        """uvicorn re-raises SIGTERM after its graceful shutdown (exit -15); the runtime drains its workers
        after the HTTP server stops and exits 0, so the signal is handled below instead."""

        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            yield

    # Every service serves HTTP: its own routes (the api) or the health routes alone, for the probes.
    if svc.http is not None:
        app = svc.http(HttpParts(bus=bus, store=store, settings=settings, workers=workers))
        host, bind = settings.api.host, port or settings.api.port
    else:
        app = health_app(name, workers, store)
        host, bind = settings.health.host, port or settings.health.port
    server = _Server(uvicorn.Config(app, host=host, port=bind, log_level="warning"))

    def _stop(*_: object) -> None:
        server.should_exit = True
        stopping.set()

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    _freeze_startup_objects()
    interpreter.tune()  # for the service's life, as an evaluation does for its duration
    for t in threads:
        t.start()

    def _watch() -> None:
        """A worker that stopped on an error stops the process: it exits non-zero and is restarted."""
        while not stopping.is_set():
            if any(not w.alive for w in workers) or not any(t.is_alive() for t in threads):
                _stop()
            time.sleep(0.2)

    watcher = threading.Thread(target=_watch, daemon=True, name=f"{name}-watch")
    watcher.start()
    server.run()
    for w in workers:
        w.stop()
    for t in threads:
        t.join(timeout=settings.inference.drain_timeout_s + 30)
    failed = [w for w in workers if not w.alive]
    for w in failed:
        log.error("%s exits with status 1: worker %s stopped: %s", name, w.group, w.failure)
    for w in workers:
        log.info("%s worker %s stopped: %s", name, w.group, w.stats)
    try:
        bus.close()
    finally:
        store.close()
    return 1 if failed else 0


def _freeze_startup_objects() -> None:
    """Move what start-up made (modules, classes, protobuf descriptors, settings, the service: ~100,000 objects)
    out of the cyclic garbage collector's reach (`gc.freeze`): they live as long as the process, and a full
    collection went through all of them again each time, 60-80 ms that stopped a service in the middle of a
    round of `python -m bench pipeline` (the inference service, 0.2-0.3 s into 0.9-s rounds, 6 December 2026). Later
    objects are collected as before; what is garbage now is collected first."""
    gc.collect()
    gc.freeze()
