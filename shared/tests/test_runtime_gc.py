"""A served service puts what its start-up made out of the garbage collector's reach (`gc.freeze`), so a full
collection goes through what it made since, not every module, class and descriptor again; and it runs with the
interpreter settings an evaluation uses (`livetab.interpreter`): a larger young generation, a shorter switch
interval."""

from __future__ import annotations

import gc
import sys
import weakref

from livetab.interpreter import GC_YOUNG_THRESHOLD, SWITCH_INTERVAL_S, tune
from livetab.runtime.serve import _freeze_startup_objects


def test_start_up_objects_are_frozen_and_garbage_is_collected_first() -> None:
    class Cycle:
        pass

    a, b = Cycle(), Cycle()
    a.other, b.other = b, a  # type: ignore[attr-defined]
    alive = Cycle()
    garbage = weakref.ref(a)
    del a, b
    gc.unfreeze()
    try:
        _freeze_startup_objects()
        assert gc.get_freeze_count() > 1000  # the interpreter's and livetab's start-up objects
        assert garbage() is None  # the cycle was collected, not frozen
        assert not any(o is alive for o in gc.get_objects())  # frozen: out of the collector's generations
        fresh = Cycle()
        assert any(o is fresh for o in gc.get_objects())  # what comes after is collected as before
    finally:
        gc.unfreeze()


def test_a_served_service_collects_its_young_objects_less_often_and_switches_threads_sooner() -> None:
    before, switch = gc.get_threshold(), sys.getswitchinterval()
    try:
        gc.set_threshold(700, 10, 10)
        sys.setswitchinterval(0.005)
        tune()
        assert gc.get_threshold() == (GC_YOUNG_THRESHOLD, 10, 10) and GC_YOUNG_THRESHOLD > 700
        assert sys.getswitchinterval() == SWITCH_INTERVAL_S < 0.005
        gc.set_threshold(50_000, 10, 10)  # a larger threshold set before (an operator's sitecustomize) is kept
        tune()
        assert gc.get_threshold()[0] == 50_000
    finally:
        gc.set_threshold(*before)
        sys.setswitchinterval(switch)
