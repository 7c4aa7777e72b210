"""The one topic registry: topic <-> message type <-> producing/consuming service <-> partitions.

The services, the tests and the Helm chart (through `livetab topics --json`) all read this table.
"""

from __future__ import annotations

from dataclasses import dataclass

from google.protobuf.message import Message

from livetab.v1 import (
    dlq_pb2,
    inference_pb2,
    judgment_pb2,
    math_pb2,
    question_pb2,
    release_pb2,
    report_pb2,
    run_pb2,
    table_pb2,
)

__all__ = [
    "DLQ",
    "INFERENCE_REQUESTS",
    "INFERENCE_RESULTS",
    "JUDGE_COMMANDS",
    "JUDGMENTS",
    "PROBLEMS",
    "QUESTIONS",
    "RELEASES",
    "RELEASE_COMMANDS",
    "REMOTE_POOL",
    "REPORTS",
    "RUNS",
    "SCRAPES",
    "SERVICES",
    "TABLES",
    "TOPICS",
    "Topic",
    "by_name",
    "consumed_by",
    "consumer_group",
    "requests_topic",
    "topic_for_type",
]

SERVICES = ("scraper", "qagen", "inference", "judge", "reporter", "api")


@dataclass(frozen=True)
class Topic:
    name: str
    message: type[Message]
    producer: str
    consumer: str | None  # the service whose consumer group reads it (None: read by people and tools)
    partitions: int = 3
    pool: str = ""
    # a second handler of the consumer service reads it in a group of its own (`consumer_group(consumer, group)`),
    # so one handler's rebalance never stops the other's commits
    group: str = ""
    # messages per frame at most on this topic (livetab.bus.frames), below `kafka.frame_max_records` (0: that):
    # see the requests topic's
    frame_records: int = 0

    @property
    def message_type(self) -> str:
        return str(self.message.DESCRIPTOR.full_name)

    def frame_cap(self, most: int) -> int:
        """Messages per frame at most on this topic, given `kafka.frame_max_records` (`most`): its own cap if lower."""
        return min(self.frame_records, most) if self.frame_records else most


TOPICS: tuple[Topic, ...] = (
    Topic("livetab.scrapes.v1", table_pb2.ScrapeCommand, producer="api", consumer="scraper", partitions=1),
    Topic("livetab.tables.v1", table_pb2.Table, producer="scraper", consumer="qagen"),
    # math word problems (GSM8K) with their worked solutions; qagen's math flow turns each into tables
    Topic("livetab.problems.v1", math_pb2.MathProblem, producer="scraper", consumer="qagen"),
    # every generated question, verified or not; the api service's release handler records a draft release's
    # questions from it
    Topic("livetab.questions.v1", question_pb2.Question, producer="qagen", consumer="api", group="releases"),
    Topic("livetab.releases.commands.v1", release_pb2.ReleaseCommand, producer="api", consumer="api", partitions=1,
          group="releases"),
    Topic("livetab.releases.v1", release_pb2.ReleaseEvent, producer="api", consumer="reporter", partitions=1),
    Topic("livetab.judge.commands.v1", release_pb2.JudgeCommand, producer="api", consumer="judge", partitions=1,
          group="commands"),
    Topic("livetab.runs.v1", run_pb2.Run, producer="api", consumer="api", partitions=1),
    # A run's requests go out in frames of 64, not 256: the inference service begins the first ones while the api
    # is still making the rest. With 256, a 2,000-request run's frames filled at about three quarters of it and
    # the inference service waited for them (python -m bench pipeline, five interleaved pairs of whole runs:
    # answers/s median higher in four, ratio +0.017 on average, the CPU an answer ~5 % higher).
    Topic("livetab.inference.requests.v1", inference_pb2.InferenceRequest, producer="api", consumer="inference",
          partitions=6, frame_records=64),
    Topic("livetab.inference.results.v1", inference_pb2.InferenceResult, producer="inference", consumer="judge"),
    Topic("livetab.judgments.v1", judgment_pb2.Judgment, producer="judge", consumer="reporter"),
    # no consumer group reads it; each api process tails it from its end (`Bus.tail`) to wake the long polls of a
    # run's status (livetab_api.watch)
    Topic("livetab.reports.v1", report_pb2.LeaderboardUpdate, producer="reporter", consumer=None, partitions=1),
    Topic("livetab.dlq.v1", dlq_pb2.DeadLetter, producer="*", consumer=None, partitions=1),
)

_BY_NAME = {t.name: t for t in TOPICS}
_BY_TYPE: dict[str, Topic] = {}
for _t in TOPICS:
    _BY_TYPE.setdefault(_t.message_type, _t)

DLQ = "livetab.dlq.v1"
SCRAPES = "livetab.scrapes.v1"
TABLES = "livetab.tables.v1"
PROBLEMS = "livetab.problems.v1"
QUESTIONS = "livetab.questions.v1"
RELEASE_COMMANDS = "livetab.releases.commands.v1"
RELEASES = "livetab.releases.v1"
JUDGE_COMMANDS = "livetab.judge.commands.v1"
RUNS = "livetab.runs.v1"
INFERENCE_RESULTS = "livetab.inference.results.v1"
JUDGMENTS = "livetab.judgments.v1"
REPORTS = "livetab.reports.v1"


INFERENCE_REQUESTS = "livetab.inference.requests.v1"
REMOTE_POOL = "remote"


def requests_topic(pool: str) -> str:
    """Inference requests per worker pool: remote endpoints (CPU workers) share the base topic; each hosted
    model's GPU pool has its own (`livetab.inference.requests.<pool>.v1`), so each pool scales on its own lag."""
    if not pool or pool == REMOTE_POOL:
        return INFERENCE_REQUESTS
    if not pool.replace("-", "").isalnum():
        raise ValueError(f"pool name {pool!r} must be letters, digits and '-'")
    return f"livetab.inference.requests.{pool}.v1"


def by_name(name: str) -> Topic:
    topic = _BY_NAME.get(name)
    if topic is not None:
        return topic
    if name.startswith("livetab.inference.requests.") and name.endswith(".v1"):
        pool = name[len("livetab.inference.requests."):-len(".v1")]
        base = _BY_NAME[INFERENCE_REQUESTS]
        return Topic(name, base.message, producer=base.producer, consumer=base.consumer, partitions=base.partitions,
                     pool=pool, frame_records=base.frame_records)
    raise KeyError(f"unknown topic {name!r}; known: {', '.join(_BY_NAME)}")


def topic_for_type(message_type: str) -> Topic:
    return _BY_TYPE[message_type]


def consumer_group(service: str, pool: str = "") -> str:
    """The consumer group of a service is its one word, prefixed so clusters can be shared; an inference
    pool's workers have a group of their own, so starting or stopping one pool never rebalances another."""
    return f"livetab-{service}-{pool}" if pool else f"livetab-{service}"


def consumed_by(service: str) -> list[Topic]:
    return [t for t in TOPICS if t.consumer == service]



def chart_registry() -> dict[str, object]:
    """The registry as the Helm chart reads it (charts/livetab/files/topics.json, written by `livetab topics
    --chart`): every topic with its consuming service and consumer group, and the naming rule of a GPU pool's
    request topic and group, with `POOL` standing for the pool's name."""
    return {
        "services": list(SERVICES),
        "topics": [{"name": t.name, "message_type": t.message_type, "producer": t.producer, "consumer": t.consumer,
                    "consumer_group": consumer_group(t.consumer, t.group) if t.consumer else None,
                    "partitions": t.partitions} for t in TOPICS],
        "pool_topic": requests_topic("POOL"),
        "pool_group": consumer_group("inference", "POOL"),
    }
