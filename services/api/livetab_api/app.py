"""The HTTP API (FastAPI): submit runs and scrapes, follow a run's progress, read its leaderboard.

What can be known at the door is checked there, so nothing accepted with 202 fails later for it: the
body's size (413), unknown keys, NUL bytes and bounds (422, quoting at most a short excerpt of what was
sent), a model pool whose request topic does not exist, a release that is not live (409, with the
reason: runs are planned only against a live release's frozen questions), a run that would plan more
requests than `api.max_run_requests`. The limits live in `livetab.settings`.

Releases: GET /releases and /releases/{name} show each one's status, manifest hash, frozen question count
and history; POST /releases/{name}/freeze|publish|retire sends the command to the release handler.

Who may do what (livetab_api.auth, a Bearer token on every route but /healthz and /readyz):
- GET /me, /releases, /releases/{name}: any valid token with the `read` scope (counts only: no question
  text, no gold answer is served by any route).
- POST /runs: `submit` (a team-admin or member); the run's team is the token's, never the body's. Quotas per
  team: runs per day and concurrent runs (429), requests per run (403).
- GET /runs, /runs/{id}: `read`; a team sees only its own runs (another team's is 404, as if absent);
  admins see all.
- POST /runs/{id}/cancel: `submit`, own team's run only (another team's is 404, as GET); admins any run.
  Idempotent: the first cancel's time stays. The run's status is then "cancelled" and it counts as complete
  (nothing more is planned, inferred or judged for it; its leaderboard is over what was judged before).
- POST /scrapes, POST /releases/{name}/{action}, GET /dead-letters: admins (`admin` scope) only: they decide
  what goes into a release, and a dead letter's error may quote a question.
Every non-GET request, allowed or not, is written to the audit log.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, MutableMapping, Sequence
from typing import Any

from fastapi import Depends, FastAPI, HTTPException, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from livetab import topics as topic_names
from livetab.bus import Bus, Outgoing
from livetab.ids import content_id
from livetab.models.spec import model_spec
from livetab.releases import ReleaseRecord, frozen_question_counts, get_release, list_releases, not_live_reason
from livetab.runs import build_run
from livetab.runtime.health import add_health_routes
from livetab.settings import (
    MAX_NAME_CHARS,
    MAX_PARAM_CHARS,
    MAX_PARAMS,
    MAX_URL_CHARS,
    ApiSettings,
    GuardSettings,
    ModelSettings,
    RunKnobs,
    SourceKind,
    StrictModel,
)
from livetab.store import Store, schema
from livetab.topics import requests_topic
from livetab.v1 import run_pb2, table_pb2
from pydantic import Field, field_validator
from starlette.concurrency import run_in_threadpool

from livetab_api import guard as door
from livetab_api import submissions
from livetab_api.auth import Authenticator, require
from livetab_api.progress import RunningCount, run_progress
from livetab_api.releases import ACTIONS, release_command
from livetab_api.teams import Principal, accepted_runs, audit
from livetab_api.watch import RunWatch, etag_of, status_json

__all__ = ["BodyLimit", "RunRequest", "ScrapeRequest", "create_app", "run_progress"]

log = logging.getLogger(__name__)

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


class RunRequest(StrictModel):
    # With auth on the run's team is the token's: a body naming another team is refused (403).
    team: str = Field(default="", max_length=MAX_NAME_CHARS)
    release: str = Field(min_length=1, max_length=MAX_NAME_CHARS)
    model: ModelSettings
    settings: RunKnobs = Field(default_factory=RunKnobs)
    # The team's active submission of this model: it is run again on every release that goes live from now on
    # (livetab_api.submissions) until its latest run is cancelled.
    rerun: bool = False


class ScrapeRequest(StrictModel):
    source: SourceKind
    # The name of a location an admin allowed (guard.scrape_locations), never a path; "" only for a kind
    # that reads no location (wikipedia).
    location: str = Field(default="", max_length=MAX_URL_CHARS)
    release: str = Field(min_length=1, max_length=MAX_NAME_CHARS)
    language: str = Field(default="en", pattern=r"^[a-z]{2,3}(-[a-z0-9]+)*$", max_length=16)
    options: dict[str, str] = Field(default_factory=dict, max_length=MAX_PARAMS)

    @field_validator("options")
    @classmethod
    def _options(cls, value: dict[str, str]) -> dict[str, str]:
        for k, v in value.items():
            if len(k) > MAX_NAME_CHARS or len(v) > MAX_PARAM_CHARS:
                raise ValueError(f"option {k[:40]!r}: names are at most {MAX_NAME_CHARS} characters, values "
                                 f"{MAX_PARAM_CHARS}")
        return value


class BodyLimit:
    """Refuse a request body over `limit` bytes with 413: by its Content-Length at once, and while it is
    read when it comes chunked, so a 20 MB body is never held in memory or echoed back."""

    def __init__(self, app: Callable[[Scope, Receive, Send], Awaitable[None]], limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.limit:
            await self._refuse(send)
            return
        seen = 0
        over = False

        async def counted() -> Message:
            nonlocal seen, over
            if over:
                return {"type": "http.request", "body": b"", "more_body": False}
            msg = await receive()
            if msg["type"] == "http.request":
                seen += len(msg.get("body", b""))
                if seen > self.limit:  # stop reading; the app sees a cut body and its answer is replaced
                    over = True
                    return {"type": "http.request", "body": b"", "more_body": False}
            return msg

        async def replaced(msg: Message) -> None:
            if not over:
                await send(msg)
            elif msg["type"] == "http.response.start":
                await self._refuse(send)

        await self.app(scope, counted, replaced)

    async def _refuse(self, send: Send) -> None:
        body = f'{{"detail":"request body over {self.limit} bytes (api.max_body_bytes)"}}'.encode()
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})


def _excerpt(value: Any, n: int) -> str:
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= n else text[:n] + f"… ({len(text)} characters)"


def run_from_request(req: RunRequest, team: str = "") -> run_pb2.Run:
    return build_run(team or req.team or "local", req.release, model_spec(req.model), **req.settings.model_dump())


def create_app(bus: Bus, store: Store, settings: ApiSettings | None = None, workers: Sequence[Any] = (),
               guard: GuardSettings | None = None, watch: RunWatch | None = None) -> FastAPI:
    """`workers`: the service's worker loops (objects with `alive`, `failure`, `group`) that /readyz reports;
    `guard`: endpoint, secret and scrape-location safety (livetab_api.guard); `watch`: what wakes the long polls of
    a run's status (livetab_api.watch; without one, a long poll re-reads the run every second)."""
    limits = settings or ApiSettings()
    watch = watch or RunWatch()
    safety = guard or GuardSettings()
    app = FastAPI(title="livetab", version="0.1.0", responses=door.ERROR_RESPONSES)
    app.add_middleware(BodyLimit, limit=limits.max_body_bytes)
    auth = Authenticator(store, limits)
    running = RunningCount(store)  # the door's count of a team's runs still running (api.concurrent_runs)
    reader = Depends(require(auth, "read"))
    submitter = Depends(require(auth, "submit"))
    admin = Depends(require(auth, "admin", admin=True))

    @app.middleware("http")
    async def audited(request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        """Every write (any method but GET/HEAD/OPTIONS), allowed or refused, goes to the audit log."""
        if request.method in ("GET", "HEAD", "OPTIONS"):
            return await call_next(request)
        status = 500
        try:
            response = await call_next(request)
            status = response.status_code
            return response
        finally:
            who: Principal | None = getattr(request.state, "principal", None)
            try:
                audit(store, actor=who.member if who else "anonymous", token_id=who.token_id if who else "",
                      team=who.team if who else "", action=f"{request.method} {request.url.path}"[:200],
                      target=str(getattr(request.state, "audit_target", "")), status=status)
            except Exception as e:  # the answer stands; the operator sees the failure in the log
                log.error("audit log write failed: %s: %s", type(e).__name__, e)

    @app.exception_handler(RequestValidationError)
    async def invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        n = limits.error_excerpt_chars
        errors = [{"loc": [str(x) for x in e.get("loc", ())][:8], "msg": _excerpt(e.get("msg", ""), 2 * n),
                   "type": e.get("type", "")} for e in exc.errors()[:10]]
        return JSONResponse({"detail": errors}, status_code=422)

    add_health_routes(app, workers, store)  # /healthz, /readyz: the runtime's, as every service serves them

    def _team_runs(team: str) -> list[dict[str, Any]]:
        return [r for r in store.select(schema.runs, team=team)]

    def _check_quota(team: str, requests: int, max_tokens: int) -> None:
        """The team's quotas (api.runs_per_day, concurrent_runs, team_run_requests, team_run_tokens), counted
        from the audit log's accepted submissions, so runs not planned yet count too."""
        if requests > limits.team_run_requests:
            raise HTTPException(403, f"the run would plan {requests} requests, over this team's quota of "
                                     f"{limits.team_run_requests} per run (api.team_run_requests)")
        if requests * max_tokens > limits.team_run_tokens:
            raise HTTPException(403, f"the run may generate {requests} x {max_tokens} = {requests * max_tokens} "
                                     f"tokens, over this team's quota of {limits.team_run_tokens} per run "
                                     "(api.team_run_tokens): lower settings.max_tokens, samples or limit")
        accepted = accepted_runs(store, team, since=time.time() - 86400)
        if len(accepted) >= limits.runs_per_day:
            raise HTTPException(429, f"team quota: {limits.runs_per_day} runs a day (api.runs_per_day) already "
                                     "submitted; try again tomorrow", headers={"Retry-After": "3600"})
        if running(team, accepted) >= limits.concurrent_runs:
            raise HTTPException(429, f"team quota: {limits.concurrent_runs} runs at once (api.concurrent_runs) "
                                     "are still running; wait for one to finish", headers={"Retry-After": "60"})

    def _check_run(req: RunRequest, team: str) -> None:
        topic = requests_topic(req.model.pool)
        if not bus.topic_exists(topic):
            raise HTTPException(422, f"model pool {req.model.pool!r} has no request topic ({topic}): no inference "
                                     "workers serve it")
        refused = not_live_reason(store, req.release)
        if refused is not None:  # the planner would refuse it: say so now, publish nothing
            raise HTTPException(409, _excerpt(refused, 4 * limits.error_excerpt_chars))
        knobs = req.settings
        families = set(knobs.families)
        counts = frozen_question_counts(store, req.release, status="verified")  # by family
        questions = sum(n for f, n in counts.items() if not families or f in families)
        if questions == 0:
            raise HTTPException(422, f"release {_excerpt(req.release, limits.error_excerpt_chars)!r} has no "
                                     "verified questions" + (" of those families" if families and counts else ""))
        if knobs.limit:
            questions = min(questions, knobs.limit)
        requests = questions * len(knobs.formats) * len(knobs.settings) * knobs.samples
        if requests > limits.max_run_requests:
            raise HTTPException(422, f"the run would plan {requests} requests, over api.max_run_requests "
                                     f"({limits.max_run_requests})")
        if auth.enabled:
            _check_quota(team, requests, knobs.max_tokens)

    def _send(out: Outgoing) -> None:
        """Publish and wait for the broker's acknowledgement; a bus that cannot take it now is 503, not 500."""
        try:
            bus.publish(out)
            bus.flush()
        except Exception as e:
            log.warning("could not publish to %s: %s: %s", out.topic, type(e).__name__, e)
            raise HTTPException(503, f"the message bus did not take it ({type(e).__name__}); try again") from None

    @app.get("/me")
    def me(who: Principal = reader) -> dict[str, Any]:
        """The caller as its token says: member, team, role, scopes."""
        return {"member": who.member, "team": who.team, "role": who.role, "token_id": who.token_id,
                "scopes": sorted(who.scopes)}

    @app.post("/runs", status_code=202)
    def submit_run(req: RunRequest, request: Request, who: Principal = submitter) -> dict[str, Any]:
        if auth.enabled:
            if not who.team:
                raise HTTPException(403, "this token's member belongs to no team; runs are a team's")
            if req.team and req.team != who.team:
                raise HTTPException(403, "a run's team is the token's; leave `team` out of the body")
        team = who.team if auth.enabled else req.team
        try:
            req = req.model_copy(update={"model": door.check_model(safety, team, req.model)})
        except door.Refused as e:
            raise HTTPException(422, str(e)) from None
        _check_run(req, team)
        if limits.probe_endpoints and req.model.backend in ("openai", "grpc") and req.model.base_url:
            try:
                door.probe_model(safety, req.model, limits.probe_timeout_s)
            except door.Refused as e:
                raise HTTPException(422, str(e)) from None
        run = run_from_request(req, team)
        request.state.audit_target = run.id
        _send(Outgoing(topic_names.RUNS, run, key=run.id, message_id=run.id))
        if req.rerun:
            submissions.record(store, run)
        return {"run_id": run.id, "team": run.team, "release": run.release, "model": run.model.name,
                "rerun": req.rerun}

    @app.get("/runs")
    def runs(who: Principal = reader) -> dict[str, Any]:
        """The caller's team's runs (an admin: every team's), newest first."""
        rows = store.select(schema.runs) if who.is_admin else _team_runs(who.team)
        keep = ("id", "team", "model", "release", "planned", "refused")
        return {"runs": [{k: r[k] for k in keep} | {"at": str(r["created_at"])}
                         for r in sorted(rows, key=lambda r: (r["created_at"], r["id"]), reverse=True)]}

    @app.post("/scrapes", status_code=202)
    def submit_scrape(req: ScrapeRequest, _: Principal = admin) -> dict[str, Any]:
        try:
            req = req.model_copy(update={"location": door.scrape_location(safety, req.source, req.location,
                                                                                  req.options)})
        except door.Refused as e:
            raise HTTPException(422, str(e)) from None
        cmd = table_pb2.ScrapeCommand(id=content_id("scrape", req.source, req.location, req.release, req.language),
                                      source=req.source, location=req.location, release=req.release,
                                      language=req.language, options=req.options)
        _send(Outgoing(topic_names.SCRAPES, cmd, key=cmd.id, message_id=cmd.id))
        return {"scrape_id": cmd.id}

    def _path(value: str) -> None:
        if "\x00" in value or len(value) > 200:
            raise HTTPException(404, "no such name (NUL byte or over 200 characters)")

    def _release_doc(r: ReleaseRecord) -> dict[str, Any]:
        return {"release": r.name, "status": r.status_name, "manifest_hash": r.manifest_hash,
                "frozen_questions": r.questions, "history": r.history}

    @app.get("/releases")
    def releases(_: Principal = reader) -> dict[str, Any]:
        rows = [_release_doc(r) for r in list_releases(store)]
        for row in rows:
            del row["history"]
        return {"releases": rows}

    @app.get("/releases/{release}")
    def release(release: str, _: Principal = reader) -> dict[str, Any]:
        """Its lifecycle (status, manifest hash, frozen question count, history) and what the store holds of
        it (`questions`: every stored question, verified or not; `tables`)."""
        _path(release)
        record = get_release(store, release)
        stored = {"tables": store.count(schema.tables, release=release),
                  "questions": store.count(schema.questions, release=release)}
        if record is None:
            if not any(stored.values()):
                raise HTTPException(404, f"no release {_excerpt(release, limits.error_excerpt_chars)!r}")
            # questions stored before the release handler saw them: a draft it has not recorded yet
            return {"release": release, "status": "draft", "manifest_hash": "", "frozen_questions": 0,
                    "history": [], **stored}
        return _release_doc(record) | stored

    @app.post("/releases/{release}/{action}", status_code=202)
    def move_release(release: str, action: str, who: Principal = admin) -> dict[str, Any]:
        """Send a ReleaseCommand; the release handler applies it (GET /releases/{name} shows the outcome)."""
        _path(release)
        if action not in ACTIONS:
            raise HTTPException(404, f"no release action {_excerpt(action, 40)!r}; one of {', '.join(ACTIONS)}")
        cmd = release_command(release, action, by=f"api:{who.member}" if auth.enabled else "api")
        _send(Outgoing(topic_names.RELEASE_COMMANDS, cmd, key=cmd.release, message_id=cmd.id))
        return {"command_id": cmd.id, "release": release, "action": action}

    @app.get("/dead-letters")
    def dead_letters(service: str = "", run_id: str = "", limit: int = 100, _: Principal = admin) -> dict[str, Any]:
        """Stored dead letters, newest first (a scrape's have no run): where each came from and why."""
        _path(service)
        _path(run_id)
        where = {k: v for k, v in (("service", service), ("run_id", run_id)) if v}
        rows = sorted(store.select(schema.dead_letters, **where), key=lambda r: (r["created_at"], r["id"]),
                      reverse=True)
        keep = ("id", "source_topic", "partition", "offset", "service", "consumer_group", "run_id", "error")
        return {"count": len(rows), "dead_letters": [{k: r[k] for k in keep} | {"at": str(r["created_at"])}
                                                     for r in rows[:max(0, min(limit, 1000))]]}

    def status_of(rid: str, who: Principal) -> dict[str, Any]:
        with store.reading():  # one connection for its eight reads
            row = store.get(schema.runs, rid)
            mine = who.is_admin or (row is not None and row["team"] == who.team)
            progress = run_progress(store, rid, row) if mine else None  # another team's run: as if it were not
        if progress is None:
            raise HTTPException(404, f"run {_excerpt(rid, limits.error_excerpt_chars)} is not planned (yet)")
        return progress

    @app.get("/runs/{rid}", responses={
        200: {"description": "The run's progress (its ETag in the `ETag` header)"},
        304: {"description": "Not modified: the status is still the one `If-None-Match` names (after waiting up to "
                             "`wait_s` seconds for it to change)"}})
    async def run_status(rid: str, request: Request, wait_s: float = 0.0, who: Principal = reader) -> Response:
        """The run's progress, with its ETag. With `If-None-Match` naming the ETag the caller has: 304 while the
        status is still that one; with `wait_s` too, a long poll: it answers once the status differs (woken by the
        run's leaderboard updates, livetab_api.watch), or 304 after `wait_s` seconds (at most `api.max_wait_s`)."""
        _path(rid)
        if not 0 <= wait_s <= limits.max_wait_s:
            raise HTTPException(422, f"wait_s must be within 0-{limits.max_wait_s:g} seconds")
        have = {t.strip().removeprefix("W/") for t in request.headers.get("if-none-match", "").split(",") if t.strip()}
        loop = asyncio.get_running_loop()
        deadline = loop.time() + wait_s
        while True:
            woken = watch.waiter(rid) if have and wait_s else None
            try:
                body = status_json(await run_in_threadpool(status_of, rid, who))
                tag = etag_of(body)
                if tag not in have:
                    return Response(body, media_type="application/json", headers={"ETag": tag})
                left = deadline - loop.time()
                if left <= 0 or woken is None:
                    return Response(status_code=304, headers={"ETag": tag})
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(woken, min(left, watch.recheck_s))
            finally:
                if woken is not None:
                    watch.forget(rid, woken)

    @app.post("/runs/{rid}/cancel")
    def cancel_run(rid: str, request: Request, who: Principal = submitter) -> dict[str, Any]:
        """Cancel a run of the caller's team (an admin: any run): the planner plans it no more, the inference
        service records its outstanding requests as failed ("cancelled"). Cancelling it again changes nothing."""
        _path(rid)
        request.state.audit_target = rid
        row = store.get(schema.runs, rid)
        if row is None or not (who.is_admin or not auth.enabled or row["team"] == who.team):
            raise HTTPException(404, f"run {_excerpt(rid, limits.error_excerpt_chars)} is not planned (yet)")
        if row.get("cancelled_at") is None:
            store.update(schema.runs, rid, cancelled_at=time.time())
        submissions.stop_for_run(store, rid)  # a submission whose latest run this is re-runs no more
        progress = run_progress(store, rid)
        assert progress is not None
        return progress

    return app
