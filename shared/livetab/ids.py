"""Deterministic content ids: the same content always gets the same id, so upserts are idempotent."""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from livetab.settings import JudgeSettings

__all__ = ["content_id", "judgment_id", "question_id", "request_id", "run_id", "table_id"]


def content_id(prefix: str, *parts: Any) -> str:
    """`prefix_` + 20 hex chars of sha256 over the canonical JSON of `parts`."""
    blob = json.dumps(parts, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    return f"{prefix}_{hashlib.sha256(blob.encode()).hexdigest()[:20]}"


def table_id(source_uri: str, revision: str, table_index: int) -> str:
    return content_id("tab", source_uri, revision, table_index)


def question_id(table_id: str, generator: str, params: dict[str, Any]) -> str:
    return content_id("q", table_id, generator, params)


def run_id(team: str, model: str, release: str, settings: dict[str, Any]) -> str:
    return content_id("run", team, model, release, settings)


def request_id(run_id: str, question_id: str, fmt: str, setting: str, sample_index: int) -> str:
    return content_id("req", run_id, question_id, fmt, setting, sample_index)


def judge_name(judge: JudgeSettings) -> str:
    """Who judges under these settings: the rule judge alone, or the cascade with its LLM judges (name@temperature).
    Part of every judgment id, and what the leaderboard counts: one judge's verdicts, never two judges' mixed."""
    if not judge.llm_judges:
        name = "rule"
    else:
        temps = judge.llm_temperatures
        name = "cascade:" + "+".join(f"{m.name}@{temps[i] if i < len(temps) else 0.0}"
                                     for i, m in enumerate(judge.llm_judges))
    # an insight judge of its own is named too (by default it is the first LLM judge, already in the name)
    return name + (f"|insight:{judge.insight_judge.name}@0.0" if judge.insight_judge is not None else "")


def judgment_id(request_id: str, judge: str) -> str:
    return content_id("jdg", request_id, judge)
