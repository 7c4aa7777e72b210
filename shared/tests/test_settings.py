from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from livetab.settings import ConfigError, JudgeSettings, KafkaSettings, ModelSettings, Settings, load_settings


def test_yaml_and_environment_overrides(tmp_path: Path) -> None:
    cfg = tmp_path / "c.yaml"
    cfg.write_text("run:\n  release: r1\n  samples: 2\nkafka:\n  bootstrap_servers: a:1\n")
    s = load_settings(cfg, env={"LIVETAB_RUN__SAMPLES": "4", "LIVETAB_STORE__URL": "sqlite:///x.db"})
    assert s.run.release == "r1" and s.run.samples == 4
    assert s.store.url == "sqlite:///x.db" and s.kafka.bootstrap_servers == "a:1"


def test_knowledge_cutoff_is_an_iso_date_carried_on_the_model_spec(tmp_path: Path) -> None:
    from livetab.models.spec import model_spec

    cfg = tmp_path / "c.yaml"
    cfg.write_text("models:\n  - name: m\n    backend: openai\n    knowledge_cutoff: '2024-06-30'\n")
    [m] = load_settings(cfg, env={}).models
    assert model_spec(m).knowledge_cutoff == "2024-06-30"
    cfg.write_text("models:\n  - name: m\n    knowledge_cutoff: June 2024\n")
    with pytest.raises(ConfigError, match="knowledge_cutoff"):
        load_settings(cfg, env={})


def test_the_judge_and_the_reporter_take_larger_batches_than_the_other_batch_workers(tmp_path: Path) -> None:
    """`kafka.batch_records`: the messages a batch worker takes per poll, by service; the others take
    `max_poll_records`. A name that is no service, or a size out of bounds, is refused at start-up."""
    from livetab.bus import HandlerContext, InProcBus
    from livetab.runtime.workers import worker_for

    class Batch:
        topics = ["livetab.inference.results.v1"]

        def __init__(self, service: str) -> None:
            self.service = service

        def handle_batch(self, messages: list[object], ctx: HandlerContext) -> list[object]:
            return []

    s = load_settings(None, env={"LIVETAB_KAFKA__MAX_POLL_RECORDS": "150"})
    sizes = {svc: worker_for(Batch(svc), InProcBus(), HandlerContext(store=None, settings=s), s).max_records
             for svc in ("judge", "reporter", "qagen", "scraper")}
    assert sizes == {"judge": 2000, "reporter": 2000, "qagen": 150, "scraper": 150}
    # a judge that asks a model (LLM judges, an insight judge) takes at most `judge.llm_batch_records`: an answer may
    # cost model calls, and a batch must end within the consumer's poll interval; a smaller batch stays the smaller
    llm = ModelSettings(name="a", backend="openai", base_url="http://127.0.0.1:9")
    for judge in (JudgeSettings(llm_judges=[llm]), JudgeSettings(insight_judge=llm)):
        for over, want in (({}, 600), ({"llm_batch_records": 50}, 50)):
            s = Settings(judge=judge.model_copy(update=over))
            assert worker_for(Batch("judge"), InProcBus(), HandlerContext(store=None, settings=s), s).max_records == want
            assert worker_for(Batch("reporter"), InProcBus(), HandlerContext(store=None, settings=s), s).max_records == 2000
        s = Settings(judge=judge, kafka=KafkaSettings(batch_records={"judge": 300}))
        assert worker_for(Batch("judge"), InProcBus(), HandlerContext(store=None, settings=s), s).max_records == 300
    assert not JudgeSettings().asks_models()
    s = load_settings(None, env={"LIVETAB_KAFKA__BATCH_RECORDS": "{judge: 40}"})
    assert worker_for(Batch("reporter"), InProcBus(), HandlerContext(store=None, settings=s), s).max_records == 200
    for bad, needle in (("{jugde: 5}", "'jugde' is not a service"), ("{judge: 0}", "judge 0 is not within")):
        with pytest.raises(ConfigError, match=needle):
            load_settings(None, env={"LIVETAB_KAFKA__BATCH_RECORDS": bad})


@pytest.mark.parametrize("text, needle", [
    ("runn:\n  release: x\n", "unknown setting 'runn'"),
    ("run:\n  samples: many\n", "setting 'run.samples'"),
    ("kafka: [1, 2]\n", "setting 'kafka'"),
    ("a: [\n", "not valid YAML"),
])
def test_bad_settings_name_the_problem(tmp_path: Path, text: str, needle: str) -> None:
    cfg = tmp_path / "c.yaml"
    cfg.write_text(text)
    with pytest.raises(ConfigError, match=needle.replace("[", r"\[").replace(".", r"\.")):
        load_settings(cfg, env={})


def _serve(tmp_path: Path, service: str, yaml_text: str) -> subprocess.CompletedProcess[str]:
    cfg = tmp_path / "c.yaml"
    cfg.write_text(yaml_text)
    return subprocess.run([sys.executable, "-m", "livetab_cli.main", "serve", service, "--config", str(cfg)],
                          capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("service, yaml_text, needle", [
    ("judge", "store:\n  url: sqlite:///{tmp}/x.db\n  pool: 3\n", "unknown setting 'store.pool'"),
    ("judge", "store:\n  url: sqlite:///{tmp}/x.db\nkafka:\n  bootstrap_servers: 127.0.0.1:1\n  connect_timeout_s: 1\n",
     "no Kafka broker answers at '127.0.0.1:1'"),
    ("qagen", "store:\n  url: mysql://u:pw@127.0.0.1:1/x\n", "unsupported database 'mysql'"),
    ("qagen", "store:\n  url: 'postgresql://u:secret@127.0.0.1:1/x'\n", "cannot reach the database"),
])
def test_bad_configuration_stops_a_service_with_one_clear_line(tmp_path: Path, service: str, yaml_text: str,
                                                               needle: str) -> None:
    proc = _serve(tmp_path, service, yaml_text.replace("{tmp}", str(tmp_path)))
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    lines = [line for line in proc.stderr.splitlines() if "configuration error" in line]
    assert len(lines) == 1 and needle in lines[0], proc.stderr
    assert proc.stderr.strip().splitlines() == lines, proc.stderr  # the one line, not a client's retry log
    assert "secret" not in proc.stderr
