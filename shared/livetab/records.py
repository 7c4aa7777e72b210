"""Store rows <-> protobuf messages for each entity, in one place."""

from __future__ import annotations

from typing import Any

from livetab.questions import Question
from livetab.tables import Table
from livetab.v1 import inference_pb2, judgment_pb2, question_pb2, run_pb2, table_pb2

__all__ = ["judgment_row", "load_question", "load_table", "question_row", "result_row", "run_row", "table_row"]


def table_row(t: table_pb2.Table) -> dict[str, Any]:
    return {"id": t.id, "release": t.release, "source_uri": t.source.uri, "language": t.language or "en",
            "domain": t.domain or "other", "source_created_at": t.source.created_at,
            "payload": t.SerializeToString()}


def question_row(q: question_pb2.Question) -> dict[str, Any]:
    return {"id": q.id, "table_id": q.table_id, "release": q.release, "family": q.family,
            "status": q.status or "verified", "payload": q.SerializeToString()}


def run_row(r: run_pb2.Run, planned: int, refused: str = "") -> dict[str, Any]:
    """`refused`: why the planner planned nothing for it ("" for a planned run)."""
    return {"id": r.id, "team": r.team, "model": r.model.name, "release": r.release, "planned": planned,
            "payload": r.SerializeToString(), "refused": refused}


def result_row(r: inference_pb2.InferenceResult) -> dict[str, Any]:
    return {"id": r.id, "run_id": r.run_id, "question_id": r.question_id, "model": r.model,
            "sample_index": r.sample_index, "error": r.error, "payload": r.SerializeToString()}


def judgment_row(j: judgment_pb2.Judgment, family: str) -> dict[str, Any]:
    return {"id": j.id, "request_id": j.request_id, "run_id": j.run_id, "question_id": j.question_id,
            "model": j.model, "judge": j.judge, "family": family, "verdict": j.verdict, "score": j.score,
            "payload": j.SerializeToString()}


def load_table(row: dict[str, Any] | None) -> Table | None:
    return Table.from_proto(table_pb2.Table.FromString(row["payload"])) if row else None


# Parsed questions by their stored bytes. One question is read by the planner, inference, the judge and the
# reporter; in one process (embedded mode, `livetab eval`) it is parsed once. Keyed by the payload itself, so an
# edited question (other bytes) is parsed afresh; bounded, cleared when full.
_QUESTIONS: dict[bytes, Question] = {}
MAX_PARSED_QUESTIONS = 20_000


def load_question(row: dict[str, Any] | None) -> Question | None:
    """The stored question as a `Question`. The object may be shared with other readers of the same bytes in this
    process: read it, never change it in place (`copy.deepcopy` first)."""
    if not row:
        return None
    payload = row["payload"]
    if type(payload) is not bytes:  # a driver's memoryview
        payload = bytes(payload)
    q = _QUESTIONS.get(payload)
    if q is None:
        if len(_QUESTIONS) >= MAX_PARSED_QUESTIONS:
            _QUESTIONS.clear()
        q = _QUESTIONS[payload] = Question.from_proto(question_pb2.Question.FromString(payload))
    return q
