"""The report files read a run's answers as they go by, never all held: the records a chunk at a time in one order
whatever the chunk, the exports a batch at a time, and the pages' first answers in their ranked order."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from livetab.store import schema
from livetab.store.read_once import ReadOnce
from livetab.v1 import inference_pb2
from livetab_reporter import files
from livetab_reporter.answers import answer_records, iter_answer_records
from livetab_reporter.export import RowsWriter, read_rows, write_rows
from livetab_reporter.files import PageAnswers
from reporter_data import Answer, add_questions, answer_and_judge, plan_run


def _decide(r: inference_pb2.InferenceRequest) -> Answer:
    n = int(r.id[-4:], 16)
    return Answer("correct" if n % 3 else "incorrect", extracted=f"a{n % 5}", prompt_tokens=100 + n % 900,
                  completion_tokens=n % 7, latency_ms=n % 11 / 4)


def _runs(store: Any) -> list[str]:
    add_questions(store, 9)
    runs = []
    for model, knobs in (("m1", {"formats": ("markdown", "csv"), "samples": 3}), ("m2", {"samples": 2}),
                         ("m3", {"settings": ("with_table", "closed_book")})):
        run_id, reqs = plan_run(store, model=model, **knobs)
        answer_and_judge(store, reqs, _decide)
        runs.append(run_id)
    return runs


def _key(a: dict[str, Any]) -> tuple[Any, ...]:
    return a["run_id"], a["question_id"], a["format"], a["setting"], a["sample"]


def test_the_records_come_in_one_order_whatever_the_chunk_and_whether_rows_are_kept(store: Any) -> None:
    runs = _runs(store)
    every = answer_records(store, runs, judge="rule")
    assert len(every) == store.count(schema.judgments) == 9 * 6 + 9 * 2 + 9 * 2
    assert [_key(a) for a in every] == sorted({_key(a) for a in every})  # sorted, each key once
    assert {a["model"] for a in every} == {"m1", "m2", "m3"} and {a["format"] for a in every} == {"markdown", "csv"}
    for chunk in (1, 4, 7, 1000):  # a question's answers never split: 6 of m1's per question
        for reads in (store, ReadOnce(store), ReadOnce(store, unkept=(schema.judgments, schema.results))):
            assert list(iter_answer_records(reads, sorted(runs), judge="rule", chunk=chunk)) == every
    # the runs in the order given, each in its own order
    backwards = list(iter_answer_records(store, sorted(runs, reverse=True), judge="rule", chunk=5))
    assert backwards == sorted(every, key=lambda a: a["run_id"], reverse=True)


def test_the_pages_show_the_first_answers_of_the_runs_by_rank_without_holding_the_rest(
        store: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(files, "SAMPLE_LIMIT", 7)
    runs = _runs(store)
    every = answer_records(store, runs, judge="rule")
    models = {a["run_id"]: a["model"] for a in every}
    for order in (["m2", "m3", "m1"], ["m1", "m2", "m3"], ["m3", "m1", "m2"]):
        doc = {"models": [{"model": m, "run_id": next(r for r in runs if models[r] == m)} for m in order]}
        answers = PageAnswers(doc, figures=True)
        for a in every:  # the export's order: run by run, by id
            answers.add(a)
            assert sum(len(v) for v in answers.first.values()) <= 2 * 7 + 1  # trimmed as it goes
            run = a["run_id"]  # what a run keeps is always its first records
            assert answers.first[run] == [b for b in every if b["run_id"] == run][:len(answers.first[run])]
        expected = sorted(every, key=lambda a: order.index(a["model"]))[:7]  # as the pages always ordered them
        assert answers.shown() == expected and answers.total == len(every)
        assert answers.tokens is not None and sum(len(v) for v in answers.tokens.pairs.values()) == len(every)
        # read for a page without figures: each run's first answers and its count only
        read = files.read_page_answers(store, doc, runs, judge="rule", figures=False)
        assert read.shown() == expected and read.total == len(every) and read.tokens is None


def test_rows_written_as_they_go_by_read_back_as_the_rows_written_whole(store: Any, tmp_path: Path) -> None:
    rows = answer_records(store, _runs(store), judge="rule")
    write_rows(tmp_path / "whole", "results", rows)
    written = RowsWriter(tmp_path / "batches", "results", batch=4)
    for r in rows:
        written.add(r)
    assert written.close() == ["results.jsonl", "results.parquet"]
    write_rows(tmp_path / "iterated", "results", iter(rows))
    for ext in ("jsonl", "parquet"):
        whole = read_rows(tmp_path / "whole" / f"results.{ext}")
        assert whole == rows
        assert read_rows(tmp_path / "batches" / f"results.{ext}") == whole
        assert read_rows(tmp_path / "iterated" / f"results.{ext}") == whole
    import pyarrow.parquet as pq

    assert pq.ParquetFile(tmp_path / "batches" / "results.parquet").num_row_groups == -(-len(rows) // 4)
    empty = RowsWriter(tmp_path / "none", "results", ("run_id", "verdict"))
    assert empty.close() and read_rows(tmp_path / "none" / "results.parquet") == []
    assert pq.read_schema(tmp_path / "none" / "results.parquet").names == ["run_id", "verdict"]
