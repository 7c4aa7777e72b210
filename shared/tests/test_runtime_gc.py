"""A served service puts what its start-up made out of the garbage collector's reach (`gc.freeze`), so a full
collection goes through what it made since, not every module, class and descriptor again."""

from __future__ import annotations

import gc
import weakref

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
