"""The interpreter settings livetab runs its long stretches of work with: an evaluation
(`livetab.evaluate_api`, for its duration) and a served service (`livetab.runtime.serve`, for its life).

Both run an event loop for model calls beside a thread that prepares, stores, publishes or judges, and both
allocate short-lived objects by the hundred thousand (messages, rows, futures):

- the young generation of the cyclic garbage collector is collected every `GC_YOUNG_THRESHOLD` allocations
  instead of Python's 700: fewer, larger young collections, and far fewer objects promoted to the old
  generation, whose full collections go through everything the process keeps (caches included) with the GIL
  held. In `python -m bench pipeline` (three interleaved pairs, 7 December 2026) the collector's CPU an answer
  fell from 0.008-0.009 to 0.002-0.004 ms in the inference service, 0.003 to 0.001 in the judge and 0.03-0.04 to
  0.002-0.004 in the reporter;
- the thread switch interval is `SWITCH_INTERVAL_S` instead of 5 ms: a thread waiting for the GIL (the event
  loop after a socket call, while the other thread computes) waits at most that long.
"""

from __future__ import annotations

import gc
import sys

__all__ = ["GC_YOUNG_THRESHOLD", "SWITCH_INTERVAL_S", "tune"]

GC_YOUNG_THRESHOLD = 10_000  # allocations between two young collections (Python's default: 700)
SWITCH_INTERVAL_S = 0.001  # the interpreter's thread switch interval (Python's default: 5 ms)


def tune() -> None:
    """Young collections every GC_YOUNG_THRESHOLD allocations and a GIL switch every SWITCH_INTERVAL_S, never
    looser than what is set already (an operator's own larger threshold or shorter interval is kept)."""
    young, *older = gc.get_threshold()
    gc.set_threshold(max(young, GC_YOUNG_THRESHOLD), *older)
    sys.setswitchinterval(min(sys.getswitchinterval(), SWITCH_INTERVAL_S))
