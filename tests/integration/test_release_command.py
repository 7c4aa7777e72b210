"""`livetab release freeze|publish|retire NAME` and `livetab release list|show NAME`: embedded (SQLite,
the release handler in this process) and distributed (the command over the real broker, answered by the
api service's release handler running as a worker on Kafka). A refused command exits 2 with its reason."""

from __future__ import annotations

import json
import threading
import time
import uuid
from pathlib import Path

import pytest
import yaml
from livetab import releases as rel
from livetab.bus import HandlerContext, Worker
from livetab.bus.kafka import KafkaBus, ensure_topics
from livetab.records import question_row
from livetab.settings import KafkaSettings
from livetab.store import Store, open_store, schema
from livetab.topics import RELEASE_COMMANDS, RELEASES
from livetab.v1 import question_pb2
from livetab_api.releases import ReleaseHandler
from livetab_cli.main import main


def _seed(store: Store, release: str, n: int = 3) -> list[str]:
    qs = [question_pb2.Question(id=f"q_{release}_{i}", table_id=f"t{i}", family="direct", text="?",
                                status="verified", release=release) for i in range(n)]
    store.upsert(schema.questions, [question_row(q) for q in qs])
    return sorted(q.id for q in qs)


def _config(tmp_path: Path, **extra: object) -> str:
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump({"store": {"url": f"sqlite:///{tmp_path / 'r.db'}"}, **extra}))
    return str(path)


def test_release_commands_in_embedded_mode(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = _config(tmp_path)
    store = open_store(f"sqlite:///{tmp_path / 'r.db'}")
    ids = _seed(store, "a")
    _seed(store, "b")
    assert main(["release", "retire", "a", "--config", cfg]) == 2  # a draft cannot be retired
    err = capsys.readouterr().err
    assert "refused: cannot retire release 'a': it is draft" in err and "Traceback" not in err
    assert main(["release", "publish", "nope", "--config", cfg]) == 2
    assert "'nope' is unknown" in capsys.readouterr().err
    assert main(["release", "freeze", "a", "--config", cfg]) == 0
    assert f"release a is frozen: 3 questions, manifest {rel.manifest_hash(ids)[:16]}" in capsys.readouterr().out
    assert main(["release", "freeze", "a", "--config", cfg]) == 0  # already frozen: nothing changes
    assert main(["release", "publish", "a", "--config", cfg]) == 0
    assert "release a is live" in capsys.readouterr().out
    assert main(["release", "freeze", "a", "--config", cfg]) == 2  # live: no way back
    assert "it is live" in capsys.readouterr().err
    assert main(["release", "show", "a", "--config", cfg]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["status"], doc["frozen_questions"], doc["manifest_hash"]) == ("live", 3, rel.manifest_hash(ids))
    assert [h["status"] for h in doc["history"]] == ["draft", "frozen", "live"]
    assert main(["release", "list", "--config", cfg]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].split()[:4] == ["a", "live", "3", "3"] and lines[2].split()[:4] == ["b", "draft", "0", "3"]
    assert main(["release", "show", "nope", "--config", cfg]) == 1
    assert main(["release", "show", "--config", cfg]) == 2
    assert main(["release", "retire", "a", "--config", cfg]) == 0
    assert rel.get_release(store, "a").status == rel.RETIRED  # type: ignore[union-attr]
    store.close()


@pytest.mark.kafka
def test_release_commands_in_distributed_mode_go_over_the_broker(kafka_bootstrap: str, tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    tag = uuid.uuid4().hex[:8]
    cfg = _config(tmp_path, kafka={"bootstrap_servers": kafka_bootstrap})
    store = open_store(f"sqlite:///{tmp_path / 'r.db'}")
    _seed(store, tag)
    ensure_topics(kafka_bootstrap, names=[RELEASE_COMMANDS, RELEASES])
    bus = KafkaBus(KafkaSettings(bootstrap_servers=kafka_bootstrap, poll_timeout_ms=200))
    # the api service's release handler, in its own group, reading commands only (the broker may hold other
    # tests' records)
    handler = ReleaseHandler()
    handler.topics = [RELEASE_COMMANDS]
    worker = Worker(handler, bus, HandlerContext(store=store, settings=None), group=f"rel-{tag}",
                    poll_timeout_s=0.2)
    thread = threading.Thread(target=worker.run, daemon=True)
    thread.start()
    try:
        assert main(["release", "publish", tag, "--bus", "kafka", "--config", cfg]) == 0
        out = capsys.readouterr().out
        assert f"release {tag} is frozen: 3 questions" in out and f"release {tag} is live" in out
        assert main(["release", "freeze", tag, "--bus", "kafka", "--config", cfg]) == 2
        assert "it is live" in capsys.readouterr().err
        deadline = time.monotonic() + 10
        while rel.get_release(store, tag).status != rel.LIVE and time.monotonic() < deadline:  # type: ignore[union-attr]
            time.sleep(0.1)
        assert rel.get_release(store, tag).status == rel.LIVE  # type: ignore[union-attr]
    finally:
        worker.stop()
        thread.join(timeout=30)
        bus.close()
        store.close()
