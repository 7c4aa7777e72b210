"""The inference handler: requests in, results out. Every answer is cached in the store under
(model, prompt hash, sampling parameters, seed), so a re-run or a resumed run pays for nothing twice.

The service runs it under the in-flight worker (livetab.bus.inflight): `begin` prepares a poll's requests
(store reads batched) and gives one coroutine per request, which runs on the handler's event loop (bounded
by the backend's own limits); `finish` stores what completed (results and cache rows, batched) and returns
the results to publish. `handle_batch` is the same two steps for one batch, waiting for all of it.
Every model call goes through `livetab_inference.calls.call_model` (the service's one way to an endpoint);
a failed call becomes a result with `error` set: it is recorded, judged as an error, and never lost.
A request of a cancelled run (the store's `runs.cancelled_at`, read once per batch) is not asked: its result
is stored with error "cancelled" (so the run's progress counts it as failed) and not published, so it is
never judged and never counts as a wrong answer.

A question's samples may be asked together (`InferenceRequest.call_size` > 1, set by the planner:
`livetab.runs.sample_call`): the requests of one call that the cache does not answer share one model call with n =
call_size and the call's seed, and each takes its own choice of it (`_SharedCall`); the endpoint reads the prompt
once for them. They share one of the in-flight worker's slots too (`Begun`): `inference.max_in_flight` counts model
calls, as the endpoint's own concurrency does. A sample that a later poll takes while its call is in flight joins
it; once the call's answers are stored (one cache row, `CallAnswers`: every choice, under the call's key), a later
sample takes its choice from the cache. Each sample keeps its own result.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import hashlib
import json
import logging
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any, TypeVar

from google.protobuf.message import Message
from livetab import topics as topic_names
from livetab.aioloop import BackgroundLoop, Handoff
from livetab.bus import HandlerContext, Outgoing, PoisonMessage
from livetab.bus.inflight import Begun
from livetab.models.base import GenerateRequest, ModelBackend, SamplingParams
from livetab.netguard import NetPolicy
from livetab.questions import Question
from livetab.reasoning import split_reasoning
from livetab.records import load_question, load_table, result_row
from livetab.run_progress import RunProgress
from livetab.runs import CANCELLED
from livetab.store import schema
from livetab.tables import Table
from livetab.topics import requests_topic
from livetab.v1 import common_pb2, inference_pb2

from livetab_inference.calls import CallOutcome, ModelStats, call_model
from livetab_inference.shots import prompt_options

__all__ = ["InferenceHandler", "cache_key", "call_seed", "prompt_json"]

log = logging.getLogger(__name__)
TOPIC_OUT = topic_names.INFERENCE_RESULTS
T = TypeVar("T")
MAX_CALL_SIZE = 256  # the most samples a request may say its call asks at once (`call_size`)
# What one request's coroutine gives `finish`: the result, and the response-cache row to store (None when
# the answer came from the cache or the call failed; the samples of one call give the same row, stored once).
Answer = tuple[inference_pb2.InferenceResult, dict[str, Any] | None]


_json_str = json.encoder.encode_basestring  # how json.dumps(..., ensure_ascii=False) writes a string


def prompt_json(messages: list[Any]) -> str:
    """`json.dumps([{"role", "content"} of each message], ensure_ascii=False, sort_keys=True)`: written
    directly when every role and content is text (this runs per request), through json.dumps otherwise."""
    if all(type(m.content) is str and type(m.role) is str for m in messages):
        return "[" + ", ".join('{"content": ' + _json_str(m.content) + ', "role": ' + _json_str(m.role) + "}"
                               for m in messages) + "]"
    return json.dumps([{"role": m.role, "content": m.content} for m in messages], ensure_ascii=False,
                      sort_keys=True)


def prompt_sha256(prompt: str, completion: str) -> str:
    """The rendered prompt's hash, as the per-sample logs carry it: SHA-256 (hex) of `prompt_json(messages)`, a
    newline and the completion-mode text ("" in chat mode). Two results with the same hash were asked the same."""
    return hashlib.sha256((prompt + "\n" + completion).encode("utf-8")).hexdigest()


def cache_key(model: common_pb2.ModelSpec, messages: list[Any], sampling: common_pb2.Sampling,
              prompt: str | None = None, *, prompt_digest: str | None = None, call: tuple[int, int] = (0, 0)) -> str:
    """The response cache's key; `prompt`: `prompt_json(messages)` when the caller has it already, or
    `prompt_digest`: its SHA-256 (hex). `call`: the request's (call_size, call_choice); when the sample is one of a
    call of several, the key is the call's: its seed (`sampling.seed` - choice) and "call": [size], the same for
    every sample of the call (its entry holds all their answers, `CallAnswers`), so a sample asked alone and one
    drawn from a call are never taken for each other."""
    if prompt_digest is None:
        prompt = prompt_json(messages) if prompt is None else prompt
        prompt_digest = hashlib.sha256(prompt.encode()).hexdigest()
    return _key_digest(model.backend, model.base_url, model.model or model.name, prompt_digest,
                       round(sampling.temperature, 6), round(sampling.top_p, 6), sampling.max_tokens,
                       call_seed(sampling.seed, call), call[0] if call[0] > 1 else 0)


@functools.lru_cache(maxsize=4096)
def _key_digest(backend: str, base_url: str, model: str, prompt_digest: str, temperature: float, top_p: float,
                max_tokens: int, seed: int, call_size: int) -> str:
    """The key `cache_key` gives for these parts, computed once for the samples of a call, which share it (the
    JSON and its hash were ~6 % of the inference service's time when every sample computed its own)."""
    key: dict[str, Any] = {"backend": backend, "base_url": base_url, "model": model, "prompt": prompt_digest,
                           "sampling": [temperature, top_p, max_tokens, seed]}
    if call_size:
        key["call"] = [call_size]
    return hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()


def call_seed(seed: int, call: tuple[int, int]) -> int:
    """The seed a request's model call is asked with: for a sample of a call of several (`call` = its
    (call_size, call_choice)), the call's (the seed of its choice 0: choice i is drawn at seed + i); else its own."""
    size, choice = call
    return seed - choice if size > 1 else seed


class InferenceHandler:
    service = "inference"
    topics = [topic_names.INFERENCE_REQUESTS]

    def __init__(self, backends: dict[str, ModelBackend] | None = None, *, timeout_s: float = 300.0,
                 pool: str = "", net: NetPolicy | None = None) -> None:
        self.net = net  # where built backends may connect (livetab.netguard); None: anywhere (embedded, tests)
        self.topics = [requests_topic(pool)]
        self._backends: dict[str, ModelBackend] = dict(backends or {})
        self._given = set(self._backends)
        self._loop = BackgroundLoop("inference-loop")
        self.timeout_s = timeout_s
        self.model_answers = 0
        self.cache_hits = 0
        self.completion_tokens = 0  # generated by the calls made here (not by cache hits): tokens/s of a progress bar
        self.stats: dict[str, ModelStats] = {}  # per model name: calls, errors by kind, latency percentiles
        self.progress = RunProgress(self.service)  # answered/failed per run: OTel counters, a log line per batch
        # model calls of several samples not yet stored, by the call's cache key (samples of a later poll join them);
        # used on the worker's thread only (`begin`, `finish`)
        self._calls: dict[str, _SharedCall] = {}
        from livetab_inference.shots import PromptBuilder

        self._prompts = PromptBuilder()  # chat or completion prompts, per the model spec's prompt_mode

    def backend(self, spec: common_pb2.ModelSpec) -> ModelBackend:
        if spec.name in self._backends:  # a backend handed in by name (embedded mode, tests)
            return self._backends[spec.name]
        key = spec.SerializeToString(deterministic=True).hex()  # same name, other endpoint: another backend
        if key not in self._backends:
            from livetab.models.registry import backend_from_spec

            self._backends[key] = backend_from_spec(spec, net=self.net)
        return self._backends[key]

    def close(self) -> None:
        """Close the client sessions of the backends this handler built (not those handed in), on the loop they
        live on; a caller that is done with the handler (embedded `livetab eval`) calls it."""
        for key, backend in list(self._backends.items()):
            close = getattr(backend, "close", None)
            if key not in self._given and close is not None and asyncio.iscoroutinefunction(close):
                self._loop.run(close())
                del self._backends[key]

    def handle(self, message: Message, ctx: HandlerContext) -> list[Outgoing]:
        return self.handle_batch([message], ctx)

    def handle_batch(self, messages: list[Message], ctx: HandlerContext) -> list[Outgoing]:
        """A whole batch at once (the plain worker): begin all, wait for all, finish all."""
        coros = self.begin(messages, ctx)
        answers = self._loop.run(_gather(coros))
        return [o for outs in self.finish(answers, ctx) for o in outs]

    def submit(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        """Run one request's coroutine on this handler's loop, where its backends' clients live."""
        return self._loop.submit(coro)

    def submit_many(self, coros: list[Coroutine[Any, Any, T]]) -> list[Handoff[T]]:
        """Run a poll's coroutines on this handler's loop, started together (one wake-up of its thread)."""
        return self._loop.submit_many(coros)

    def begin(self, messages: list[Message], ctx: HandlerContext) -> Begun:
        """One coroutine per request, the samples of one model call sharing a slot (`Begun`) and, taken by one poll,
        one task (`serial`: each waits on the call, which the first asks). The store is read
        once per kind for all of them: their questions, their tables (each parsed once, however many requests share
        it) and the cached answers."""
        reqs: list[inference_pb2.InferenceRequest] = []
        for m in messages:
            if not isinstance(m, inference_pb2.InferenceRequest):
                raise PoisonMessage(f"inference got {m.DESCRIPTOR.full_name}")
            reqs.append(m)
        runs = ctx.store.get_many(schema.runs, {r.run_id for r in reqs})
        cancelled = {k for k, row in runs.items() if row.get("cancelled_at") is not None}
        live = [r for r in reqs if r.run_id not in cancelled]
        questions = {k: load_question(row) for k, row in
                     ctx.store.get_many(schema.questions, [r.question_id for r in live]).items()}
        tables = {k: load_table(row) for k, row in
                  ctx.store.get_many(schema.tables, [q.table_id for q in questions.values() if q]).items()}
        for model in {r.model.SerializeToString(deterministic=True): r.model for r in live}.values():
            self.backend(model)  # built here, off the loop: its imports never hold up the requests in flight
        built: dict[tuple[Any, ...], _Built] = {}  # the samples of a question share one prompt
        prepared = [self._prepare(r, questions, tables, ctx.store, r.run_id in cancelled, built) for r in reqs]
        cached = ctx.store.get_many(schema.response_cache, [key for _, _, key in prepared if key])
        hits = _cache_hits(reqs, prepared, cached)
        contexts = [(q, tables.get(q.table_id) if q else None) for q in (questions.get(r.question_id) for r in reqs)]
        calls = self._calls
        shared: list[_SharedCall | None] = []
        for r, (_, prompt, key), hit, context in zip(reqs, prepared, hits, contexts, strict=True):
            if prompt is None or hit is not None or r.call_size < 2:
                shared.append(None)
                continue
            call = calls.get(key)
            if call is None:
                call = calls[key] = _SharedCall(self._call, r.model, self._generate_request(r, prompt, context), key)
            shared.append(call)
        return Begun([self._one(r, p, hit, q, t, call)
                      for r, p, hit, (q, t), call in zip(reqs, prepared, hits, contexts, shared, strict=True)],
                     [call.key if call is not None else None for call in shared], serial=True)

    @staticmethod
    def _generate_request(req: inference_pb2.InferenceRequest, prompt: Any,
                          context: tuple[Question | None, Table | None]) -> GenerateRequest:
        """What the model is asked for `req`: its call's `n` samples from the call's seed (one sample, its own
        seed, for a call of its own)."""
        s = req.sampling
        n = req.call_size if req.call_size > 1 else 1
        # question and table are in-process context (the scripted oracle reads them); no remote backend sends them
        return GenerateRequest(prompt.messages, SamplingParams(
            temperature=s.temperature, top_p=s.top_p or 1.0, max_tokens=s.max_tokens or 64,
            seed=call_seed(s.seed, (req.call_size, req.call_choice)), n=n),
            prompt=prompt.completion, stop=prompt.stop, question=context[0], table=context[1])

    async def _call(self, model: common_pb2.ModelSpec, request: GenerateRequest) -> CallOutcome:
        """One call to the model's endpoint, counted in its `ModelStats`."""
        stats = self.stats.get(model.name)
        if stats is None:
            stats = self.stats[model.name] = ModelStats()
        return await call_model(self.backend(model), request, model=model.name, timeout_s=self.timeout_s,
                                stats=stats)

    def finish(self, answers: list[Answer], ctx: HandlerContext) -> list[list[Outgoing]]:
        """Store the answers and their cache rows in one transaction (so a stored result always has its
        cached answer; a call's samples bring its one row); the result to publish for each."""
        cache_rows = list({id(row): row for _, row in answers if row is not None}.values())
        results = [r for r, _ in answers]
        ctx.store.upsert_all([(schema.response_cache, cache_rows),
                              (schema.results, [result_row(r) for r in results if r.error != CANCELLED])])
        # a cancelled request answered before (a redelivery) keeps its answer
        ctx.store.insert_new(schema.results, [result_row(r) for r in results if r.error == CANCELLED])
        # a call whose answers are stored is answered from the cache from here on; one that failed is asked again
        for row in cache_rows:
            self._calls.pop(row["key"], None)
        for key in [k for k, call in self._calls.items() if call.failed]:
            del self._calls[key]
        self.progress.answered((r.run_id, r.error) for r in results)
        return [[Outgoing(TOPIC_OUT, r, key=r.question_id, message_id=r.id)] if r.error != CANCELLED else []
                for r in results]

    def _prepare(self, req: inference_pb2.InferenceRequest, questions: dict[str, Question | None],
                 tables: dict[str, Table | None], store: Any, cancelled: bool,
                 built: dict[tuple[Any, ...], _Built]) -> tuple[inference_pb2.InferenceResult, Any, str]:
        """The result shell, the prompt and its cache key; no prompt (and the error set) when one cannot be
        built or the request's run is cancelled. `built`: prompts already built for this poll, by what a prompt
        depends on (the question, the model's prompt mode and shots, format, setting, row cap), so a question's
        samples, which differ only in their seed, build and hash theirs once."""
        res = inference_pb2.InferenceResult(
            id=req.id, run_id=req.run_id, question_id=req.question_id, model=req.model.name, format=req.format,
            setting=req.setting, sample_index=req.sample_index, seed=req.sampling.seed,
        )
        if cancelled:
            res.error = CANCELLED
            return res, None, ""
        if req.call_size > 1 and not (req.call_size <= MAX_CALL_SIZE and 0 <= req.call_choice < req.call_size):
            res.error = (f"request: choice {req.call_choice} of a call of {req.call_size} samples (a choice from 0 "
                         f"below the call's size, at most {MAX_CALL_SIZE})")
            return res, None, ""
        question = questions.get(req.question_id)
        if question is None:
            res.error = f"question {req.question_id} is not in the store"
            return res, None, ""
        table = tables.get(question.table_id)
        if table is None and req.setting != "closed_book":
            res.error = f"table {question.table_id} is not in the store"
            return res, None, ""
        try:
            options = prompt_options(req.model)
            key = (req.question_id, options, req.format, req.setting, req.max_rows)
            one = built.get(key)
            if one is None:
                prompt = self._prompts.build(question, table, model=req.model, fmt=req.format, setting=req.setting,
                                             max_rows=req.max_rows or 40, store=store)
                text = prompt_json(prompt.messages)
                one = built[key] = _Built(prompt, prompt_sha256(text, prompt.completion),
                                          hashlib.sha256(text.encode()).hexdigest())
        except Exception as e:
            res.error = f"prompt: {type(e).__name__}: {e}"
            return res, None, ""
        prompt = one.prompt
        res.prompt_version = prompt.version
        res.truncated_rows = prompt.truncated
        res.prompt_sha256 = one.sha256
        return res, prompt, cache_key(req.model, prompt.messages, req.sampling, prompt_digest=one.messages_sha256,
                                      call=(req.call_size, req.call_choice))

    async def _one(self, req: inference_pb2.InferenceRequest, prepared: tuple[inference_pb2.InferenceResult, Any, str],
                   hit: inference_pb2.InferenceResult | None, question: Question | None, table: Table | None,
                   shared: _SharedCall | None = None) -> Answer:
        res, prompt, key = prepared
        if prompt is None:
            return res, None
        if hit is not None:
            _answered(res, hit)
            res.cached = True
            self.cache_hits += 1
            return res, None
        if shared is not None:
            answers = await shared.answers()
            if shared.error:
                res.error = shared.error
                return res, None
            if req.call_choice >= len(answers):
                res.error = (f"model error: {req.model.name} gave {len(answers)} of the {req.call_size} samples "
                             f"asked in one call, not choice {req.call_choice}")
                return res, None
            _answered(res, answers[req.call_choice])
            self.model_answers += 1
            self.completion_tokens += res.completion_tokens
            return res, shared.cache_row(req.model.name)
        outcome = await self._call(req.model, self._generate_request(req, prompt, (question, table)))
        if not outcome.ok:
            res.error = outcome.error
            return res, None
        self.model_answers += 1
        _answered(res, _choice(outcome.completions[0], outcome))
        self.completion_tokens += res.completion_tokens
        return res, {"key": key, "model": req.model.name, "payload": res.SerializeToString()}


def _choice(c: Any, outcome: CallOutcome) -> inference_pb2.InferenceResult:
    """One completion as the fields of a result it fills (`_answered`): answer, reasoning, tokens, latency."""
    answer, reasoning = split_reasoning(c.text, c.reasoning)
    return inference_pb2.InferenceResult(response=answer, reasoning=reasoning, prompt_tokens=c.prompt_tokens,
                                         completion_tokens=c.completion_tokens,
                                         latency_ms=c.latency_ms or outcome.latency_ms)


def _answered(res: inference_pb2.InferenceResult, answer: inference_pb2.InferenceResult) -> None:
    res.response, res.reasoning = answer.response, answer.reasoning
    res.prompt_tokens, res.completion_tokens, res.latency_ms = answer.prompt_tokens, answer.completion_tokens, \
        answer.latency_ms


def _cache_hits(reqs: list[inference_pb2.InferenceRequest],
                prepared: list[tuple[inference_pb2.InferenceResult, Any, str]],
                rows: dict[str, dict[str, Any]]) -> list[inference_pb2.InferenceResult | None]:
    """Per request its cached answer, if any: a sample asked alone reads its row's result; a sample of a call
    its choice of the call's row (each row parsed once; a row without that choice is no answer for it)."""
    calls: dict[str, Any] = {}
    out: list[inference_pb2.InferenceResult | None] = []
    for req, (_, _, key) in zip(reqs, prepared, strict=True):
        row = rows.get(key) if key else None
        if row is None:
            out.append(None)
        elif req.call_size > 1:
            choices = calls.get(key)
            if choices is None:
                choices = calls[key] = inference_pb2.CallAnswers.FromString(row["payload"]).choices
            out.append(choices[req.call_choice] if req.call_choice < len(choices) else None)
        else:
            out.append(inference_pb2.InferenceResult.FromString(row["payload"]))
    return out


class _SharedCall:
    """One model call for the samples of a poll that it answers (`InferenceRequest.call_size` > 1): started by the
    first of them to run, awaited by each (one whose coroutine is cancelled leaves it running for the others); its
    answers, or the error that ended it, and the one cache row that holds them all (`CallAnswers`)."""

    __slots__ = ("_answers", "_call", "_model", "_request", "_row", "_task", "_waiters", "error", "key")

    def __init__(self, call: Callable[[common_pb2.ModelSpec, GenerateRequest], Coroutine[Any, Any, CallOutcome]],
                 model: common_pb2.ModelSpec, request: GenerateRequest, key: str) -> None:
        self._call, self._model, self._request, self.key = call, model, request, key
        self._task: asyncio.Future[None] | None = None
        self._waiters: list[asyncio.Future[None]] = []
        self.error = ""
        self._answers: list[inference_pb2.InferenceResult] = []
        self._row: dict[str, Any] | None = None

    @property
    def failed(self) -> bool:
        """Asked, and it ended in an error."""
        return self._task is not None and self._task.done() and bool(self.error)

    async def answers(self) -> list[inference_pb2.InferenceResult]:
        """The call's answers, asking it if no sample has yet. Each sample waits on a future of its own that the
        call's end resolves, so a sample whose coroutine is cancelled cancels only that future, never the call
        (what `asyncio.shield` does, at a third of its cost for the sixteen samples of a call)."""
        task = self._task
        if task is None:
            task = self._task = asyncio.ensure_future(self._ask())
            task.add_done_callback(self._settle)
        if not task.done():
            waiter = asyncio.get_running_loop().create_future()
            self._waiters.append(waiter)
            await waiter
        task.result()  # the call's own exception, or CancelledError if it was cancelled
        return self._answers

    def _settle(self, task: asyncio.Future[None]) -> None:
        waiters, self._waiters = self._waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)

    async def _ask(self) -> None:
        outcome = await self._call(self._model, self._request)
        if outcome.ok:
            self._answers = [_choice(c, outcome) for c in outcome.completions]
        else:
            self.error = outcome.error

    def cache_row(self, model: str) -> dict[str, Any] | None:
        """The call's cache row, the same object for each of its samples (`finish` stores it once)."""
        if self._row is None and self._answers:
            self._row = {"key": self.key, "model": model,
                         "payload": inference_pb2.CallAnswers(choices=self._answers).SerializeToString()}
        return self._row


@dataclass(frozen=True)
class _Built:
    """A prompt built once for a poll's requests that share it: the prompt, its logged hash
    (`prompt_sha256`) and the hash of its messages' JSON (the response cache key's part)."""

    prompt: Any
    sha256: str
    messages_sha256: str


async def _gather(coros: list[Coroutine[Any, Any, T]]) -> list[T]:
    return list(await asyncio.gather(*coros))
