"""Judgments as columns: what the leaderboard is computed from, read from rows shaped as the store returns them.

One pass over the judgment rows of the given runs (one judge's verdicts), each joined to its inference
result (format, setting, tokens, latency) and, through small per-question and per-table tables, to the
question's labels (family, skill, scope, operation, difficulty, language, source date) and its table's
(domain, source kind, size, header depth, grouped rows, footnotes). Labels are stored once per question
and per table as integer codes; per judgment only codes and numbers are kept, so a million judgments fit
in a few hundred megabytes and every breakdown is a `numpy.bincount` (see `stats.aggregate`).

`facts_from_rows` is the whole join and is what the benchmark (`bench/reporter.py`) times; `read_facts`
is the three store reads in front of it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import numpy as np
from livetab.records import load_question
from livetab.store import schema
from livetab.v1 import inference_pb2, judgment_pb2, run_pb2, table_pb2
from livetab.verdicts import CORRECT, ERROR, is_insight_family

__all__ = ["QUESTION_KEYS", "Codes", "Facts", "InsightFact", "facts_from_rows", "prompt_token_bin", "read_facts",
           "slice_order"]

UNKNOWN = "unknown"
# labels of a question (its own, or its table's), one code per question; in this order in `Facts.qlabels`
QUESTION_KEYS = ("family", "skill", "scope", "operation", "difficulty", "language", "domain", "source", "table_rows",
                 "table_cols", "table_cells", "header_depth", "grouped_rows", "footnotes")
PROMPT_TOKEN_BINS = (256, 512, 1024, 2048, 4096)  # upper bounds (exclusive); prompt_tokens "<256", "256-511", ...


class Codes:
    """Strings to dense integer codes, in order of first appearance."""

    def __init__(self) -> None:
        self.index: dict[str, int] = {}
        self.names: list[str] = []

    def code(self, name: str) -> int:
        i = self.index.get(name)
        if i is None:
            i = self.index[name] = len(self.names)
            self.names.append(name)
        return i


@dataclass
class InsightFact:
    """An insight-family judgment: scored apart (`leaderboard.insight_stats`), kept whole."""

    run: str
    model: str
    verdict: str
    labels: list[Any]
    response: str


@dataclass
class Facts:
    """One entry per QA judgment in the arrays; `entities` are runs (each one model on one release)."""

    run_ids: list[str]
    models: list[str]  # per run: the model's leaderboard name
    cutoffs: list[str]  # per run: the model's declared knowledge cutoff (ISO date) or ""
    configs: list[dict[str, Any]]  # per run: its knobs (formats, settings, samples, sampling, model spec)
    run: np.ndarray  # int32 code into run_ids
    question: np.ndarray  # int32 code into question_ids
    fmt: np.ndarray  # int32 code into formats
    setting: np.ndarray
    sample: np.ndarray  # int32 sample index
    correct: np.ndarray  # bool
    error: np.ndarray  # bool: the model call failed (counted wrong, and apart)
    prompt_tokens: np.ndarray  # int64, 0 when not recorded
    completion_tokens: np.ndarray
    latency_ms: np.ndarray  # float64, 0 when not recorded
    answer: np.ndarray  # int32 code into answers (the judge's extracted answer; -1 - sample when none)
    question_ids: list[str]
    formats: list[str]
    settings: list[str]
    qlabels: dict[str, np.ndarray]  # key in QUESTION_KEYS -> int32 code per question
    qnames: dict[str, list[str]]  # key -> the names of its codes
    qdate: list[str]  # per question: the source's creation date (ISO, "" unknown)
    deliberation: list[tuple[int, list[tuple[str, str, str]]]] = field(default_factory=list)
    # (run code, [(judge, own_label, revised_label) per round]) of each judgment with deliberation rounds
    insights: list[InsightFact] = field(default_factory=list)
    first_judged_at: str = ""  # the earliest and latest `created_at` of the judgments read (ISO 8601, UTC)
    last_judged_at: str = ""

    def __len__(self) -> int:
        return int(self.run.shape[0])


def _bin(value: int, bounds: tuple[int, ...], unit: str = "") -> str:
    lo = 0
    for b in bounds:
        if value < b:
            return f"{lo}-{b - 1}{unit}" if lo else f"<{b}{unit}"
        lo = b
    return f">={lo}{unit}"


_DIFFICULTY = {"easy": 0.0, "medium": 1.0, "hard": 2.0}
_BIN_LABEL = re.compile(r"^(?:<(\d+)|(\d+)-\d+|>=(\d+))\D*$")


def slice_order(value: str) -> tuple[int, float, str]:
    """Sort key of a slice's values: bins of a size ("<26", "26-100", "101-400", ">=401") by their lower
    bound, not as text ("101-400" before "26-100"); difficulties from easy to hard; other values as text;
    "unknown" last."""
    if value == UNKNOWN:
        return (2, 0.0, value)
    if value in _DIFFICULTY:
        return (0, _DIFFICULTY[value], value)
    if m := _BIN_LABEL.match(value):
        return (0, -1.0 if m.group(1) else float(m.group(2) or m.group(3)), value)
    return (1, 0.0, value)


def prompt_token_bin(tokens: int) -> str:
    return _bin(tokens, PROMPT_TOKEN_BINS) if tokens > 0 else UNKNOWN


def _table_labels(row: Mapping[str, Any] | None) -> dict[str, str]:
    if row is None:
        return {k: UNKNOWN for k in ("domain", "source", "table_rows", "table_cols", "table_cells", "header_depth",
                                     "grouped_rows", "footnotes")} | {"date": ""}
    t = table_pb2.Table.FromString(row["payload"])
    p = t.profile
    n_rows = p.n_rows or len(t.rows)
    n_cols = p.n_cols or max((len(r.values) for r in [*t.header, *t.rows]), default=0)
    depth = len(t.header)
    return {"domain": row.get("domain") or t.domain or UNKNOWN, "source": t.source.kind or UNKNOWN,
            "table_rows": _bin(n_rows, (6, 21, 51)), "table_cols": _bin(n_cols, (5, 9)),
            "table_cells": _bin(n_rows * n_cols, (26, 101, 401)),
            "header_depth": str(depth) if depth < 3 else "3+",
            "grouped_rows": "yes" if (p.grouped_rows or t.group_column) else "no",
            "footnotes": "yes" if (p.footnotes or len(t.footnotes)) else "no",
            "date": row.get("source_created_at") or t.source.created_at or ""}


def _run_info(row: Mapping[str, Any] | None, fallback_model: str) -> tuple[str, str, dict[str, Any]]:
    if row is None:
        return fallback_model, "", {}
    r = run_pb2.Run.FromString(row["payload"])
    s, m = r.settings, r.model
    config = {"team": r.team, "release": r.release, "requested_at": r.requested_at,
              "formats": list(s.formats), "settings": list(s.settings), "samples": s.samples, "max_rows": s.max_rows,
              "families": list(s.families), "limit": s.limit,
              "sampling": {"temperature": s.sampling.temperature, "top_p": s.sampling.top_p,
                           "max_tokens": s.sampling.max_tokens, "seed": s.sampling.seed},
              "model": {"name": m.name, "backend": m.backend, "model": m.model, "pool": m.pool,
                        "knowledge_cutoff": m.knowledge_cutoff, "params": dict(sorted(m.params.items()))}}
    return m.name or row.get("model") or fallback_model, m.knowledge_cutoff, config


def facts_from_rows(judgments: Iterable[Mapping[str, Any]], results: Iterable[Mapping[str, Any]],
                    questions: Mapping[str, Mapping[str, Any]], tables: Mapping[str, Mapping[str, Any]],
                    runs: Mapping[str, Mapping[str, Any]]) -> Facts:
    """Columns from store rows: `judgments` (one judge's) and `results` as `Store.select` returns them, in any
    order, each read once (iterators will do); `questions`, `tables` and `runs` by id as `Store.get_many`
    returns them."""
    run_codes, q_codes, answers = Codes(), Codes(), Codes()
    run_models: list[str] = []
    c_run: list[int] = []
    c_q: list[int] = []
    c_sample: list[int] = []
    c_ok: list[bool] = []
    c_err: list[bool] = []
    c_ans: list[int] = []
    row_of: dict[str, int] = {}  # request id -> index of its QA judgment
    families: dict[str, str] = {}
    deliberation: list[tuple[int, list[tuple[str, str, str]]]] = []
    insights: list[InsightFact] = []
    insight_of: dict[str, InsightFact] = {}
    parse = judgment_pb2.Judgment.FromString
    insight_family: dict[str, bool] = {}
    answer_index = answers.index
    for j in judgments:
        family = j["family"]
        is_insight = insight_family.get(family)
        if is_insight is None:
            is_insight = insight_family[family] = is_insight_family(family)
        if is_insight:
            fact = InsightFact(j["run_id"], j["model"], j["verdict"], list(parse(j["payload"]).insights), "")
            insights.append(fact)
            insight_of[j["request_id"]] = fact
            continue
        run_id = j["run_id"]
        rc = run_codes.index.get(run_id)
        if rc is None:
            rc = run_codes.code(run_id)
            run_models.append(j["model"])
        qid = j["question_id"]
        qc = q_codes.index.get(qid)
        if qc is None:
            qc = q_codes.code(qid)
            families[qid] = family or UNKNOWN
        jm = parse(j["payload"])
        verdict = j["verdict"]
        row_of[j["request_id"]] = len(c_run)
        c_run.append(rc)
        c_q.append(qc)
        sample = jm.sample_index
        c_sample.append(sample)
        c_ok.append(verdict == CORRECT)
        c_err.append(verdict == ERROR)
        a = jm.extracted_answer
        if a:
            code = answer_index.get(a)
            c_ans.append(answers.code(a) if code is None else code)
        else:
            c_ans.append(-1 - sample)
        if jm.deliberation:
            deliberation.append((rc, [(d.judge, d.own_label, d.revised_label) for d in jm.deliberation]))

    # each QA judgment's result: format, setting, tokens, latency (a judgment without one: "unknown", zeros)
    fmt_codes, set_codes = Codes(), Codes()
    at: list[int] = []
    r_fmt: list[int] = []
    r_set: list[int] = []
    r_pt: list[int] = []
    r_ct: list[int] = []
    r_lat: list[float] = []
    parse_result = inference_pb2.InferenceResult.FromString
    fmt_index, set_index = fmt_codes.index, set_codes.index
    for r in results:
        i = row_of.get(r["id"])
        if i is None:
            pending = insight_of.get(r["id"])
            if pending is not None:  # the insight section scores the diversity of the responses
                pending.response = parse_result(r["payload"]).response
            continue
        m = parse_result(r["payload"])
        at.append(i)
        fmt = m.format or UNKNOWN
        code = fmt_index.get(fmt)
        r_fmt.append(fmt_codes.code(fmt) if code is None else code)
        setting = m.setting or UNKNOWN
        code = set_index.get(setting)
        r_set.append(set_codes.code(setting) if code is None else code)
        r_pt.append(m.prompt_tokens)
        r_ct.append(m.completion_tokens)
        r_lat.append(m.latency_ms)
    n = len(c_run)
    fmt = np.full(n, -1, dtype=np.int32)
    setting = np.full(n, -1, dtype=np.int32)
    pt = np.zeros(n, dtype=np.int64)
    ct = np.zeros(n, dtype=np.int64)
    lat = np.zeros(n, dtype=np.float64)
    idx = np.asarray(at, dtype=np.int64)
    fmt[idx], setting[idx] = r_fmt, r_set
    pt[idx], ct[idx], lat[idx] = r_pt, r_ct, r_lat
    if len(at) < n:
        fmt[fmt < 0] = fmt_codes.code(UNKNOWN)
        setting[setting < 0] = set_codes.code(UNKNOWN)

    qlabels, qnames, qdate = _question_labels(q_codes.names, families, questions, tables)
    models, cutoffs, configs = [], [], []
    for rc, run_id in enumerate(run_codes.names):
        name, cutoff, config = _run_info(runs.get(run_id), run_models[rc])
        models.append(name)
        cutoffs.append(cutoff)
        configs.append(config)
    return Facts(
        run_ids=run_codes.names, models=models, cutoffs=cutoffs, configs=configs,
        run=np.asarray(c_run, dtype=np.int32), question=np.asarray(c_q, dtype=np.int32), fmt=fmt, setting=setting,
        sample=np.asarray(c_sample, dtype=np.int32), correct=np.asarray(c_ok, dtype=bool),
        error=np.asarray(c_err, dtype=bool), prompt_tokens=pt, completion_tokens=ct, latency_ms=lat,
        answer=np.asarray(c_ans, dtype=np.int32), question_ids=q_codes.names, formats=fmt_codes.names,
        settings=set_codes.names, qlabels=qlabels, qnames=qnames, qdate=qdate, deliberation=deliberation,
        insights=insights)


def _question_labels(qids: list[str], families: dict[str, str], questions: Mapping[str, Mapping[str, Any]],
                     tables: Mapping[str, Mapping[str, Any]]
                     ) -> tuple[dict[str, np.ndarray], dict[str, list[str]], list[str]]:
    """Per question its labels' codes (one array per key of QUESTION_KEYS), each key's names and the source date.

    The questions come parsed from `load_question` (kept by their bytes: the report process parses the release's
    ahead) and the labels are coded once per distinct combination, not once per question (a release has a few
    hundred combinations for thousands of questions): the 2,000 questions of the eval benchmark took 0.0164 s
    before, 0.0049 s so (best of 20, one process)."""
    codes = [Codes() for _ in QUESTION_KEYS]
    per_table: dict[str, tuple[tuple[str, ...], str]] = {}
    coded: dict[tuple[str, ...], tuple[int, ...]] = {}
    rows: list[tuple[int, ...]] = []
    dates = []
    for qid in qids:
        q = load_question(questions.get(qid))  # type: ignore[arg-type]
        table_id = q.table_id if q else ""
        t = per_table.get(table_id)
        if t is None:
            tl = _table_labels(tables.get(table_id))
            t = per_table[table_id] = (tuple(tl[k] for k in QUESTION_KEYS[6:]), tl["date"])
        if q is None:
            labels = (families.get(qid) or UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN, *t[0])
        else:
            labels = (families.get(qid) or q.family or UNKNOWN, q.skill or UNKNOWN, q.scope or UNKNOWN,
                      q.operation or UNKNOWN, q.difficulty or UNKNOWN, q.language or UNKNOWN, *t[0])
        c = coded.get(labels)
        if c is None:
            c = coded[labels] = tuple(codes[i].code(v) for i, v in enumerate(labels))
        rows.append(c)
        dates.append(((q.source_created_at if q else "") or t[1])[:10])
    table = np.asarray(rows, dtype=np.int32).reshape(len(rows), len(QUESTION_KEYS))
    return ({k: np.ascontiguousarray(table[:, i]) for i, k in enumerate(QUESTION_KEYS)},
            {k: codes[i].names for i, k in enumerate(QUESTION_KEYS)}, dates)


# the columns of the store's rows that `facts_from_rows` reads (`read_facts` streams only these)
JUDGMENT_COLUMNS = ("id", "request_id", "run_id", "question_id", "model", "family", "verdict", "payload", "created_at")
RESULT_COLUMNS = ("id", "payload")


def read_facts(store: Any, run_ids: list[str], *, judge: str) -> Facts:
    """The store reads in front of `facts_from_rows`: per run its results and `judge`'s judgments, then the
    questions, tables and runs by id (`get_many`, one query per 500 ids) — a fixed number of queries per run
    whatever its size. The results and judgments are streamed (`Store.stream`: the columns the join reads, a
    chunk at a time), so what a recompute holds is the run's facts, not its rows; a `ReadOnce` (the report
    files) keeps them instead, for the files that read them again."""
    qids: list[str] = []
    for run_id in run_ids:
        qids += store.distinct(schema.judgments, "question_id", run_id=run_id, judge=judge)
    questions = store.get_many(schema.questions, qids)
    table_ids = {q.table_id for r in questions.values() if (q := load_question(r)) is not None}
    tables = store.get_many(schema.tables, sorted(table_ids))
    runs = store.get_many(schema.runs, run_ids)
    times: list[datetime] = []  # the first and last judgment's time, kept as the rows go by

    def judgments() -> Iterator[Mapping[str, Any]]:
        for run_id in run_ids:
            for j in store.stream(schema.judgments, JUDGMENT_COLUMNS, run_id=run_id, judge=judge):
                t = j.get("created_at")
                if isinstance(t, datetime):
                    times[:] = [min(times[0], t), max(times[1], t)] if times else [t, t]
                yield j

    def results() -> Iterator[Mapping[str, Any]]:
        for run_id in run_ids:
            yield from store.stream(schema.results, RESULT_COLUMNS, run_id=run_id)

    facts = facts_from_rows(judgments(), results(), questions, tables, runs)
    if times:
        first, last = (t if t.tzinfo else t.replace(tzinfo=UTC) for t in times)
        facts.first_judged_at = first.isoformat(timespec="seconds")
        facts.last_judged_at = last.isoformat(timespec="seconds")
    return facts
