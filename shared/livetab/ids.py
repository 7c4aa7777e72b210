"""Deterministic content ids: the same content always gets the same id, so upserts are idempotent."""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from livetab.settings import JudgeSettings

__all__ = ["content_id", "judgment_id", "question_id", "request_id", "run_id", "table_id"]


_json_str = json.encoder.encode_basestring  # a str as json.dumps(..., ensure_ascii=False) writes it


def canonical_json(parts: tuple[Any, ...]) -> str:
    """`parts` as compact JSON with sorted keys, non-ASCII kept, a value JSON cannot write as its str.

    Parts that are all plain str and int (not bool) — a request's, a judgment's, a table's id — are written
    here directly, the same text json.dumps writes (`test_ids`), without the encoder json.dumps builds per call:
    9.7 of a request id's 12.6 µs went to that, once per planned request and once per judged answer."""
    if all(type(p) is str or type(p) is int for p in parts):
        return "[" + ",".join(_json_str(p) if type(p) is str else str(p) for p in parts) + "]"
    return json.dumps(parts, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)


def content_id(prefix: str, *parts: Any) -> str:
    """`prefix_` + 20 hex chars of sha256 over the canonical JSON of `parts` (`canonical_json`)."""
    return f"{prefix}_{hashlib.sha256(canonical_json(parts).encode()).hexdigest()[:20]}"


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
