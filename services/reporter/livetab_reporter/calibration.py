"""The judges' calibration every report carries (calibration.json beside the leaderboard).

`livetab calibrate` measures every figure, the model-based ones too, and writes calibration.json into the
output folder; when it has not, the reporter computes the model-free figures itself (a second or two: the rule
judge vs people and vs WTQ's exact match, the insight baseline vs TaTA's ratings) and marks the model-based ones
"not computed", naming the configured model each would use. The figures are computed where their data and
judges live in `shared/` (`livetab.rubric.wtq_calibration`, `livetab.tata_calibration`,
`livetab.tabfact_calibration`); the model-based measurements belong to the judge and qagen services.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any

from livetab.calibration import Figure, calibration_doc, load_calibration, write_calibration
from livetab.settings import ModelSettings, Settings

__all__ = ["AUTO_COMMAND", "HOW_TO_COMPUTE", "auto_calibration", "cheap_figures", "describe", "ensure_calibration",
           "insight_judge_model", "model_labels", "not_computed_figures", "validator_model"]

log = logging.getLogger(__name__)

HOW_TO_COMPUTE = "needs a model; run `livetab calibrate --limit-llm N` to measure it on N items"
AUTO_COMMAND = "livetab run, generate, judge, report or release (automatic: model-free figures only)"


def cheap_figures() -> list[Figure]:
    """The model-free figures: the rule judge vs people and vs WTQ's exact match, the insight baseline vs
    TaTA's human ratings."""
    from livetab.rubric.wtq_calibration import rule_vs_human, rule_vs_wtq
    from livetab.tata_calibration import tata_baseline_figure

    return [rule_vs_human(), rule_vs_wtq(), tata_baseline_figure()]


def describe(m: ModelSettings, role: str) -> str:
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


def model_labels(settings: Settings) -> tuple[str, str]:
    """How the insight judge's and the validator's figures name the model each is (or would be) measured with."""
    judge_m, judge_role = insight_judge_model(settings)
    val_m, val_role = validator_model(settings)
    return (describe(judge_m, judge_role) + ", FreshTab factuality prompt, temperature 0",
            describe(val_m, val_role) + ", True/False prompt, temperature 0")


def not_computed_figures(settings: Settings, reason: str = HOW_TO_COMPUTE) -> list[Figure]:
    """The model-based figures, marked not computed, each naming the configured model it would use."""
    from livetab.tabfact_calibration import tabfact_not_computed
    from livetab.tata_calibration import tata_llm_not_computed

    judge_label, val_label = model_labels(settings)
    return [tata_llm_not_computed(judge_label, reason), tabfact_not_computed(val_label, reason)]


def auto_calibration(settings: Settings) -> dict[str, Any]:
    """The calibration a report computes itself: model-free figures measured now, the others not computed."""
    t0 = time.perf_counter()
    figures = cheap_figures() + not_computed_figures(settings)
    log.info("model-free calibration figures computed in %.1f s", time.perf_counter() - t0)
    return calibration_doc(figures, command=AUTO_COMMAND)


def _measured(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """The figures without when and how fast they were computed."""
    return [{k: v for k, v in f.items() if k not in ("computed_at", "seconds")} for f in doc["figures"]]


def ensure_calibration(settings: Settings, out_dir: Path, *, auto: dict[str, Any] | None = None) -> dict[str, Any]:
    """The calibration the reports in `out_dir` carry: what `livetab calibrate` wrote there, else the
    model-free figures (`auto`, when the caller computed them already, else computed now, so they follow the
    current judges) with the model-based ones marked not computed. Unchanged figures keep their file and date."""
    old = load_calibration(out_dir)
    if old is not None and old.get("command") != AUTO_COMMAND:
        return old
    doc = auto if auto is not None else auto_calibration(settings)
    if old is not None and _measured(old) == _measured(doc):
        return old
    write_calibration(doc, out_dir)
    return doc
