"""The judge handler: inference results in, judgments out.

The rule judge (AraTable's rubric as code) decides first; when LLM judges are configured they take what
it leaves uncertain (or everything, with `always_llm`), deliberating on disagreements (ASD). A failed
model call is judged `error`: counted as wrong, shown apart.

Answers of the `insight` family (free-text insights about the table) bypass the cascade: the insight judge
(`judge.insight_judge`, by default the first LLM judge) labels each insight for factuality over the
question's table (tables read once per batch), executing the structured claims the model wrote beside its
sentences (see `insight_answers`). Without an LLM insight judge the claims alone decide: an insight whose
claim executes over the table is factual or not by it, and an answer none of whose insights could be decided
is recorded as `not_judged` (never wrong).
"""

from __future__ import annotations

import logging

from google.protobuf.message import Message
from livetab import topics as topic_names
from livetab.aioloop import BackgroundLoop
from livetab.bus import HandlerContext, Outgoing, PoisonMessage
from livetab.ids import judge_name, judgment_id
from livetab.models.base import ModelBackend, SamplingParams
from livetab.models.spec import model_spec
from livetab.questions import Question
from livetab.records import judgment_row, load_question, load_table
from livetab.rubric.columns import table_view
from livetab.run_progress import RunProgress
from livetab.settings import JudgeSettings, ModelSettings
from livetab.store import schema
from livetab.v1 import inference_pb2, judgment_pb2
from livetab.verdicts import is_insight_family

from livetab_judge.insight_answers import CLAIMS_ONLY, InsightCase

__all__ = ["JudgeHandler"]

log = logging.getLogger(__name__)
TOPIC_OUT = topic_names.JUDGMENTS


class JudgeHandler:
    service = "judge"
    topics = [topic_names.INFERENCE_RESULTS]

    def __init__(self, settings: JudgeSettings | None = None) -> None:
        from livetab_judge.cascade import Cascade
        from livetab_judge.insight_answers import InsightAnswerJudge
        from livetab_judge.insights import InsightJudge
        from livetab_judge.llm_judge import LLMJudge

        self.settings = settings or JudgeSettings()
        s = self.settings
        backends: dict[str, ModelBackend] = {}  # one backend per distinct model setting: a model loads once

        def backend(m: ModelSettings) -> ModelBackend:
            from livetab.models.registry import backend_from_spec

            key = m.model_dump_json()
            if key not in backends:
                backends[key] = backend_from_spec(model_spec(m))
            return backends[key]

        judges = []
        for i, m in enumerate(s.llm_judges):
            temp = s.llm_temperatures[i] if i < len(s.llm_temperatures) else 0.0
            judges.append(LLMJudge(backend(m), name=f"{m.name}@{temp}",
                                   sampling=SamplingParams(temperature=temp, max_tokens=s.llm_max_tokens, seed=i)))
        self.cascade = Cascade(judges, rule=s.asd_rule, always_llm=s.always_llm, batch_size=s.asd_batch_size,
                               tolerance=s.tolerance)
        insight = s.insight_model()
        if insight is not None:
            m, temp = insight
            self.insights = InsightAnswerJudge(
                InsightJudge(backend(m), name=f"{m.name}@{temp}", max_rows=s.insight_max_rows,
                             sampling=SamplingParams(temperature=temp, max_tokens=s.llm_max_tokens)),
                max_per_answer=s.insight_max_per_answer)
        else:  # no LLM insight judge: the claims the model wrote decide what they can
            self.insights = InsightAnswerJudge(InsightJudge(None, name=CLAIMS_ONLY))
        self.name = judge_name(s)  # part of the judgment id; the reporter counts this judge's verdicts only
        self.progress = RunProgress(self.service)  # judged per run: an OTel counter, a log line per batch
        self._loop = BackgroundLoop("judge-loop")

    def handle(self, message: Message, ctx: HandlerContext) -> list[Outgoing]:
        return self.handle_batch([message], ctx)

    def handle_batch(self, messages: list[Message], ctx: HandlerContext) -> list[Outgoing]:
        from livetab_judge.cascade import CascadeCase

        judgments: list[tuple[judgment_pb2.Judgment, str]] = []
        cases: list[CascadeCase] = []
        pending: list[judgment_pb2.Judgment] = []
        insight_cases: list[tuple[judgment_pb2.Judgment, Question, str]] = []
        results: list[inference_pb2.InferenceResult] = []
        for m in messages:
            if not isinstance(m, inference_pb2.InferenceResult):
                raise PoisonMessage(f"judge got {m.DESCRIPTOR.full_name}")
            results.append(m)
        rows = ctx.store.get_many(schema.questions, [m.question_id for m in results])  # one read per batch
        questions = {k: load_question(row) for k, row in rows.items()}
        # The questions' tables, one read per batch: the rule judge reads the asked column from them and the
        # insight judge executes claims over them.
        table_rows = ctx.store.get_many(schema.tables, sorted({q.table_id for q in questions.values() if q}))
        tables = {k: load_table(row) for k, row in table_rows.items()}
        views = {k: table_view(t) for k, t in tables.items()}
        for m in results:
            j = judgment_pb2.Judgment(id=judgment_id(m.id, self.name), request_id=m.id, run_id=m.run_id,
                                      question_id=m.question_id, model=m.model, judge=self.name,
                                      sample_index=m.sample_index)
            question = questions.get(m.question_id)
            judgments.append((j, question.family if question else ""))
            if question is None:
                j.verdict, j.rationale = "error", f"question {m.question_id} is not in the store"
            elif m.error:
                j.verdict, j.rationale = "error", f"no answer: {m.error}"
            elif is_insight_family(question.family):
                insight_cases.append((j, question, m.response))
            else:
                cases.append(CascadeCase(j.id, m.response, question, views.get(question.table_id)))
                pending.append(j)
        if cases:
            for j, result in zip(pending, self._loop.run(self.cascade.judge_many(cases)), strict=True):
                result.apply_to(j)
            for j in pending:
                j.score = 1.0 if j.verdict == "correct" else 0.0
        if insight_cases:
            self._loop.run(self.insights.judge_many(
                [InsightCase(j, q, response, tables.get(q.table_id)) for j, q, response in insight_cases]))
        ctx.store.upsert(schema.judgments, [judgment_row(j, fam) for j, fam in judgments])
        self.progress.judged(j.run_id for j, _ in judgments)
        return [Outgoing(TOPIC_OUT, j, key=j.run_id, message_id=j.id) for j, _ in judgments]
