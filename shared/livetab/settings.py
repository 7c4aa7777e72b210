"""Typed settings: a YAML file plus `LIVETAB_...` environment overrides, validated at start-up.

Every threshold and knob lives here, so services, tests and the chart read one definition.
A bad setting stops the process with a message that names it (see `load_settings`).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

__all__ = ["ConfigError", "Settings", "SourceKind", "StrictModel", "load_settings"]

# Bounds on what one run or model may ask for: the api refuses more at its door (422), config files too.
MAX_SAMPLES = 64  # samples per question
MAX_TOKENS = 32768  # answer tokens
MAX_CONTEXT = 1048576  # n_ctx of a local model
MAX_THREADS = 256  # n_threads of a local model
MAX_TIMEOUT_S = 3600.0
MAX_FORMATS = 8  # formats (or settings, or families) in one run
MAX_TABLE_ROWS = 10000  # rows of a table rendered into a prompt
MAX_NAME_CHARS = 64  # team, release, pool: the store's key columns are 64 characters
MAX_MODEL_NAME_CHARS = 128
MAX_URL_CHARS = 2048
MAX_PARAMS = 32  # entries in a model's params
MAX_PARAM_CHARS = 4096  # one params value
POOL_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9-]*$")  # a pool names a Kafka topic
URL_SCHEMES = ("http", "https", "grpc")  # what a model's base_url may use


def _no_nul(value: Any, where: str = "") -> None:
    """NUL bytes are refused everywhere: PostgreSQL cannot store them in text and no name needs one."""
    if isinstance(value, str):
        if "\x00" in value:
            raise ValueError(f"{where or 'a value'} contains a NUL byte")
    elif isinstance(value, dict):
        for k, v in value.items():
            _no_nul(k, f"a key of {where}" if where else "a key")
            _no_nul(v, f"{where}.{k}" if where else str(k))
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            _no_nul(v, f"{where}[{i}]")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")

    @model_validator(mode="before")
    @classmethod
    def _refuse_nul(cls, data: Any) -> Any:
        _no_nul(data)
        return data


StrictModel = _Strict  # for request bodies (the api) that follow the same rules: no unknown keys, no NUL bytes
SourceKind = Literal["local_html", "local_csv", "local_files", "wikipedia", "gsm8k", "freshtab", "tata"]


class KafkaSettings(_Strict):
    bootstrap_servers: str = "127.0.0.1:9092"
    session_timeout_ms: int = 10000
    heartbeat_interval_ms: int = 2000
    max_poll_records: int = 200  # messages a batch worker takes per poll (but those of `batch_records`)
    # The same by service, for the services whose messages are cheap: the judge and the reporter spend ~0.1 ms a
    # message and a fixed cost a batch (a store round trip, a flush, an offset commit, a log line), so a larger
    # batch costs less an answer (docs/capacity.md, fifteenth and eighteenth measurements). A judge that asks a model
    # (LLM or insight judges) takes at most `judge.llm_batch_records`. qagen's messages may take seconds each, and a
    # batch must end well within the consumer's poll interval: it keeps `max_poll_records`.
    batch_records: dict[str, int] = {"judge": 2000, "reporter": 2000}
    poll_timeout_ms: int = 500
    request_timeout_ms: int = 15000
    connect_timeout_s: float = 10.0
    # How long a publish may wait for a topic's metadata or for room in the producer's buffer.
    max_block_ms: int = 10000
    # How long the producer keeps trying to deliver a record (the broker away, restarting) before its flush fails
    # as passing and the worker rewinds.
    delivery_timeout_ms: int = 120000
    # The producer's buffer of records not yet acknowledged, at most (librdkafka's default is 1 GiB).
    producer_buffer_kbytes: int = Field(default=32768, ge=1024)
    # What a consumer fetches ahead of its worker, at most (librdkafka's default, 64 MiB, is a burst's memory
    # in every service).
    fetch_queue_kbytes: int = Field(default=8192, ge=1024)
    # How long the broker holds a consumer's fetch when its partitions have nothing new (librdkafka's
    # `fetch.wait.max.ms`). A record that arrives ends the wait at once, so this is no delay to a message; but an
    # idle consumer sends a fetch every this often, and each cost the broker ~5 ms of CPU: the pipeline's nine idle
    # consumers took 0.1 of a core at librdkafka's default, 500 ms, and ~0.02 at 2,000 ms (docs/capacity.md,
    # twenty-fourth measurement). A seek (a rewind) or a new partition waits for the fetch in flight, at most this.
    fetch_wait_max_ms: int = Field(default=2000, ge=10, le=10000)
    linger_ms: int = 5
    # Producer batches of up to 256 KiB per partition (what one request to a partition's leader carries).
    batch_size: int = 262144
    # Messages per Kafka record (livetab.bus.frames): what one process publishes to one partition between two
    # sends goes as frames of at most this many messages and bytes (1: every message a record of its own). A
    # record costs the broker and the client's two ends far more than a message in a frame (bench/bus.py).
    # The bytes stay well under the broker's and the producer's record limit (1 MiB by default); a message over
    # a quarter of them goes alone.
    frame_max_records: int = Field(default=256, ge=1, le=10_000)
    frame_max_bytes: int = Field(default=262144, ge=1024, le=900_000)

    @field_validator("batch_records")
    @classmethod
    def _known_services(cls, v: dict[str, int]) -> dict[str, int]:
        from livetab.topics import SERVICES as services  # here: livetab.topics loads the protobuf modules

        for name, n in v.items():
            if name not in services:
                raise ValueError(f"batch_records: {name!r} is not a service ({', '.join(services)})")
            if not 1 <= n <= 10_000:
                raise ValueError(f"batch_records: {name} {n} is not within 1-10000")
        return v


class StoreSettings(_Strict):
    url: str = "sqlite:///out/livetab.db"


class ModelSettings(_Strict):
    name: str = Field(default="smollm2-135m", min_length=1, max_length=MAX_MODEL_NAME_CHARS)
    backend: Literal["llama_local", "openai", "grpc", "scripted"] = "llama_local"
    base_url: str = Field(default="", max_length=MAX_URL_CHARS)
    model: str = Field(default="", max_length=MAX_MODEL_NAME_CHARS)
    api_key_ref: str = Field(default="", max_length=MAX_NAME_CHARS)
    pool: str = Field(default="remote", max_length=MAX_NAME_CHARS)
    n_ctx: int = Field(default=4096, ge=1, le=MAX_CONTEXT)
    n_threads: int = Field(default=2, ge=1, le=MAX_THREADS)
    timeout_s: float = Field(default=120.0, gt=0, le=MAX_TIMEOUT_S)
    # chat: chat messages (instruct models); completion: a plain-text prompt with `shots` worked examples from
    # other tables of the release and a stop sequence, as base models are evaluated (livetab_inference.prompts)
    prompt_mode: Literal["chat", "completion"] = "chat"
    shots: int = Field(default=0, ge=0, le=8)
    params: dict[str, str] = Field(default_factory=dict, max_length=MAX_PARAMS)
    # the model's declared knowledge cutoff, ISO date (YYYY-MM-DD), "" when not declared: the reporter's freshness
    # cut and contamination split (carried on the run as ModelSpec.knowledge_cutoff)
    knowledge_cutoff: str = Field(default="", pattern=r"^(\d{4}-\d{2}-\d{2})?$")

    @field_validator("pool")
    @classmethod
    def _pool(cls, value: str) -> str:
        if value and not POOL_NAME.match(value):
            raise ValueError(f"pool name {value[:40]!r} must be letters, digits and '-' (it names a Kafka topic)")
        return value

    @field_validator("base_url")
    @classmethod
    def _base_url(cls, value: str) -> str:
        scheme = value.split("://", 1)[0].lower() if "://" in value else ""
        if scheme and scheme not in URL_SCHEMES:
            raise ValueError(f"base_url scheme {scheme[:20]!r} is not one of {', '.join(URL_SCHEMES)}")
        return value

    @model_validator(mode="after")
    def _params(self) -> ModelSettings:
        from livetab.models.registry import check_params

        check_params(self.backend, self.params)
        if self.backend == "openai" and self.base_url and not self.base_url.lower().startswith(("http://", "https://")):
            raise ValueError("an openai backend's base_url must be an http:// or https:// URL")
        return self


class SourceSettings(_Strict):
    kind: SourceKind = "local_html"
    location: str = ""
    language: str = "en"
    options: dict[str, str] = Field(default_factory=dict)


class ScraperSettings(_Strict):
    """Cleaning and selection thresholds (FreshTab's selection, looser defaults for the bundled sample)."""

    min_rows: int = 3
    max_rows: int = 60
    min_cols: int = 2
    max_cols: int = 12
    min_non_empty: int = 6
    max_empty_ratio: float = 0.4
    max_col_empty_ratio: float = 0.5
    max_cell_chars: int = 140
    max_table_chars: int = 6000
    drop_constant_columns: bool = True
    tables_per_page: int = 1


class LlmPathSettings(_Strict):
    """The LLM-assisted generation path (AraTable/TeleTables): off unless a generator model is set."""

    generator: ModelSettings | None = None
    validator: ModelSettings | None = None  # defaults to the generator
    simplicity: ModelSettings | None = None  # the small model of the simplicity filter; none: no filter
    proposals_per_table: int = 1
    k_validator: int = 4
    k_simplicity: int = 4
    # questions the validator got right only sometimes wait in the store's review queue (`livetab review`)


class QagenSettings(_Strict):
    families: list[str] = Field(default_factory=lambda: ["direct", "reasoning"])
    per_table: int = 4
    seed: int = 0
    # balance per attribute, e.g. {"skill": {"lookup": 0.4, "count": 0.3, "arithmetic": 0.3}}
    proportions: dict[str, dict[str, float]] = Field(default_factory=dict)
    # What happens to a generated question the question lint flags (livetab.question_lint: a header, unit or
    # total row read as data, a "column N" name, the answer in the question, a key on an amount, a degenerate
    # distinct count): `review` holds it back in the human review queue with its flags as the reason (a person
    # may still accept it), `drop` leaves it out, `keep` publishes it anyway (the quality report counts it).
    lint: Literal["review", "drop", "keep"] = "review"
    llm: LlmPathSettings = Field(default_factory=LlmPathSettings)


class RunKnobs(_Strict):
    """What a run asks of a model; the same fields over HTTP (api) and in a config file."""

    formats: list[str] = Field(default_factory=lambda: ["markdown"], min_length=1, max_length=MAX_FORMATS)
    settings: list[str] = Field(default_factory=lambda: ["with_table"], min_length=1, max_length=2)
    samples: int = Field(default=1, ge=1, le=MAX_SAMPLES)
    temperature: float = Field(default=0.0, ge=0.0, le=2.0)
    top_p: float = Field(default=1.0, gt=0.0, le=1.0)
    max_tokens: int = Field(default=32, ge=1, le=MAX_TOKENS)
    seed: int = Field(default=0, ge=0, le=2**31 - 1)
    max_rows: int = Field(default=40, ge=1, le=MAX_TABLE_ROWS)
    families: list[str] = Field(default_factory=list, max_length=MAX_FORMATS)
    limit: int = Field(default=0, ge=0)

    @field_validator("formats")
    @classmethod
    def _formats(cls, value: list[str]) -> list[str]:
        from livetab.render import FORMATS

        known = (*FORMATS, "image")
        for fmt in value:
            if not fmt or any(p not in known for p in fmt.split("+")):
                raise ValueError(f"format {fmt[:40]!r} is not one of {', '.join(known)} or a '+' combination")
        return value

    @field_validator("settings")
    @classmethod
    def _settings(cls, value: list[str]) -> list[str]:
        for s in value:
            if s not in ("with_table", "closed_book"):
                raise ValueError(f"setting {s[:40]!r} is not with_table or closed_book")
        return value

    @field_validator("families")
    @classmethod
    def _families(cls, value: list[str]) -> list[str]:
        from livetab.questions import FAMILIES

        for f in value:
            if f not in FAMILIES:
                raise ValueError(f"family {f[:40]!r} is not one of {', '.join(FAMILIES)}")
        return value


class RunSettings(RunKnobs):
    team: str = "local"
    release: str = "demo"


class JudgeSettings(_Strict):
    """Rule judge first; LLM judges (two or more, with Assisted Self-Deliberation) for what it leaves open."""

    tolerance: float = 0.005
    llm_judges: list[ModelSettings] = Field(default_factory=list)
    asd_rule: Literal["agree-else-uncertain", "judge1-wins", "any-true", "all-true", "majority"] = (
        "agree-else-uncertain")
    always_llm: bool = False
    asd_batch_size: int = 3
    llm_max_tokens: int = 128
    llm_temperatures: list[float] = Field(default_factory=list)  # one per judge; default 0.0
    # The `insight` family's factuality judge (FreshTab's error categories; claims the model wrote beside its
    # sentences are executed over the table). By default the first of `llm_judges` at its temperature; set
    # it to use another model (at temperature 0). With neither, insight answers are recorded as not judged.
    insight_judge: ModelSettings | None = None
    insight_max_rows: int = Field(default=40, ge=1)  # table rows shown to the insight judge (AraTable: 40)
    insight_max_per_answer: int = Field(default=8, ge=1)  # insights judged per answer; any more stay undecided
    # The most answers the judge service takes in one batch when a model judges (LLM judges, or an insight judge):
    # an answer may then cost model calls, and a batch must end well within the consumer's poll interval. The rule
    # judge alone takes `kafka.batch_records` (~0.1 ms an answer).
    llm_batch_records: int = Field(default=600, ge=1, le=10_000)

    def asks_models(self) -> bool:
        """Whether any answer may be judged by a model: LLM judges, or an insight judge."""
        return bool(self.llm_judges) or self.insight_judge is not None

    def insight_model(self) -> tuple[ModelSettings, float] | None:
        """The insight judge's model and temperature, or None when no insight judge is configured."""
        if self.insight_judge is not None:
            return self.insight_judge, 0.0
        if self.llm_judges:
            return self.llm_judges[0], (self.llm_temperatures[0] if self.llm_temperatures else 0.0)
        return None


class ReporterSettings(_Strict):
    """When a run's leaderboard is recomputed from the store: once its judged count has grown by
    `refresh_growth` (a fraction) since the last recompute (no sooner than `refresh_share` allows), once
    `refresh_s` seconds have passed, and always when every planned request is judged; the first no sooner than
    `first_s` after the run's first judgments arrived, unless the run is complete. Geometric steps keep the
    total work near-linear.

    `write_files`: the reporter service writes the report files (leaderboard.json, .md, report.html, the
    release exports) under the top-level `out_dir` when a run completes and when a release is frozen or
    retired (`livetab_reporter.files.report_dir` says where); off, it keeps only the live leaderboard rows and
    updates (a replica that must not write, tests of the rows alone)."""

    refresh_growth: float = Field(default=0.1, ge=0.0)
    refresh_s: float = Field(default=30.0, ge=0.0)
    # The most of its time the reporter spends on one run's live recomputes (before the run completes): after
    # a recompute that took t seconds, the next one due to growth waits until t / refresh_share has passed since
    # it began, so a large run's recomputes (each reads the whole run) stay a bounded share of a core however
    # fast its judgments arrive. 1.0: growth alone decides. Completion and `refresh_s` are never held back.
    refresh_share: float = Field(default=0.1, gt=0.0, le=1.0)
    # A run's first live recompute waits until its first judgments arrived this long ago (monotonic seconds, per
    # reporter process), unless the run is complete sooner: a run's leaderboard shows at most this long after its
    # first judgment, and a run that completes within it is recomputed once, not twice (each reads the whole run).
    # Its progress (GET /runs/{id}) is counted from the store and never waits for a recompute. 0: at once.
    first_s: float = Field(default=1.0, ge=0.0)
    # the contamination view's split of items by source date (ISO YYYY-MM-DD): fresh are those created after
    # it; "" splits at each model's declared knowledge cutoff, or else at the median source date of its items
    contamination_split: str = Field(default="", pattern=r"^(\d{4}-\d{2}-\d{2})?$")
    write_files: bool = True


class ReleaseSettings(_Strict):
    """Which releases are retired. Every other release is live: its question texts and gold answers stay
    out of every public file (see `livetab.publication.is_public`)."""

    retired: list[str] = Field(default_factory=list)


class ApiSettings(_Strict):
    host: str = "127.0.0.1"
    port: int = 8080
    # Bodies larger than this are refused with 413 before they are read whole (a run or scrape is < 10 KB).
    max_body_bytes: int = Field(default=65536, ge=1024)
    # A 422 quotes at most this many characters of what it refuses.
    error_excerpt_chars: int = Field(default=80, ge=0, le=1000)
    # A run may plan at most this many inference requests (questions x formats x settings x samples).
    max_run_requests: int = Field(default=200000, ge=1)
    # Bearer tokens on every route but /healthz and /readyz (livetab_api.auth). On by default, so `livetab serve
    # api` is never open; the embedded commands (`livetab run`, `livetab eval`) serve no API and need none. Off
    # only for a private test harness (LIVETAB_API__AUTH=false).
    auth: bool = True
    # A new token lives this many days unless `livetab token create --days` says fewer (never more).
    token_max_days: int = Field(default=90, ge=1, le=3650)
    # Per-token rate limit: a bucket of `rate_burst` requests refilled at `rate_per_minute`; past it, 429 with
    # Retry-After.
    rate_per_minute: float = Field(default=600.0, gt=0)
    rate_burst: int = Field(default=60, ge=1)
    # Refused tokens per token id (or per caller address for malformed ones): past this many a minute (burst the
    # same), 429 before the hash is even computed, so guessing a secret is slow and cannot tie up the CPU.
    auth_failures_per_minute: int = Field(default=10, ge=1)
    # Per-team quotas checked when a run is submitted (429 when over a count, 403 over a size).
    runs_per_day: int = Field(default=50, ge=0)
    concurrent_runs: int = Field(default=4, ge=0)
    team_run_requests: int = Field(default=50000, ge=1)  # requests one team's run may plan
    # Generated tokens one team's run may ask for: planned requests x the run's max_tokens (403 over it).
    team_run_tokens: int = Field(default=5_000_000, ge=1)
    # POST /runs probes a submitted openai/grpc endpoint with one tiny request (GET /models; the gRPC health
    # check) through the inference client before it accepts the run (livetab.models.probe): unreachable, another
    # protocol, a refused or missing key or a model it does not serve is 422 with one line. Off only for tests
    # whose endpoints are not meant to answer.
    probe_endpoints: bool = True
    # Sharing inference capacity between teams across time: at most this many of a team's requests published and
    # not yet answered at once; the planner publishes the rest as answers come in, round-robin by team
    # (livetab_api.planner). 0: a run's requests are published all at once (embedded mode, single-team setups).
    team_window: int = Field(default=0, ge=0)
    probe_timeout_s: float = Field(default=10.0, gt=0, le=60)
    # A long poll of a run's status (GET /runs/{id}?wait_s=S with If-None-Match) waits at most this long.
    max_wait_s: float = Field(default=30.0, ge=0, le=300)


class HealthSettings(_Strict):
    """The health routes (/healthz, /readyz) every served service without an API of its own answers on."""

    host: str = "127.0.0.1"  # the chart sets 0.0.0.0 (LIVETAB_HEALTH__HOST), so the kubelet can probe it
    # 0: any free port (several services on one host, as in the tests); the chart sets 8081
    port: int = Field(default=0, ge=0, le=65535)


class InferenceSettings(_Strict):
    """The inference service's in-flight worker (livetab.bus.inflight)."""

    # Model calls in flight at once across polls (as many more read ahead and prepared): the samples of one call
    # (`InferenceRequest.call_size`) share a slot, as they share one call at the endpoint; a request of its own takes
    # one. Each endpoint's own bound on calls is its backend's concurrency.
    max_in_flight: int = Field(default=64, ge=1, le=100000)
    # The same bound in embedded mode, where local models answer one request at a time in this process: a
    # small window keeps queued requests from waiting past their timeout behind each other.
    embedded_max_in_flight: int = Field(default=4, ge=1, le=100000)
    # On SIGTERM: how long to let pending requests finish before the rest is left uncommitted (run again later).
    drain_timeout_s: float = Field(default=30.0, ge=0, le=MAX_TIMEOUT_S)


_REMOTE_KINDS: tuple[SourceKind, ...] = ("wikipedia", "gsm8k", "freshtab")
# Source options a scrape request may set by default: limits, filters and how to read a file — none names a
# path, a folder, a URL or the source's location (livetab_api.guard.scrape_location).
_SAFE_SCRAPE_OPTIONS = ("since", "limit", "domain", "licence", "attribution", "recursive", "encoding", "delimiter",
                        "escapechar", "header_rows", "html_selector", "force_language", "require_all_languages",
                        "require_created_after", "skip_future_events", "title_year_filter", "query_limit",
                        "max_split_depth", "max_queries_per_category", "max_bytes")


class GuardSettings(_Strict):
    """Endpoint safety, scrape locations and API key references (livetab.netguard, livetab_api.guard)."""

    # CIDRs a model endpoint may resolve to although they are not public addresses (e.g. "127.0.0.0/8" for
    # the tests, an internal model server's range); everything else non-public is refused.
    allow: list[str] = Field(default_factory=list, max_length=256)
    # The cluster's own service ranges, refused even where public (unless in `allow`).
    cluster_cidrs: list[str] = Field(default_factory=list, max_length=256)
    # An endpoint's answer is read up to this many bytes; a longer one is cut off as an error.
    max_response_bytes: int = Field(default=8 * 1024 * 1024, ge=1024)
    # POST /scrapes: the source kinds a caller may ask for, the locations it may name ({name: path}: a caller
    # sends only a name, never a path) and the source options it may set (none names a path or a URL).
    scrape_kinds: list[SourceKind] = Field(default_factory=lambda: list(_REMOTE_KINDS))
    scrape_locations: dict[str, str] = Field(default_factory=dict)
    scrape_options: list[str] = Field(default_factory=lambda: list(_SAFE_SCRAPE_OPTIONS))
    # A model's api_key_ref names a secret registered for the submitting team: an environment variable
    # `<secret_prefix><TEAM>_<NAME>` (TEAM upper-cased, other characters as _), or a file <secrets_dir>/<team>/<name>.
    secret_prefix: str = Field(default="LIVETAB_TEAM_", pattern=r"^[A-Z][A-Z0-9_]*$")
    secrets_dir: str = ""

    @field_validator("allow", "cluster_cidrs")
    @classmethod
    def _cidrs(cls, value: list[str]) -> list[str]:
        import ipaddress

        for v in value:
            try:
                ipaddress.ip_network(v, strict=False)
            except ValueError:
                raise ValueError(f"{v[:60]!r} is not a CIDR (e.g. 127.0.0.0/8)") from None
        return value


class Settings(_Strict):
    out_dir: str = "out/demo"
    health: HealthSettings = Field(default_factory=HealthSettings)
    log_level: str = "INFO"
    log_format: Literal["json", "text"] = "text"
    kafka: KafkaSettings = Field(default_factory=KafkaSettings)
    store: StoreSettings = Field(default_factory=StoreSettings)
    models: list[ModelSettings] = Field(default_factory=lambda: [ModelSettings()])
    sources: list[SourceSettings] = Field(default_factory=list)
    scraper: ScraperSettings = Field(default_factory=ScraperSettings)
    qagen: QagenSettings = Field(default_factory=QagenSettings)
    run: RunSettings = Field(default_factory=RunSettings)
    judge: JudgeSettings = Field(default_factory=JudgeSettings)
    reporter: ReporterSettings = Field(default_factory=ReporterSettings)
    releases: ReleaseSettings = Field(default_factory=ReleaseSettings)
    api: ApiSettings = Field(default_factory=ApiSettings)
    inference: InferenceSettings = Field(default_factory=InferenceSettings)
    guard: GuardSettings = Field(default_factory=GuardSettings)


class ConfigError(Exception):
    """A setting is wrong; the message names it."""


ENV_PREFIX = "LIVETAB_"


def _set_path(tree: dict[str, Any], path: list[str], value: str) -> None:
    node = tree
    for key in path[:-1]:
        node = node.setdefault(key, {})
        if not isinstance(node, dict):
            raise ConfigError(f"environment override {'__'.join(path)} does not address a section")
    node[path[-1]] = yaml.safe_load(value) if value else value


def load_settings(path: str | Path | None = None, env: dict[str, str] | None = None) -> Settings:
    """Read YAML (if given), apply `LIVETAB_SECTION__KEY=value` overrides, validate."""
    env = dict(os.environ) if env is None else env
    tree: dict[str, Any] = {}
    path = path or env.get("LIVETAB_CONFIG")
    if path:
        p = Path(path)
        if not p.is_file():
            raise ConfigError(f"config file {p} does not exist")
        try:
            loaded = yaml.safe_load(p.read_text(encoding="utf-8")) or {}
        except yaml.YAMLError as e:
            raise ConfigError(f"config file {p} is not valid YAML: {e}") from None
        if not isinstance(loaded, dict):
            raise ConfigError(f"config file {p} must hold a mapping at the top level")
        tree = loaded
    for key, value in env.items():
        if (key.startswith(ENV_PREFIX) and key != "LIVETAB_CONFIG" and "__" in key) or key in (
            "LIVETAB_MODE", "LIVETAB_OUT_DIR", "LIVETAB_LOG_LEVEL", "LIVETAB_LOG_FORMAT"
        ):
            parts = [p.lower() for p in key[len(ENV_PREFIX):].split("__")]
            _set_path(tree, parts, value)
    try:
        return Settings.model_validate(tree)
    except ValidationError as e:
        problems = []
        for err in e.errors():
            where = ".".join(str(x) for x in err["loc"])
            if err["type"] == "extra_forbidden":
                problems.append(f"unknown setting '{where}'")
            else:
                problems.append(f"setting '{where}': {err['msg']}")
        raise ConfigError("; ".join(problems)) from None
