"""The run planner: a run in, one inference request per question × format × setting × sample out.

Only a live release is planned, and only over its frozen question set (`release_members`), so a run never
sees half a release or a question that arrived after the freeze. A run against a draft, frozen, retired or
unknown release is refused: the reason is recorded (a `failures` row, stage "planner", and the run's row
with `refused` set and nothing planned) and no request is published. A cancelled run (POST /runs/{id}/cancel)
is not planned again.

The closed-book setting is asked once per question (the format does not matter without the table) and
never for a question whose gold is about the table itself (insufficient, contradictory).

Fair sharing between teams: the runs of one batch (`handle_batch`: the records one poll took) are published
round-robin by team — one request of each team in turn, a team's runs one after another — so the inference
workers, which take requests in publication order, serve a team's 10 requests among the first 20 even when
another team's run of 10,000 came in the same batch. With `api.team_window` = W > 0 the sharing holds across batches too: at
most W of a team's requests are published and not yet answered at once; the rest of its runs wait in the
store (`runs.published` counts what went out) and are published as answers come in (`on_idle`, round-robin by
team), so a team arriving later waits behind at most W of each other team's requests, not their whole runs.
A cancelled run's held-back requests are never published. W = 0 (the default) publishes every request at once."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import chain, islice, zip_longest

from google.protobuf.message import Message
from livetab import topics as topic_names
from livetab.bus import HandlerContext, Outgoing, OutgoingStream, PoisonMessage
from livetab.failures import record_failure
from livetab.ids import request_id
from livetab.questions import TABLE_STATE_KINDS
from livetab.records import load_question, run_row
from livetab.releases import frozen_question_labels, not_live_reason
from livetab.runs import sample_call
from livetab.settings import ApiSettings
from livetab.store import Store, schema
from livetab.topics import requests_topic
from livetab.v1 import common_pb2, inference_pb2, run_pb2

__all__ = ["PlannerHandler", "plan_requests", "refuse", "round_robin_by_team", "top_up"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class _Asked:
    """What planning needs of a question: its id, and its gold's kind (read only when a closed-book setting
    needs it: "" otherwise)."""

    id: str
    gold_kind: str = ""


def _questions(run: run_pb2.Run, store: object) -> list[_Asked]:
    """The run's questions: its release's frozen set, verified, of its families, up to its limit, by id.

    Filtered on the questions' columns (family, status) and cut to the limit in one query, their payloads not read: the inference
    service reads and parses each question when it asks it, so the first requests go out without every question
    read and parsed before (the eval benchmark's planner step, 2,000 questions: 0.074-0.090 s before, 0.039-0.059
    s after, three runs each). A closed-book setting needs the gold's kind (`_asks`): then the chosen questions'
    payloads are read for it."""
    ids = [qid for qid, _, _ in frozen_question_labels(store, run.release, status="verified",  # type: ignore[arg-type]
                                                       families=set(run.settings.families),
                                                       limit=max(0, run.settings.limit))]
    kinds: dict[str, str] = {}
    if "closed_book" in run.settings.settings:
        kinds = {k: q.gold.kind for k, row in store.get_many(schema.questions, ids).items()  # type: ignore[attr-defined]
                 if (q := load_question(row)) is not None}
    return [_Asked(qid, kinds.get(qid, "")) for qid in ids]


def _asks(run: run_pb2.Run, q: _Asked) -> list[tuple[str, str]]:
    """The (format, setting) pairs a question is asked in."""
    formats = list(run.settings.formats) or ["markdown"]
    out = []
    for fmt in formats:
        for setting in list(run.settings.settings) or ["with_table"]:
            if setting == "closed_book" and fmt != formats[0]:
                continue  # without the table the format does not matter: ask once
            if setting == "closed_book" and q.gold_kind in TABLE_STATE_KINDS:
                # "the table lacks a value" cannot be asked without the table: the well-posed question
                # and its imperfect variants have the same closed-book prompt but different golds
                continue
            out.append((fmt, setting))
    return out


def _requests(run: run_pb2.Run, questions: list[_Asked]) -> Iterator[inference_pb2.InferenceRequest]:
    s = run.settings
    samples = max(1, s.samples)
    calls = [sample_call(run.model, samples, i) for i in range(samples)]  # the same for every question
    samplings = []  # ... and so is each sample's sampling (the request copies it in)
    for i in range(samples):
        sampling = common_pb2.Sampling()
        sampling.CopyFrom(s.sampling)
        sampling.seed = s.sampling.seed + i
        sampling.n = 1
        samplings.append(sampling)
    for q in questions:
        for fmt, setting in _asks(run, q):
            for i in range(samples):
                yield inference_pb2.InferenceRequest(
                    id=request_id(run.id, q.id, fmt, setting, i), run_id=run.id, question_id=q.id,
                    model=run.model, format=fmt, setting=setting, sample_index=i, sampling=samplings[i],
                    max_rows=s.max_rows or 40, call_size=calls[i][0], call_choice=calls[i][1],
                )


def _plan(run: run_pb2.Run, store: object, max_requests: int | None
          ) -> tuple[int, Callable[[], Iterator[inference_pb2.InferenceRequest]]]:
    """How many requests `run` has and a maker of them (nothing built yet); more than `max_requests` is a
    PoisonMessage (the api refuses such runs at its door, but a record on the topic may not have come through
    the api). The questions are read here, once; the requests are made as they are taken."""
    questions = _questions(run, store)
    samples = max(1, run.settings.samples)
    bound = len(questions) * max(1, len(run.settings.formats)) * max(1, len(run.settings.settings)) * samples
    if max_requests is not None and bound > max_requests:
        raise PoisonMessage(f"run {run.id} would plan {bound} requests, over api.max_run_requests ({max_requests})")
    return sum(len(_asks(run, q)) for q in questions) * samples, lambda: _requests(run, questions)


def plan_requests(run: run_pb2.Run, store: object, max_requests: int | None = None) -> list[inference_pb2.InferenceRequest]:
    """Every request of `run`, over its release's frozen question set (none for a release never frozen), as
    a list (the planner itself streams them: `_plan`)."""
    return list(_plan(run, store, max_requests)[1]())


def refuse(run: run_pb2.Run, store: object, reason: str) -> None:
    """Record why `run` is not planned: a failures row (stage "planner") and its run row marked refused.
    A run already planned (a redelivery after its release was retired) keeps its row."""
    log.warning("run %s refused: %s", run.id, reason)
    record_failure(store, "planner", run.id, reason, run.release)
    existing = store.get(schema.runs, run.id)  # type: ignore[attr-defined]
    if existing is None or existing["refused"] or not existing["planned"]:
        store.upsert(schema.runs, [run_row(run, 0, refused=reason)])  # type: ignore[attr-defined]


def round_robin_by_team(planned: Sequence[tuple[str, Sequence[Outgoing]]]) -> OutgoingStream:
    """(team, the outputs of one run) in arrival order -> one output of each team in turn (teams in order of
    their first run; a team's runs one after another), made as they are taken."""
    lanes: dict[str, list[Sequence[Outgoing]]] = {}
    for team, outs in planned:
        lanes.setdefault(team, []).append(outs)

    def make() -> Iterator[Outgoing]:
        turns = zip_longest(*(chain.from_iterable(runs) for runs in lanes.values()))
        return (o for turn in turns for o in turn if o is not None)

    topics = {t for _, outs in planned for t in _topics(outs)}
    return OutgoingStream(sum(len(outs) for _, outs in planned), topics, make)


def _topics(outs: Sequence[Outgoing]) -> set[str]:
    return outs.topics if isinstance(outs, OutgoingStream) else {o.topic for o in outs}


def _stream(topic: str, n: int, make: Callable[[], Iterator[inference_pb2.InferenceRequest]]) -> OutgoingStream:
    """A run's requests as outputs on `topic`, made as they are published."""
    return OutgoingStream(n, {topic}, lambda: (Outgoing(topic, r, key=r.question_id, message_id=r.id)
                                                for r in make()))


def _outstanding(store: Store, team: str) -> int:
    """The team's requests published and not yet answered (a result stored, failed ones included)."""
    total = 0
    for row in store.select(schema.runs, team=team):
        if row["refused"]:
            continue
        sent = row["planned"] if row.get("published") is None else row["published"]
        if sent:
            total += max(0, sent - store.count(schema.results, run_id=row["id"]))
    return total


def _window(ctx: HandlerContext) -> int:
    return int(getattr(getattr(ctx.settings, "api", None), "team_window", 0) or 0)


def top_up(store: Store, window: int) -> Sequence[Outgoing]:
    """Publish held-back requests: each team with runs waiting gets up to `window` minus its outstanding
    requests, from its oldest run on; round-robin by team."""
    waiting = [r for r in store.select(schema.runs) if r.get("published") is not None
               and r["published"] < r["planned"] and r.get("cancelled_at") is None and not r["refused"]]
    planned: list[tuple[str, list[Outgoing]]] = []
    for team in sorted({r["team"] for r in waiting}):
        budget = window - _outstanding(store, team)
        outs: list[Outgoing] = []
        for row in sorted((r for r in waiting if r["team"] == team), key=lambda r: (r["created_at"], r["id"])):
            if budget <= 0:
                break
            run = run_pb2.Run.FromString(row["payload"])
            start = int(row["published"])
            _, make = _plan(run, store, None)
            more = list(islice(make(), start, start + budget))
            topic = requests_topic(run.model.pool)
            outs += [Outgoing(topic, r, key=r.question_id, message_id=r.id) for r in more]
            budget -= len(more)
            sent = start + len(more)
            store.update(schema.runs, row["id"], published=None if sent >= row["planned"] else sent)
        planned.append((team, outs))
    return round_robin_by_team(planned)


class PlannerHandler:
    service = "api"
    topics = [topic_names.RUNS]
    top_up_every_s = 1.0  # with api.team_window: how often a quiet planner looks for room to publish more

    def __init__(self) -> None:
        self._last_top_up = 0.0

    def on_idle(self, ctx: HandlerContext) -> Sequence[Outgoing]:
        window = _window(ctx)
        if not window or time.monotonic() - self._last_top_up < self.top_up_every_s:
            return []
        self._last_top_up = time.monotonic()
        return top_up(ctx.store, window)

    def handle_batch(self, messages: Sequence[Message], ctx: HandlerContext) -> Sequence[Outgoing]:
        """Each run planned as by `handle`; their requests published round-robin by team (fair sharing)."""
        planned: list[tuple[str, Sequence[Outgoing]]] = []
        for m in messages:
            outs = self.handle(m, ctx)
            planned.append((m.team if isinstance(m, run_pb2.Run) else "", outs))
        return round_robin_by_team(planned)

    def handle(self, message: Message, ctx: HandlerContext) -> Sequence[Outgoing]:
        if not isinstance(message, run_pb2.Run):
            raise PoisonMessage(f"planner got {message.DESCRIPTOR.full_name}")
        existing = ctx.store.get(schema.runs, message.id)
        if existing is not None and existing.get("cancelled_at") is not None:
            log.info("run %s is cancelled: not planned", message.id)  # a redelivery or replay after the cancel
            return []
        reason = not_live_reason(ctx.store, message.release)
        if reason is not None:
            refuse(message, ctx.store, reason)
            return []
        topic = requests_topic(message.model.pool)  # the pool that serves this model
        exists = ctx.topic_exists
        if exists is not None and not exists(topic):
            raise PoisonMessage(f"its output topic {topic} does not exist on the bus (no inference workers serve "
                                f"pool {message.model.pool!r})")
        api = getattr(ctx.settings, "api", None)
        n, make = _plan(message, ctx.store, getattr(api, "max_run_requests", ApiSettings().max_run_requests))
        window = _window(ctx)
        send = n
        if window and existing is None:  # hold back what is over the team's window (top_up sends it later)
            room = max(0, window - _outstanding(ctx.store, message.team))
            ctx.store.upsert(schema.runs, [run_row(message, n) | {"published": room if room < n else None}])
            send = min(room, n)
        elif window and existing is not None and existing.get("published") is not None:
            send = min(int(existing["published"]), n)  # a redelivery: what went out already, again
        else:
            ctx.store.upsert(schema.runs, [run_row(message, n)])
        log.info("run %s planned: %d requests for model %s on release %s", message.id, n, message.model.name,
                 message.release)
        # made as the worker publishes them: memory bounded by the producer's buffer, not by the run's size
        return _stream(topic, send, make if send == n else lambda: islice(make(), send))
