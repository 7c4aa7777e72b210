"""The judge handler: inference results in, judgments out. The rule judge (AraTable's rubric as code)
decides first; a failed model call is judged `error` (counted as wrong, shown apart)."""

from __future__ import annotations

import logging

from google.protobuf.message import Message
from livetab.bus import HandlerContext, Outgoing, PoisonMessage
from livetab.ids import judgment_id
from livetab.records import judgment_row, load_question
from livetab.store import schema
from livetab.v1 import inference_pb2, judgment_pb2

__all__ = ["JudgeHandler"]

log = logging.getLogger(__name__)
TOPIC_OUT = "livetab.judgments.v1"
RULE_JUDGE = "rule"


class JudgeHandler:
    service = "judge"
    topics = ["livetab.inference.results.v1"]

    def handle(self, message: Message, ctx: HandlerContext) -> list[Outgoing]:
        from livetab_judge.rubric.judge import judge_answer

        if not isinstance(message, inference_pb2.InferenceResult):
            raise PoisonMessage(f"judge got {message.DESCRIPTOR.full_name}")
        r = message
        j = judgment_pb2.Judgment(id=judgment_id(r.id, RULE_JUDGE), request_id=r.id, run_id=r.run_id,
                                  question_id=r.question_id, model=r.model, judge=RULE_JUDGE,
                                  sample_index=r.sample_index)
        question = load_question(ctx.store.get(schema.questions, r.question_id))
        family = question.family if question else ""
        if question is None:
            j.verdict, j.rationale = "error", f"question {r.question_id} is not in the store"
        elif r.error:
            j.verdict, j.rationale = "error", f"no answer: {r.error}"
        else:
            tolerance = getattr(getattr(ctx.settings, "judge", None), "tolerance", 0.005)
            v = judge_answer(r.response, question, tolerance=tolerance)
            j.verdict, j.extracted_answer, j.rationale = v.verdict, v.extracted, v.rationale
        j.score = 1.0 if j.verdict == "correct" else 0.0
        ctx.store.upsert(schema.judgments, [judgment_row(j, family)])
        return [Outgoing(TOPIC_OUT, j, key=j.run_id, message_id=j.id)]
