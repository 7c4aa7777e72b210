"""`livetab.evaluate` sets the cyclic garbage collector (everything alive frozen, larger young generation) and the
thread switch interval for a batch and puts them back as they were, also when the evaluation fails, and leaves a
caller's own freeze alone."""

from __future__ import annotations

import gc
import sys
import weakref

import pytest
from livetab.evaluate_api import _interpreter_for_a_batch
from livetab.interpreter import GC_YOUNG_THRESHOLD, SWITCH_INTERVAL_S


class Node:
    other: Node | None = None


def test_the_collector_is_put_back_and_still_collects() -> None:
    before, switch = gc.get_threshold(), sys.getswitchinterval()
    assert gc.get_freeze_count() == 0
    alive = Node()
    with pytest.raises(RuntimeError), _interpreter_for_a_batch():
        assert gc.get_threshold()[0] == max(before[0], GC_YOUNG_THRESHOLD) and gc.get_threshold()[1:] == before[1:]
        assert gc.get_freeze_count() > 0 and gc.is_tracked(alive)
        assert sys.getswitchinterval() == min(switch, SWITCH_INTERVAL_S)
        a, b = Node(), Node()  # a cycle made during the evaluation is garbage the collector still finds
        a.other, b.other = b, a
        ref = weakref.ref(a)
        del a, b
        gc.collect()
        assert ref() is None
        raise RuntimeError("the evaluation failed")
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0 and sys.getswitchinterval() == switch


def test_a_callers_own_freeze_is_kept() -> None:
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        with _interpreter_for_a_batch():
            pass
        assert gc.get_freeze_count() >= frozen
    finally:
        gc.unfreeze()
