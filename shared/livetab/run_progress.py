"""A run's progress as it happens: OTel counters and one log line per batch for answered, failed and judged.

The inference service counts each stored result (`answered`; `failed` too when the call ended in an error),
the judge each stored judgment (`judged`), all with the attribute `run_id`, so a dashboard (or a person
tailing the log) sees a run move batch by batch instead of jumping from 0 to done. What a run *is* at a
given moment (planned, answered, judged, complete) stays the store's answer (`GET /runs/{id}`,
`livetab.runs`); these counters say how fast it gets there.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterable

from opentelemetry.metrics import Meter

from livetab.telemetry import meter as default_meter

__all__ = ["RunProgress"]

log = logging.getLogger(__name__)


class RunProgress:
    """Counters `livetab.run.answered`, `livetab.run.failed`, `livetab.run.judged` (unit `{request}`, per run)."""

    def __init__(self, service: str, meter: Meter | None = None) -> None:
        m = meter or default_meter()
        self.service = service
        self._answered = m.create_counter("livetab.run.answered", unit="{request}",
                                          description="results stored per run (including failed calls)")
        self._failed = m.create_counter("livetab.run.failed", unit="{request}",
                                        description="results stored per run whose model call failed")
        self._judged = m.create_counter("livetab.run.judged", unit="{request}",
                                        description="judgments stored per run")

    def answered(self, results: Iterable[tuple[str, str]]) -> None:
        """One batch of stored results as (run_id, error) pairs; an empty error is a answer."""
        answered: Counter[str] = Counter()
        failed: Counter[str] = Counter()
        for run_id, error in results:
            answered[run_id] += 1
            failed[run_id] += bool(error)
        for run_id, n in answered.items():
            self._answered.add(n, {"run_id": run_id, "service": self.service})
            if failed[run_id]:
                self._failed.add(failed[run_id], {"run_id": run_id, "service": self.service})
            log.info("run %s: %d answered, %d failed in this batch", run_id, n, failed[run_id])

    def judged(self, run_ids: Iterable[str]) -> None:
        """One batch of stored judgments by their runs."""
        for run_id, n in Counter(run_ids).items():
            self._judged.add(n, {"run_id": run_id, "service": self.service})
            log.info("run %s: %d judged in this batch", run_id, n)
