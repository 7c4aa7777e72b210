"""One record per judged answer: what the results export and the page's per-sample table show.

`SECRET` names the fields that disclose a live release's questions: the question text, the gold answer,
and the model's response, extracted answer and the judge's reason (a correct response *is* the gold answer,
and a reason may quote it). Public files of a live release drop them (`public_view`)."""

from __future__ import annotations

from typing import Any

from livetab.records import load_question
from livetab.store import schema
from livetab.v1 import inference_pb2, judgment_pb2

__all__ = ["COLUMNS", "SECRET", "answer_records", "public_view"]

COLUMNS = ("run_id", "model", "question_id", "table_id", "family", "skill", "format", "setting", "sample",
           "question", "gold", "response", "extracted_answer", "verdict", "reason", "prompt_tokens",
           "completion_tokens", "latency_ms")
SECRET = ("question", "gold", "response", "extracted_answer", "reason")


def answer_records(store: Any, run_ids: list[str], *, judge: str) -> list[dict[str, Any]]:
    """Every answer of these runs judged by `judge`, in a stable order (run, question, format, setting, sample)."""
    out: list[dict[str, Any]] = []
    for run_id in run_ids:
        judged = store.select(schema.judgments, run_id=run_id, judge=judge)
        questions = store.get_many(schema.questions, {j["question_id"] for j in judged})
        results = store.get_many(schema.results, [j["request_id"] for j in judged])
        loaded = {qid: load_question(row) for qid, row in questions.items()}
        for j in judged:
            q = loaded.get(j["question_id"])
            row = results.get(j["request_id"])
            res = inference_pb2.InferenceResult.FromString(row["payload"]) if row else inference_pb2.InferenceResult()
            jm = judgment_pb2.Judgment.FromString(j["payload"])
            out.append({
                "run_id": run_id, "model": j["model"], "question_id": j["question_id"],
                "table_id": q.table_id if q else "", "family": j["family"], "skill": q.skill if q else "",
                "format": res.format, "setting": res.setting, "sample": jm.sample_index,
                "question": q.text if q else "", "gold": q.gold.shown(q.options) if q else "", "response": res.response,
                "extracted_answer": jm.extracted_answer, "verdict": j["verdict"], "reason": jm.rationale,
                "prompt_tokens": res.prompt_tokens, "completion_tokens": res.completion_tokens,
                "latency_ms": round(res.latency_ms, 1),
            })
    out.sort(key=lambda r: (r["run_id"], r["question_id"], r["format"], r["setting"], r["sample"]))
    return out


def public_view(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The records without the fields that disclose a live release's questions."""
    return [{k: v for k, v in r.items() if k not in SECRET} for r in records]
