"""The relational schema. Every entity row is keyed by its deterministic content id and carries the
protobuf message it came from (`payload`), plus the columns that queries filter on."""

from __future__ import annotations

from sqlalchemy import (
    Column,
    DateTime,
    Float,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
    func,
)

__all__ = [
    "api_tokens",
    "audit_log",
    "dead_letters",
    "failures",
    "judgments",
    "leaderboard",
    "members",
    "metadata",
    "questions",
    "release_members",
    "releases",
    "response_cache",
    "results",
    "review_items",
    "runs",
    "submissions",
    "tables",
    "teams",
]

metadata = MetaData()


def _created() -> Column[object]:
    return Column("created_at", DateTime(timezone=True), server_default=func.now(), nullable=False)


tables = Table(
    "tables", metadata,
    Column("id", String(64), primary_key=True),
    Column("release", String(64), nullable=False, index=True),
    Column("source_uri", Text, nullable=False),
    Column("language", String(16), nullable=False),
    Column("domain", String(32), nullable=False),
    Column("source_created_at", String(32), nullable=False),
    Column("payload", LargeBinary, nullable=False),
    _created(),
)

questions = Table(
    "questions", metadata,
    Column("id", String(64), primary_key=True),
    Column("table_id", String(64), nullable=False, index=True),
    Column("release", String(64), nullable=False, index=True),
    Column("family", String(32), nullable=False),
    Column("status", String(16), nullable=False),
    Column("payload", LargeBinary, nullable=False),
    _created(),
)

runs = Table(
    "runs", metadata,
    Column("id", String(64), primary_key=True),
    Column("team", String(64), nullable=False),
    Column("model", String(128), nullable=False),
    Column("release", String(64), nullable=False),
    Column("planned", Integer, nullable=False),
    Column("payload", LargeBinary, nullable=False),
    Column("refused", Text, nullable=False, server_default=""),  # why the planner refused it ("" when planned)
    # when it was cancelled (POST /runs/{id}/cancel; Unix seconds), NULL while not: the planner plans no
    # cancelled run, inference records its outstanding requests as failed ("cancelled") and publishes nothing
    Column("cancelled_at", Float, nullable=True),
    # how many of its planned requests are published so far, when the planner holds some back to share the
    # inference capacity between teams (api.team_window; livetab_api.planner); NULL: all of them
    Column("published", Integer, nullable=True),
    _created(),
)

results = Table(
    "results", metadata,
    Column("id", String(64), primary_key=True),
    Column("run_id", String(64), nullable=False, index=True),
    Column("question_id", String(64), nullable=False),
    Column("model", String(128), nullable=False),
    Column("sample_index", Integer, nullable=False),
    Column("error", Text, nullable=False),
    Column("payload", LargeBinary, nullable=False),
    _created(),
)

judgments = Table(
    "judgments", metadata,
    Column("id", String(64), primary_key=True),
    Column("request_id", String(64), nullable=False),
    Column("run_id", String(64), nullable=False, index=True),
    Column("question_id", String(64), nullable=False),
    Column("model", String(128), nullable=False),
    Column("judge", String(64), nullable=False),
    Column("family", String(32), nullable=False),
    Column("verdict", String(16), nullable=False),
    Column("score", Float, nullable=False),
    Column("payload", LargeBinary, nullable=False),
    _created(),
)

leaderboard = Table(
    "leaderboard", metadata,
    Column("id", String(200), primary_key=True),  # run_id + "|" + slice
    Column("run_id", String(64), nullable=False, index=True),
    Column("model", String(128), nullable=False),
    Column("slice", String(128), nullable=False),
    Column("n", Integer, nullable=False),
    Column("correct", Integer, nullable=False),
    Column("accuracy", Float, nullable=False),
    Column("ci_low", Float, nullable=False),
    Column("ci_high", Float, nullable=False),
    _created(),
)

dead_letters = Table(
    "dead_letters", metadata,
    Column("id", String(300), primary_key=True),  # consumer_group|topic:partition:offset[:index in its frame]
    Column("source_topic", String(128), nullable=False),
    Column("partition", Integer, nullable=False),
    Column("offset", Integer, nullable=False),
    Column("consumer_group", String(128), nullable=False),
    Column("error", Text, nullable=False),
    Column("service", String(32), nullable=False, server_default=""),
    Column("run_id", String(64), nullable=False, server_default="", index=True),  # "" when it belongs to no run
    Column("key", LargeBinary, nullable=True),  # the original record, for a redrive (livetab.dlq)
    Column("value", LargeBinary, nullable=True),
    Column("headers", Text, nullable=False, server_default="{}"),  # JSON object
    Column("redriven_at", DateTime(timezone=True), nullable=True),  # when it was last re-published
    _created(),
)

failures = Table(
    "failures", metadata,
    Column("id", String(64), primary_key=True),
    Column("stage", String(32), nullable=False),
    Column("entity", Text, nullable=False),
    Column("reason", Text, nullable=False),
    Column("release", String(64), nullable=False),
    _created(),
)

response_cache = Table(
    "response_cache", metadata,
    Column("key", String(64), primary_key=True),
    Column("model", String(128), nullable=False),
    Column("payload", LargeBinary, nullable=False),
    _created(),
)


# A release's lifecycle (livetab.v1.ReleaseStatus, by name: draft, frozen, live, retired). Written only by the
# api service's release handler; `history` is a JSON list of {status, at, command_id, by} (append-only).
releases = Table(
    "releases", metadata,
    Column("id", String(64), primary_key=True),  # the release name
    Column("status", String(16), nullable=False),
    Column("manifest_hash", String(64), nullable=False, server_default=""),  # "" until frozen
    Column("questions", Integer, nullable=False, server_default="0"),  # frozen question count (0 while draft)
    Column("history", Text, nullable=False, server_default="[]"),
    Column("updated_at", DateTime(timezone=True), server_default=func.now(), nullable=False),
    _created(),
)

# The frozen question set of a release, one row per question (written once, at freezing; never changed).
release_members = Table(
    "release_members", metadata,
    Column("id", String(140), primary_key=True),  # release + "|" + question id
    Column("release", String(64), nullable=False, index=True),
    Column("question_id", String(64), nullable=False),
    _created(),
)

# The human review queue: questions the validator accepted only sometimes wait here for a person.
# status: pending, accepted, rejected, edited; an accepted or edited question joins its (draft) release.
review_items = Table(
    "review_items", metadata,
    Column("id", String(64), primary_key=True),  # the question id
    Column("release", String(64), nullable=False, index=True),
    Column("status", String(16), nullable=False, index=True),
    Column("reason", Text, nullable=False),  # why it waits for a person
    Column("payload", LargeBinary, nullable=False),  # the livetab.v1.Question (as edited, once edited)
    Column("reviewer", String(128), nullable=False, server_default=""),
    Column("note", Text, nullable=False, server_default=""),
    Column("decided_at", DateTime(timezone=True), nullable=True),
    _created(),
)


# Teams and people (livetab_api.teams). A team is a name; written by `livetab team create`.
teams = Table(
    "teams", metadata,
    Column("id", String(64), primary_key=True),  # the team name
    _created(),
)

# A person: `team` is the team they act for ("" only for an admin who belongs to none); role: admin,
# team-admin, member or reviewer (livetab_api.teams.ROLES).
members = Table(
    "members", metadata,
    Column("id", String(128), primary_key=True),  # the member's name (e.g. an e-mail address)
    Column("team", String(64), nullable=False, index=True),
    Column("role", String(16), nullable=False),
    _created(),
)

# API tokens. The secret is never stored: `hash` is scrypt(secret, salt); `id` is the token's public prefix
# (lt_<id>_<secret>), the key it is looked up by. Times are Unix seconds.
api_tokens = Table(
    "api_tokens", metadata,
    Column("id", String(32), primary_key=True),  # the token's public id (its prefix)
    Column("member", String(128), nullable=False, index=True),
    Column("team", String(64), nullable=False, index=True),  # the member's team when it was created
    Column("scopes", String(64), nullable=False),  # comma-separated: read, submit, review, admin
    Column("salt", String(64), nullable=False),  # hex, 16 random bytes per token
    Column("hash", String(128), nullable=False),  # hex scrypt digest of the secret part
    Column("expires_at", Float, nullable=False),  # Unix seconds; refused from then on
    Column("revoked_at", Float, nullable=True),  # Unix seconds when revoked; NULL while valid
    Column("note", Text, nullable=False, server_default=""),  # what it is for (shown by `livetab token list`)
    _created(),
)

# Append-only audit log: every write through the api (any non-GET request, allowed or refused) and every
# admin action of the CLI (team, member, token).
audit_log = Table(
    "audit_log", metadata,
    Column("id", String(32), primary_key=True),  # random hex
    Column("at", Float, nullable=False, index=True),  # Unix seconds
    Column("actor", String(128), nullable=False),  # member name, "cli:<user>" or "anonymous"
    Column("token_id", String(32), nullable=False, server_default=""),  # the token used ("" for the CLI)
    Column("team", String(64), nullable=False, server_default=""),  # the actor's team
    Column("action", String(200), nullable=False),  # e.g. "POST /runs" or "token.create"
    Column("target", Text, nullable=False, server_default=""),  # what it acted on (run id, token id, ...)
    Column("status", Integer, nullable=False),  # HTTP status (the CLI: 0 = done)
    _created(),
)

# Active submissions (issue 15): a run submitted with `rerun: true` (POST /runs, `livetab submit --rerun`) is a
# team's submission of its model; when a new release goes live the api's release handler submits it again on
# that release (same model spec and knobs; livetab.runs.rerun_of). One row per (team, model name): a later
# submission of the same model replaces it. A submission is *active* while `stopped_at` is NULL; cancelling
# its latest run stops it.
submissions = Table(
    "submissions", metadata,
    Column("id", String(64), primary_key=True),  # content id of (team, model name)
    Column("team", String(64), nullable=False, index=True),
    Column("model", String(128), nullable=False),  # the model's name in the runs
    Column("run_id", String(64), nullable=False, index=True),  # its latest run (submitted or re-run)
    Column("release", String(64), nullable=False),  # that run's release
    Column("payload", LargeBinary, nullable=False),  # that run (livetab.v1.Run): what a re-run copies
    Column("stopped_at", Float, nullable=True),  # Unix seconds when it stopped; NULL while active
    _created(),
)
