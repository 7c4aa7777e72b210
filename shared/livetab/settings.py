"""Typed settings: a YAML file plus `LIVETAB_...` environment overrides, validated at start-up.

Every threshold and knob lives here, so services, tests and the chart read one definition.
A bad setting stops the process with a message that names it (see `load_settings`).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

__all__ = ["ConfigError", "Settings", "load_settings"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class KafkaSettings(_Strict):
    bootstrap_servers: str = "127.0.0.1:9092"
    session_timeout_ms: int = 10000
    heartbeat_interval_ms: int = 2000
    max_poll_records: int = 200
    poll_timeout_ms: int = 500
    request_timeout_ms: int = 15000
    connect_timeout_s: float = 10.0
    linger_ms: int = 5
    # Producer batches of up to 256 KiB per partition: with 1 KB records kafka-python's 16 KiB default fills
    # a batch every dozen sends, and its sender thread then contends with send() for the GIL and the
    # accumulator lock (out/bench/bus.json measures both settings side by side).
    batch_size: int = 262144


class StoreSettings(_Strict):
    url: str = "sqlite:///out/livetab.db"


class ModelSettings(_Strict):
    name: str = "smollm2-135m"
    backend: Literal["llama_local", "openai", "grpc"] = "llama_local"
    base_url: str = ""
    model: str = ""
    api_key_ref: str = ""
    pool: str = "remote"
    n_ctx: int = 4096
    n_threads: int = 2
    timeout_s: float = 120.0
    # chat: chat messages (instruct models); completion: a plain-text prompt with `shots` worked examples from
    # other tables of the release and a stop sequence, as base models are evaluated (livetab_inference.prompts)
    prompt_mode: Literal["chat", "completion"] = "chat"
    shots: int = Field(default=0, ge=0, le=8)
    params: dict[str, str] = Field(default_factory=dict)


class SourceSettings(_Strict):
    kind: Literal["local_html", "local_csv", "local_files", "wikipedia", "gsm8k"] = "local_html"
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
    review_queue: str = "out/review/queue.jsonl"


class QagenSettings(_Strict):
    families: list[str] = Field(default_factory=lambda: ["direct", "reasoning"])
    per_table: int = 4
    seed: int = 0
    # balance per attribute, e.g. {"skill": {"lookup": 0.4, "count": 0.3, "arithmetic": 0.3}}
    proportions: dict[str, dict[str, float]] = Field(default_factory=dict)
    llm: LlmPathSettings = Field(default_factory=LlmPathSettings)


class RunKnobs(_Strict):
    """What a run asks of a model; the same fields over HTTP (api) and in a config file."""

    formats: list[str] = Field(default_factory=lambda: ["markdown"])
    settings: list[str] = Field(default_factory=lambda: ["with_table"])
    samples: int = 1
    temperature: float = 0.0
    top_p: float = 1.0
    max_tokens: int = 32
    seed: int = 0
    max_rows: int = 40
    families: list[str] = Field(default_factory=list)
    limit: int = 0


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

    def insight_model(self) -> tuple[ModelSettings, float] | None:
        """The insight judge's model and temperature, or None when no insight judge is configured."""
        if self.insight_judge is not None:
            return self.insight_judge, 0.0
        if self.llm_judges:
            return self.llm_judges[0], (self.llm_temperatures[0] if self.llm_temperatures else 0.0)
        return None


class ReporterSettings(_Strict):
    """When a run's leaderboard is recomputed from the store: once its judged count has grown by
    `refresh_growth` (a fraction) since the last recompute, once `refresh_s` seconds have passed, and
    always when every planned request is judged. Geometric steps keep the total work near-linear."""

    refresh_growth: float = Field(default=0.1, ge=0.0)
    refresh_s: float = Field(default=30.0, ge=0.0)


class ApiSettings(_Strict):
    host: str = "127.0.0.1"
    port: int = 8080


class Settings(_Strict):
    mode: Literal["embedded", "distributed"] = "embedded"
    out_dir: str = "out/demo"
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
    api: ApiSettings = Field(default_factory=ApiSettings)


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
