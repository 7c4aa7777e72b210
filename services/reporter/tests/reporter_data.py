"""A run in the store, written the way the services write it: questions as qagen stores them, the run row
from the real planner, results shaped as the inference handler shapes them and judgments as the judge
handler does. Verdicts are chosen by the test, so the expected scores can be computed from them."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from livetab.bus import HandlerContext
from livetab.ids import judgment_id, question_id
from livetab.records import judgment_row, question_row, result_row, table_row
from livetab.runs import build_run
from livetab.settings import ReporterSettings, Settings
from livetab.store import schema
from livetab.tables import Source, Table
from livetab.v1 import common_pb2, inference_pb2, judgment_pb2, question_pb2
from livetab_api.planner import PlannerHandler
from livetab_scraper.profile import profile_table

from tests.support.releases import publish

RELEASE = "test-rel"
JUDGE = "rule"

# (family, skill, scope, difficulty, language) cycled over the questions
LABELS = [
    ("direct", "lookup", "single_cell", "easy", "en"),
    ("reasoning", "arithmetic", "full_table", "hard", "en"),
    ("fact", "compare", "cross_reference", "medium", "ar"),
]


# Tables cycled over the questions (four questions per table): their shape, source and the labels the
# reporter should give them, written out by hand (rows/columns/cells binned, header levels, structure).
@dataclass(frozen=True)
class TableSpec:
    rows: int
    cols: int
    header_levels: int
    grouped: bool
    footnotes: bool
    domain: str
    kind: str
    created_at: str
    labels: dict[str, str]


TABLES = [
    TableSpec(4, 3, 1, False, False, "sport", "wikipedia", "2024-03-01",
              {"table_rows": "<6", "table_cols": "<5", "table_cells": "<26", "header_depth": "1", "grouped_rows": "no",
               "footnotes": "no", "domain": "sport", "source": "wikipedia"}),
    TableSpec(30, 6, 2, True, True, "politics", "html_file", "2025-06-15",
              {"table_rows": "21-50", "table_cols": "5-8", "table_cells": "101-400", "header_depth": "2",
               "grouped_rows": "yes", "footnotes": "yes", "domain": "politics", "source": "html_file"}),
]
OPERATIONS = ["", "aggregation", "comparative"]  # cycled over the questions like LABELS ("" is "unknown")


def make_table(k: int) -> Table:
    spec = TABLES[k % len(TABLES)]
    header = [[f"h{level}.{c}" for c in range(spec.cols)] for level in range(spec.header_levels)]
    rows = [[f"r{r}c{c}" for c in range(spec.cols)] for r in range(spec.rows)]
    t = Table(id=f"tab_{k:05d}", source=Source(kind=spec.kind, uri=f"file:///t{k}", created_at=spec.created_at),
              header=header, rows=rows, domain=spec.domain, footnotes=["a note"] if spec.footnotes else [],
              release=RELEASE, group_column=f"h0.{spec.cols - 1}" if spec.grouped else "")
    t.profile = profile_table(t)
    return t


@dataclass(frozen=True)
class Answer:
    """What the test decides for one request: the verdict and the answer the judge extracted."""

    verdict: str
    extracted: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_ms: float = 0.0
    insights: tuple[tuple[str, str, str], ...] = ()  # (label, category, decided_by) per insight, insight answers
    deliberation: tuple[tuple[str, str, str], ...] = ()  # (judge, own label, revised label) per LLM judge


def context(store: Any, *, refresh_growth: float = 0.1, refresh_s: float = 30.0, out_dir: str = "",
            refresh_share: float = 1.0, first_s: float = 0.0) -> HandlerContext:
    """Settings for the reporter handler; it writes report files only when given an `out_dir`. Recomputes due
    to growth do not rest (`refresh_share` 1.0) and a run's first recompute does not wait (`first_s` 0) unless
    asked: these tests feed batches faster than any judge."""
    reporter = ReporterSettings(refresh_growth=refresh_growth, refresh_s=refresh_s, write_files=bool(out_dir),
                                refresh_share=refresh_share, first_s=first_s)
    settings = Settings(reporter=reporter, **({"out_dir": out_dir} if out_dir else {}))
    return HandlerContext(store=store, settings=settings)


def add_questions(store: Any, n: int, *, labels: Sequence[tuple[str, str, str, str, str]] = LABELS
                  ) -> list[question_pb2.Question]:
    qs = []
    tables = [make_table(k) for k in range((n + 3) // 4)]
    for i in range(n):
        family, skill, scope, difficulty, language = labels[i % len(labels)]
        table = tables[i // 4]
        q = question_pb2.Question(
            id=question_id(table.id, "test", {"i": i}), table_id=table.id, family=family, skill=skill, scope=scope,
            operation=OPERATIONS[i % len(OPERATIONS)], difficulty=difficulty, language=language,
            text=f"question {i}?", gold=question_pb2.Gold(kind="text", text=str(i)), status="verified",
            generator="test", release=RELEASE, source_created_at=table.source.created_at)
        qs.append(q)
    store.upsert(schema.tables, [table_row(t.to_proto()) for t in tables])
    store.upsert(schema.questions, [question_row(q) for q in qs])
    return qs


def plan_run(store: Any, model: str = "m1", *, cutoff: str = "", **knobs: Any
             ) -> tuple[str, list[inference_pb2.InferenceRequest]]:
    """The run row as the planner writes it (planned = its number of requests); returns (run id, requests).
    `cutoff`: the model's declared knowledge cutoff."""
    spec = common_pb2.ModelSpec(name=model, backend="openai", model=model, knowledge_cutoff=cutoff)
    run = build_run("team", RELEASE, spec, **knobs)
    publish(store, RELEASE)  # runs are planned against a live release (a draft is frozen first)
    outs = PlannerHandler().handle(run, HandlerContext(store=store, settings=None))
    return run.id, [o.message for o in outs]  # type: ignore[misc]


def answer_and_judge(store: Any, requests: Sequence[inference_pb2.InferenceRequest],
                     decide: Callable[[inference_pb2.InferenceRequest], Answer], judge: str = JUDGE
                     ) -> list[judgment_pb2.Judgment]:
    """Store one result per request and its judgment; return the judgments (what the reporter consumes)."""
    families = {r["id"]: r["family"] for r in store.select(schema.questions, release=RELEASE)}
    results, judgments = [], []
    for req in requests:
        a = decide(req)
        res = inference_pb2.InferenceResult(
            id=req.id, run_id=req.run_id, question_id=req.question_id, model=req.model.name, format=req.format,
            setting=req.setting, sample_index=req.sample_index, seed=req.sampling.seed,
            response=a.extracted, prompt_tokens=a.prompt_tokens,
            completion_tokens=a.completion_tokens, latency_ms=a.latency_ms,
            error="model error: boom" if a.verdict == "error" else "")
        j = judgment_pb2.Judgment(
            id=judgment_id(res.id, judge), request_id=res.id, run_id=res.run_id, question_id=res.question_id,
            model=res.model, judge=judge, sample_index=res.sample_index, verdict=a.verdict,
            extracted_answer=a.extracted, score=1.0 if a.verdict == "correct" else 0.0,
            insights=[judgment_pb2.InsightLabel(sentence=f"insight {k}", label=lab, category=cat, decided_by=by)
                      for k, (lab, cat, by) in enumerate(a.insights)],
            deliberation=[judgment_pb2.DeliberationRound(judge=jd, own_label=own, revised_label=rev)
                          for jd, own, rev in a.deliberation])
        results.append(res)
        judgments.append(j)
    store.upsert(schema.results, [result_row(r) for r in results])
    store.upsert(schema.judgments, [judgment_row(j, families.get(j.question_id, "")) for j in judgments])
    return judgments
