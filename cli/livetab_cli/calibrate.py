"""`livetab calibrate`: recompute every published judge-agreement figure and write `calibration.json`
(+ `calibration.md`) beside the leaderboard, where the reporter's files and the release card read it.

The figures are computed where their judges live (the rule judge's in `livetab.rubric.wtq_calibration`,
the insight judge's in `livetab.tata_calibration` and `livetab_judge.calibration`, the validator's in
`livetab_qagen.validator_calibration`); the model-free ones and the calibration every report carries without a
`livetab calibrate` are the reporter's (`livetab_reporter.calibration`). This module only runs the models
the settings name, gathers the figures and writes them.
"""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path
from typing import Any

from livetab.calibration import Figure, calibration_doc, write_calibration
from livetab.settings import ModelSettings, Settings
from livetab_reporter.calibration import (
    AUTO_COMMAND,
    HOW_TO_COMPUTE,
    cheap_figures,
    ensure_calibration,
    insight_judge_model,
    model_labels,
    not_computed_figures,
    validator_model,
)
from livetab_reporter.files import out_root

__all__ = ["AUTO_COMMAND", "calibrate_command", "cheap_figures", "compute_calibration", "ensure_calibration",
           "model_figures", "out_dir_of"]

log = logging.getLogger(__name__)


def out_dir_of(settings: Settings) -> Path:
    return out_root(settings)


def model_figures(settings: Settings, limit_llm: int, backends: dict[str, Any] | None = None) -> list[Figure]:
    """The model-based figures on `limit_llm` items each, or "not computed" when `limit_llm` is 0.
    `backends` maps a model name to a ready backend (tests, scripted models); others are built."""
    if limit_llm <= 0:
        return not_computed_figures(settings, HOW_TO_COMPUTE)
    from livetab_judge.calibration import tata_llm_figures
    from livetab_qagen.validator_calibration import tabfact_validator_figure

    judge_m, _ = insight_judge_model(settings)
    val_m, _ = validator_model(settings)
    judge_label, val_label = model_labels(settings)
    built: dict[str, Any] = dict(backends or {})

    def backend(m: ModelSettings) -> Any:
        if m.name not in built:
            from livetab.models.registry import backend_from_spec
            from livetab.models.spec import model_spec

            built[m.name] = backend_from_spec(model_spec(m))
        return built[m.name]

    figures = tata_llm_figures(backend(judge_m), limit_llm, judge=judge_label)
    figures.append(asyncio.run(tabfact_validator_figure(backend(val_m), limit_llm, judge=val_label)))
    return figures


def compute_calibration(settings: Settings, *, limit_llm: int = 0, command: str = "livetab calibrate",
                        backends: dict[str, Any] | None = None) -> dict[str, Any]:
    t0 = time.perf_counter()
    figures = cheap_figures() + model_figures(settings, limit_llm, backends)
    log.info("calibration computed in %.1f s", time.perf_counter() - t0)
    return calibration_doc(figures, command=command)


def calibrate_command(settings: Settings, out: Path, limit_llm: int) -> tuple[dict[str, Any], Path]:
    """What `livetab calibrate` does: every figure recomputed and written into `out`."""
    command = "livetab calibrate" + (f" --limit-llm {limit_llm}" if limit_llm else "")
    doc = compute_calibration(settings, limit_llm=limit_llm, command=command)
    return doc, write_calibration(doc, out)
