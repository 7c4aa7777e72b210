"""One record per judged answer: what the results export and the page's per-sample table show.

`SECRET` names the fields that disclose a live release's questions: the question text, the gold answer,
and the model's response, extracted answer and the judge's reason (a correct response *is* the gold answer,
and a reason may quote it). Public files of a live release drop them (`public_view`)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from livetab.records import load_question
from livetab.store import schema
from livetab.v1 import inference_pb2, judgment_pb2

__all__ = ["COLUMNS", "SECRET", "answer_records", "iter_answer_records", "public_view", "redacted"]

COLUMNS = ("run_id", "model", "question_id", "table_id", "family", "skill", "format", "setting", "sample",
           "question", "gold", "response", "extracted_answer", "verdict", "reason", "prompt_tokens",
           "completion_tokens", "latency_ms")
SECRET = ("question", "gold", "response", "extracted_answer", "reason")


RECORD_CHUNK = 2000  # answers built at a time (`iter_answer_records`): what the records hold at once
JUDGMENT_COLUMNS = ("id", "request_id", "question_id", "model", "family", "verdict", "payload")


def iter_answer_records(store: Any, run_ids: Iterable[str], *, judge: str,
                        chunk: int = RECORD_CHUNK) -> Iterator[dict[str, Any]]:
    """Every answer of these runs judged by `judge`: run by run in the order given, and within a run by (question,
    format, setting, sample). A run's judgments are streamed sorted by question (`store.stream`), and built into
    records about `chunk` at a time, a question's answers never split between two chunks, each chunk with its
    results (`get_many`) and sorted on its own: what this holds at once is a chunk, not the run. The order within a
    run is total (a run has one request per question, format, setting and sample)."""
    for run_id in run_ids:
        group: list[Mapping[str, Any]] = []
        last = None
        for j in store.stream(schema.judgments, JUDGMENT_COLUMNS, chunk=chunk, order_by=("question_id",),
                              run_id=run_id, judge=judge):
            if len(group) >= chunk and j["question_id"] != last:
                yield from _records(store, run_id, group)
                group = []
            group.append(j)
            last = j["question_id"]
        yield from _records(store, run_id, group)


def answer_records(store: Any, run_ids: list[str], *, judge: str) -> list[dict[str, Any]]:
    """`iter_answer_records` over the runs in id order, as a list: the order (run, question, format, setting,
    sample)."""
    return list(iter_answer_records(store, sorted(run_ids), judge=judge))


def _records(store: Any, run_id: str, judged: list[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The records of these judgments of one run, sorted by (question, format, setting, sample)."""
    if not judged:
        return []
    questions = store.get_many(schema.questions, {j["question_id"] for j in judged})
    results = store.get_many(schema.results, [j["request_id"] for j in judged])
    loaded = {qid: load_question(row) for qid, row in questions.items()}
    out: list[dict[str, Any]] = []
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
    out.sort(key=lambda r: (r["question_id"], r["format"], r["setting"], r["sample"]))
    return out


def public_view(records: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The records without the fields that disclose a live release's questions."""
    return [redacted(r) for r in records]


def redacted(record: dict[str, Any]) -> dict[str, Any]:
    """One record without the fields that disclose a live release's questions."""
    return {k: v for k, v in record.items() if k not in SECRET}
