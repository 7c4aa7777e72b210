"""The reporter handler: judgments in, leaderboard rows (store) and a leaderboard update (topic) out.
Rows are recomputed from the store per batch, so redelivered judgments never count twice."""

from __future__ import annotations

from google.protobuf.message import Message
from livetab.bus import HandlerContext, Outgoing, PoisonMessage
from livetab.ids import content_id
from livetab.store import schema
from livetab.v1 import judgment_pb2, report_pb2
from livetab_reporter.leaderboard import compute_rows

__all__ = ["ReporterHandler"]

TOPIC_OUT = "livetab.reports.v1"


class ReporterHandler:
    service = "reporter"
    topics = ["livetab.judgments.v1"]

    def handle(self, message: Message, ctx: HandlerContext) -> list[Outgoing]:
        return self.handle_batch([message], ctx)

    def handle_batch(self, messages: list[Message], ctx: HandlerContext) -> list[Outgoing]:
        runs: list[str] = []
        for m in messages:
            if not isinstance(m, judgment_pb2.Judgment):
                raise PoisonMessage(f"reporter got {m.DESCRIPTOR.full_name}")
            if m.run_id not in runs:
                runs.append(m.run_id)
        out = []
        for run_id in runs:
            rows = compute_rows(ctx.store, run_id)
            ctx.store.upsert(schema.leaderboard, [{"id": f"{r.run_id}|{r.slice}", **r.as_dict()} for r in rows])
            run = ctx.store.get(schema.runs, run_id)
            judged = next((r.n for r in rows if r.slice == "all"), 0)
            update = report_pb2.LeaderboardUpdate(
                id=content_id("lb", run_id, judged), run_id=run_id, release=run["release"] if run else "",
                rows=[report_pb2.LeaderboardRow(**r.as_dict()) for r in rows], judged=judged,
                planned=run["planned"] if run else 0,
            )
            out.append(Outgoing(TOPIC_OUT, update, key=run_id, message_id=update.id))
        return out
