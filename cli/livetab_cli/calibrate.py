"""`livetab calibrate`: recompute every published judge-agreement figure and write `calibration.json`
(+ `calibration.md`) beside the leaderboard, where the reporter's files and the release card read it.

The figures are computed where their judges live (the rule judge's in `livetab.rubric.wtq_calibration`,
the insight judge's in `livetab_judge.calibration`, the validator's in `livetab_qagen.validator_calibration`);
this module only picks the models from the settings, gathers the figures and writes them.
"""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path
from typing import Any

from livetab.calibration import Figure, calibration_doc, load_calibration, write_calibration
from livetab.settings import ModelSettings, Settings

__all__ = ["AUTO_COMMAND", "calibrate_command", "cheap_figures", "compute_calibration", "ensure_calibration", "model_figures", "out_dir_of"]

log = logging.getLogger(__name__)

HOW_TO_COMPUTE = "needs a model; run `livetab calibrate --limit-llm N` to measure it on N items"


def out_dir_of(settings: Settings) -> Path:
    out = Path(settings.out_dir)
    return out if out.is_absolute() else Path.cwd() / out


def cheap_figures() -> list[Figure]:
    """The model-free figures: the rule judge vs people and vs WTQ's exact match, the insight baseline vs
    TaTA's human ratings."""
    from livetab.rubric.wtq_calibration import rule_vs_human, rule_vs_wtq
    from livetab_judge.calibration import tata_baseline_figure

    return [rule_vs_human(), rule_vs_wtq(), tata_baseline_figure()]


def _describe(m: ModelSettings, role: str) -> str:
    where = f" at {m.base_url}" if m.base_url else ""
    return f"{m.name} ({m.backend}{where}{', ' + m.model if m.model and m.model != m.name else ''}) as {role}"


def _local(settings: Settings) -> ModelSettings:
    """The first configured local model, else the bundled SmolLM2."""
    return next((m for m in settings.models if m.backend == "llama_local"), ModelSettings())


def insight_judge_model(settings: Settings) -> tuple[ModelSettings, str]:
    if settings.judge.llm_judges:
        return settings.judge.llm_judges[0], "the first configured LLM judge"
    return _local(settings), "a stand-in insight judge (no LLM judge configured)"


def validator_model(settings: Settings) -> tuple[ModelSettings, str]:
    configured = settings.qagen.llm.validator or settings.qagen.llm.generator
    if configured is not None:
        return configured, "qagen's validator"
    return _local(settings), "a stand-in validator (no qagen.llm validator configured)"


def model_figures(settings: Settings, limit_llm: int, backends: dict[str, Any] | None = None) -> list[Figure]:
    """The model-based figures on `limit_llm` items each, or "not computed" when `limit_llm` is 0.
    `backends` maps a model name to a ready backend (tests, scripted models); others are built."""
    from livetab_judge.calibration import tata_llm_figures, tata_llm_not_computed
    from livetab_qagen.validator_calibration import tabfact_not_computed, tabfact_validator_figure

    judge_m, judge_role = insight_judge_model(settings)
    val_m, val_role = validator_model(settings)
    judge_label = _describe(judge_m, judge_role) + ", FreshTab factuality prompt, temperature 0"
    val_label = _describe(val_m, val_role) + ", True/False prompt, temperature 0"
    if limit_llm <= 0:
        return [tata_llm_not_computed(judge_label, HOW_TO_COMPUTE), tabfact_not_computed(val_label, HOW_TO_COMPUTE)]
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


AUTO_COMMAND = "livetab run, generate, judge, report or release (automatic: model-free figures only)"


def _measured(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """The figures without when and how fast they were computed."""
    return [{k: v for k, v in f.items() if k not in ("computed_at", "seconds")} for f in doc["figures"]]


def ensure_calibration(settings: Settings, out_dir: Path) -> dict[str, Any]:
    """The calibration the reports in `out_dir` carry: what `livetab calibrate` wrote there, else the
    model-free figures computed now (a second or two, each time, so they follow the current judges) with
    the model-based ones marked not computed. Unchanged figures keep their file and date."""
    old = load_calibration(out_dir)
    if old is not None and old.get("command") != AUTO_COMMAND:
        return old
    doc = compute_calibration(settings, command=AUTO_COMMAND)
    if old is not None and _measured(old) == _measured(doc):
        return old
    write_calibration(doc, out_dir)
    return doc
