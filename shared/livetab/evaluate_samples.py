"""Per-sample logs of an evaluation: one row per model answer, with its question, the verdict of the configured
judge and the call's cost, read from the store (`samples.jsonl`, and `samples.parquet`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from livetab.records import load_question
from livetab.store import Store, schema
from livetab.store.read_once import ReadOnce
from livetab.v1 import inference_pb2, judgment_pb2

__all__ = ["SAMPLE_COLUMNS", "blank_row", "jsonl_to_parquet", "sample_rows", "write_jsonl", "write_samples"]

SAMPLE_COLUMNS = ("run_id", "model", "request_id", "question_id", "family", "language", "format", "setting",
                  "sample_index", "question", "prompt_version", "prompt_sha256", "response", "extracted_answer", "gold",
                  "verdict", "score", "reason", "judge", "prompt_tokens", "completion_tokens", "latency_ms", "error", "cached")


def sample_rows(store: Store | ReadOnce, run_ids: list[str], judge: str) -> list[dict[str, Any]]:
    """Every answer of the runs, in (run, question, format, setting, sample) order; `verdict` is "" for an answer
    `judge` has not judged (yet)."""
    out = []
    parse_result, parse_judgment = inference_pb2.InferenceResult.FromString, judgment_pb2.Judgment.FromString
    for run_id in run_ids:
        # the payloads alone (every field is in the message), the questions as this process parsed them already
        results = [parse_result(p) for p in store.payloads(schema.results, run_id=run_id)]
        verdicts = {}
        for payload in store.payloads(schema.judgments, run_id=run_id, judge=judge):
            j = parse_judgment(payload)
            verdicts[j.request_id] = j
        qids = {r.question_id for r in results}
        questions = {k: load_question(v) for k, v in store.get_many(schema.questions, qids).items()}
        for r in sorted(results, key=lambda r: (r.question_id, r.format, r.setting, r.sample_index)):
            q = questions.get(r.question_id)
            j = verdicts.get(r.id)
            out.append({
                "run_id": run_id, "model": r.model, "request_id": r.id, "question_id": r.question_id,
                "family": q.family if q else "", "language": q.language if q else "", "format": r.format,
                "setting": r.setting, "sample_index": r.sample_index, "question": q.text if q else "",
                "prompt_version": r.prompt_version, "prompt_sha256": r.prompt_sha256, "response": r.response,
                "extracted_answer": j.extracted_answer if j else "", "gold": q.gold.text if q else "",
                "verdict": j.verdict if j else "", "score": j.score if j else 0.0, "reason": j.rationale if j else "",
                "judge": judge if j else "", "prompt_tokens": r.prompt_tokens, "completion_tokens": r.completion_tokens,
                "latency_ms": round(r.latency_ms, 3), "error": r.error, "cached": r.cached,
            })
    return out


# the Parquet columns' types; every other column is a string
_TYPES = {"sample_index": "int64", "score": "float64", "prompt_tokens": "int64", "completion_tokens": "int64",
          "latency_ms": "float64", "cached": "bool"}


def blank_row() -> dict[str, Any]:
    """One sample row with every column at its type's zero (0, 0.0, False, ""): what warms the Parquet writer."""
    zero = {"int64": 0, "float64": 0.0, "bool": False}
    return {c: zero[_TYPES[c]] if c in _TYPES else "" for c in SAMPLE_COLUMNS}


def write_samples(folder: Path, rows: list[dict[str, Any]]) -> list[Path]:
    """samples.jsonl and samples.parquet in `folder`; the paths written."""
    jsonl, text = write_jsonl(folder, rows)
    parquet = folder / "samples.parquet"
    jsonl_to_parquet(text, parquet)
    return [jsonl, parquet]


def write_jsonl(folder: Path, rows: list[dict[str, Any]]) -> tuple[Path, bytes]:
    """samples.jsonl in `folder`: its path and the bytes written."""
    folder.mkdir(parents=True, exist_ok=True)
    jsonl = folder / "samples.jsonl"
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode("utf-8")
    jsonl.write_bytes(text)
    return jsonl, text


def jsonl_to_parquet(text: bytes, parquet: Path) -> None:
    """samples.parquet from samples.jsonl's bytes (`write_jsonl`), with the columns' types.

    The table is read by Arrow's own JSON reader: building it from Python lists (`pyarrow.array`) would
    import pandas (pyarrow looks for pandas objects), a third of a second of CPU an evaluation spends for
    nothing."""
    import io

    import pyarrow as pa
    import pyarrow.json as pj
    import pyarrow.parquet as pq

    types = {"int64": pa.int64(), "float64": pa.float64(), "bool": pa.bool_()}
    schema = pa.schema([(c, types[_TYPES[c]] if c in _TYPES else pa.string()) for c in SAMPLE_COLUMNS])
    table = None
    if text:
        try:
            table = pj.read_json(io.BytesIO(text), read_options=pj.ReadOptions(block_size=max(len(text), 1 << 20)),
                                 parse_options=pj.ParseOptions(explicit_schema=schema,
                                                               unexpected_field_behavior="error"))
        except pa.ArrowInvalid:  # a value Arrow's JSON reader does not take (NaN): from the Python lists then
            rows = [json.loads(line) for line in text.decode("utf-8").split("\n") if line]
            table = pa.table({c: pa.array([r[c] for r in rows], schema.field(c).type) for c in SAMPLE_COLUMNS})
    pq.write_table(table if table is not None else schema.empty_table(), parquet)
