"""`livetab review` against a SQLite store: list the queue, an edit of a computed gold re-verified by running
the question's program again (a contradicting gold refused, a reworded text accepted), an accepted question
stored as verified and published on the questions topic (in-process, and to the real broker), a decision on
a release that is no longer draft refused with its reason."""

from __future__ import annotations

import csv
import time
import uuid
from pathlib import Path

import pytest
from livetab import review, topics
from livetab.bus import HandlerContext, Outgoing
from livetab.paths import shared_data
from livetab.questions import Gold, Question, Verification
from livetab.records import load_question, table_row
from livetab.store import Store, open_store, schema
from livetab.tables import Source, Table
from livetab.v1 import question_pb2
from livetab_cli.main import main

PROGRAM = "df.loc[df['Name'] == 'Lincoln Cathedral', 'Country'].iloc[0]"


def _setup(tmp_path: Path, release: str = "draft-r") -> tuple[Path, Store, Question]:
    with (shared_data() / "wtq" / "csv/203-csv/39.csv").open(encoding="utf-8", newline="") as f:
        grid = list(csv.reader(f, escapechar="\\"))
    table = Table(id="wtq-39", source=Source(kind="wtq", uri="39"), header=[grid[0]], rows=grid[1:], release=release)
    db = tmp_path / "r.db"
    cfg = tmp_path / "c.yaml"
    cfg.write_text(f"store: {{url: 'sqlite:///{db}'}}\n")
    store = open_store(f"sqlite:///{db}")
    store.upsert(schema.tables, [table_row(table.to_proto())])
    q = Question(id="q-lincoln", table_id=table.id, family="reasoning", text="Which country is Lincoln Cathedral in?",
                 gold=Gold(kind="text", text="England"), derivation=PROGRAM, release=release, status="pending",
                 verification=Verification(method="sandbox+validator", decisions=["validator v: 2/4 -> human review"]))
    assert review.add(store, q, "validator 2/4")
    return cfg, store, q


class _Recorder:
    """Measurement scaffolding standing in for the api service's release handler: records what it reads."""

    service = "api"
    topics = [topics.QUESTIONS]

    def __init__(self) -> None:
        self.seen: list[question_pb2.Question] = []

    def handle(self, message: question_pb2.Question, ctx: HandlerContext) -> list[Outgoing]:
        self.seen.append(message)
        return []


def test_review_list_edit_and_publish_in_process(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    cfg, store, q = _setup(tmp_path)
    recorder = _Recorder()
    from livetab.runtime import Service

    api = Service("api", lambda build: [recorder])
    monkeypatch.setattr("livetab.runtime.embedded.declared_service", lambda name: api)
    assert main(["review", "list", "--config", str(cfg), "--status", "pending"]) == 0
    out = capsys.readouterr().out
    assert "q-lincoln" in out and "draft-r" in out and "1 item(s)" in out

    # a gold the program does not compute is refused, naming the computed value; nothing changes
    assert main(["review", "edit", "q-lincoln", "--gold", "France", "--reviewer", "amira", "--config", str(cfg)]) == 1
    err = capsys.readouterr().err
    assert "program, which gives 'England', not 'France'" in err
    assert review.get(store, q.id).status == review.PENDING and recorder.seen == []

    assert main(["review", "edit", "q-lincoln", "--text", "In which country is Lincoln Cathedral?",
                 "--reviewer", "amira", "--note", "clearer", "--config", str(cfg)]) == 0
    out = capsys.readouterr().out
    assert "edited and accepted by amira" in out and "re-verified" in out and "in-process bus" in out
    [published] = recorder.seen
    assert (published.id, published.status, published.release) == ("q-lincoln", "verified", "draft-r")
    assert published.text == "In which country is Lincoln Cathedral?" and published.gold.text == "England"
    assert published.verification.decisions[-1] == "human review: edited and accepted by amira: clearer"
    stored = load_question(store.get(schema.questions, q.id))
    assert stored is not None and stored.text == published.text and stored.status == "verified"
    item = review.get(store, q.id)
    assert (item.status, item.reviewer) == ("edited", "amira") and item.decided_at is not None

    assert main(["review", "accept", "q-lincoln", "--reviewer", "kim", "--config", str(cfg)]) == 1
    assert "already edited by amira" in capsys.readouterr().err
    store.close()


def test_decisions_on_a_release_no_longer_draft_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                                            ) -> None:
    cfg, store, q = _setup(tmp_path, release="r-live")
    store.upsert(schema.releases, [{"id": "r-live", "status": "live"}])
    with pytest.raises(SystemExit) as exit_:  # a rejection needs a note saying why
        main(["review", "reject", q.id, "--config", str(cfg)])
    assert exit_.value.code == 2
    capsys.readouterr()
    assert main(["review", "reject", q.id, "--note", "ambiguous", "--reviewer", "lee", "--config", str(cfg)]) == 1
    assert "release 'r-live' is live, no longer a draft" in capsys.readouterr().err
    assert review.get(store, q.id).status == review.PENDING and store.count(schema.questions) == 0
    store.close()


@pytest.mark.kafka
def test_accepted_question_is_published_to_kafka(tmp_path: Path, kafka_bootstrap: str,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    from kafka import KafkaConsumer
    from livetab.bus.frames import message_values
    from livetab.bus.kafka import ensure_topics

    ensure_topics(kafka_bootstrap)
    release = f"r-{uuid.uuid4().hex[:8]}"
    cfg, store, q = _setup(tmp_path, release=release)
    cfg.write_text(cfg.read_text() + f"kafka: {{bootstrap_servers: '{kafka_bootstrap}'}}\n")
    assert main(["review", "accept", q.id, "--reviewer", "amira", "--bus", "kafka", "--config", str(cfg)]) == 0
    assert "published on livetab.questions.v1 through Kafka" in capsys.readouterr().out
    consumer = KafkaConsumer(topics.QUESTIONS, bootstrap_servers=kafka_bootstrap, auto_offset_reset="earliest",
                             group_id=None, consumer_timeout_ms=2000)
    found: list[question_pb2.Question] = []
    deadline = time.monotonic() + 30
    while not found and time.monotonic() < deadline:
        for rec in consumer:
            for value in message_values(rec.value, rec.headers):
                m = question_pb2.Question.FromString(value)
                if m.release == release:
                    found.append(m)
    consumer.close()
    assert [(m.id, m.status) for m in found] == [(q.id, "verified")]
    store.close()
