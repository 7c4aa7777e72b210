"""Re-judging as a command: a `JudgeCommand` (runs, `again`) in, the runs' stored answers judged again.

The judge service reads the named runs' stored inference results and judges those its configured judge
has not judged yet (every one with `again`), through the same code as the results path (`JudgeHandler`):
the judgments are upserted under the same ids (request + judge), so a re-judgment replaces the earlier
one, and they are published on the judgments topic for the reporter as any other judgment.
"""

from __future__ import annotations

import logging

from google.protobuf.message import Message
from livetab.bus import HandlerContext, Outgoing, PoisonMessage
from livetab.ids import judgment_id
from livetab.store import schema
from livetab.topics import JUDGE_COMMANDS, by_name, consumer_group
from livetab.v1 import inference_pb2, release_pb2

from livetab_judge.handler import JudgeHandler

__all__ = ["JudgeCommandHandler"]

log = logging.getLogger(__name__)
CHUNK = 100  # results judged per call of the results path (one store read of questions and tables each)


class JudgeCommandHandler:
    service = "judge"
    topics = [JUDGE_COMMANDS]
    # its own consumer group beside the results handler's (the registry's `group` of this topic): in one group,
    # each worker's join rebalanced the other and a commit during the rebalance stopped the judge service
    group = consumer_group("judge", by_name(JUDGE_COMMANDS).group)

    def __init__(self, judge: JudgeHandler) -> None:
        self.judge = judge  # the results handler: same judges, same models loaded once

    def _to_judge(self, run_id: str, again: bool, ctx: HandlerContext) -> list[inference_pb2.InferenceResult]:
        rows = sorted(ctx.store.select(schema.results, run_id=run_id), key=lambda r: r["id"])
        ids = {r["id"]: judgment_id(r["id"], self.judge.name) for r in rows}
        done = set() if again else ctx.store.ids(schema.judgments, ids.values())
        return [inference_pb2.InferenceResult.FromString(r["payload"]) for r in rows if ids[r["id"]] not in done]

    def handle(self, message: Message, ctx: HandlerContext) -> list[Outgoing]:
        if not isinstance(message, release_pb2.JudgeCommand):
            raise PoisonMessage(f"judge commands got {message.DESCRIPTOR.full_name}")
        out: list[Outgoing] = []
        for run_id in dict.fromkeys(message.run_ids):
            results = self._to_judge(run_id, message.again, ctx)
            for i in range(0, len(results), CHUNK):
                out += self.judge.handle_batch(list(results[i:i + CHUNK]), ctx)
            log.info("judge command %s: run %s: %s %d stored answer(s) with %s", message.id, run_id,
                     "re-judged" if message.again else "judged the missing", len(results), self.judge.name)
        return out
