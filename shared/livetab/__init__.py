"""livetab: a live benchmark of how well language models read and reason over tables.

The public Python surface (`__all__`): `evaluate` (evaluate models on a release, as `livetab eval` does),
`load_release` (a release's questions and tables), and what they return or raise. Loaded on first use, so
`import livetab` stays cheap for the services that share this package.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from livetab.evaluate_api import EvalError, ProbeError, Progress, Results, evaluate
    from livetab.evaluate_release import LoadedRelease, load_release

__all__ = ["EvalError", "LoadedRelease", "ProbeError", "Progress", "Results", "evaluate", "load_release"]

_WHERE = {"evaluate": "livetab.evaluate_api", "Results": "livetab.evaluate_api", "Progress": "livetab.evaluate_api",
          "EvalError": "livetab.evaluate_api", "ProbeError": "livetab.evaluate_api",
          "load_release": "livetab.evaluate_release", "LoadedRelease": "livetab.evaluate_release"}


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        import importlib

        return getattr(importlib.import_module(_WHERE[name]), name)
    raise AttributeError(f"module 'livetab' has no attribute {name!r}")
