"""The shape every benchmark writes, and where."""

from __future__ import annotations

import json
import resource
from pathlib import Path
from typing import Any

__all__ = ["peak_rss_mb", "write_result"]

OUT = Path("out/bench")


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def write_result(name: str, ratio: float, goal: float | str, baseline: str, figures: dict[str, Any]) -> Path:
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f"{name}.json"
    doc = {"benchmark": name, "ratio": round(ratio, 4), "goal": goal, "baseline": baseline, "figures": figures}
    path.write_text(json.dumps(doc, indent=2) + "\n")
    print(json.dumps(doc))
    return path
