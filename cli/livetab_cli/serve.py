"""Distributed mode: one service per process over Kafka and PostgreSQL (`livetab serve <service>`)."""

from __future__ import annotations

import contextlib
import logging
import signal
import threading
import time
from collections.abc import Iterator

import uvicorn
from livetab.bus import HandlerContext, Worker
from livetab.bus.kafka import KafkaBus, ensure_topics
from livetab.settings import Settings
from livetab.store import open_store
from livetab.telemetry import configure_logging, configure_telemetry
from livetab.topics import requests_topic

from livetab_cli.wiring import handlers_for

__all__ = ["serve"]

log = logging.getLogger(__name__)


class _Server(uvicorn.Server):
    """uvicorn re-raises SIGTERM after its graceful shutdown (exit status -15); livetab drains its workers
    after the HTTP server stops and exits 0, so the signal is handled here instead."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


def serve(service: str, settings: Settings, *, port: int | None = None, pool: str = "") -> int:
    configure_logging(settings.log_level, settings.log_format, service)
    configure_telemetry(service)
    store = open_store(settings.store.url)
    pools = sorted({m.pool for m in settings.models} | ({pool} if pool else set()))
    ensure_topics(settings.kafka.bootstrap_servers, extra=[requests_topic(p) for p in pools],
                  connect_timeout_s=settings.kafka.connect_timeout_s)
    bus = KafkaBus(settings.kafka, client_id=f"livetab-{service}")
    k = settings.kafka
    workers = [Worker(h, bus, HandlerContext(store=store, settings=settings), max_records=k.max_poll_records,
                      poll_timeout_s=k.poll_timeout_ms / 1000) for h in handlers_for(service, settings, pool=pool)]
    log.info("%s serving over Kafka at %s with store %s", service, k.bootstrap_servers, store.engine.url.render_as_string())
    if service == "api":
        import uvicorn
        from livetab_api.app import create_app

        threads = [threading.Thread(target=w.run, daemon=True, name=f"{service}-worker") for w in workers]
        for t in threads:
            t.start()
        server = _Server(uvicorn.Config(create_app(bus, store, settings.api, workers=workers), host=settings.api.host,
                                        port=port or settings.api.port, log_level="warning"))

        def _stop(*_: object) -> None:
            server.should_exit = True

        def _watch() -> None:
            """A worker thread that died stops the server: the process exits non-zero and is restarted."""
            while not server.should_exit:
                if any(not w.alive for w in workers):
                    server.should_exit = True
                time.sleep(0.5)

        signal.signal(signal.SIGTERM, _stop)
        signal.signal(signal.SIGINT, _stop)
        threading.Thread(target=_watch, daemon=True, name="api-watch").start()
        server.run()
        for w in workers:
            w.stop()
        for t in threads:
            t.join(timeout=30)
    else:
        workers[0].install_signal_handlers()
        try:
            stats = workers[0].run()
            log.info("%s stopped: %s", service, stats)
        except Exception:
            pass  # the worker logged it and kept it in `failure`
    failed = [w for w in workers if not w.alive]
    for w in failed:
        log.error("%s exits with status 1: worker %s stopped: %s", service, w.group, w.failure)
    try:
        bus.close()
    finally:
        store.close()
    return 1 if failed else 0
