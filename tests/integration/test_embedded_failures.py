"""Bad input in an embedded cycle: each failure is recorded with its reason, shown in the summary and
the report, and the cycle goes on."""

from __future__ import annotations

import json
import socket
import threading
from pathlib import Path

import jsonschema
import livetab_qagen.programmatic as programmatic
import pytest
import yaml
from livetab.settings import load_settings
from livetab.store import open_store, schema
from livetab_cli.embedded import run_embedded
from livetab_reporter.document import load_schema

from tests.support.sample import sample_pages


@pytest.fixture
def hanging_endpoint():
    """A TCP server that accepts connections and never answers: every model call must time out."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(64)
    conns = []
    stop = threading.Event()

    def accept() -> None:
        srv.settimeout(0.2)
        while not stop.is_set():
            try:
                conns.append(srv.accept()[0])
            except OSError:
                continue

    t = threading.Thread(target=accept, daemon=True)
    t.start()
    yield f"http://127.0.0.1:{srv.getsockname()[1]}/v1"
    stop.set()
    t.join(2)
    for c in conns:
        c.close()
    srv.close()


def test_failures_are_recorded_and_the_cycle_goes_on(tmp_path: Path, hanging_endpoint: str, monkeypatch) -> None:
    pages = sample_pages(tmp_path / "pages", ["203-733", "203-278", "203-647"])
    (pages / "broken.html").write_text('<html><body><table class="wikitable"><tr><th colspan="x">A<th>B'
                                       '<tr><td rowspan="999999">1</td><td>', encoding="utf-8")
    (pages / "latin1.html").write_bytes("<p>caf\xe9 \xff\xfe</p>".encode("latin-1"))
    (pages / "latin1.json").write_text(json.dumps({"title": "not utf-8"}))

    real_generate = programmatic.generate
    broken_table: list[str] = []

    def generate(table, **kw):  # one table's generator blows up (e.g. a derivation bug); the rest go on
        if not broken_table:
            broken_table.append(table.id)
            raise ZeroDivisionError("derivation divided by zero")
        return real_generate(table, **kw)

    monkeypatch.setattr(programmatic, "generate", generate)
    cfg = {
        "out_dir": str(tmp_path / "out"),
        "store": {"url": f"sqlite:///{tmp_path / 'f.db'}"},
        "sources": [{"kind": "local_html", "location": str(pages)}],
        "models": [{"name": "hangs", "backend": "openai", "base_url": hanging_endpoint, "model": "x",
                    "timeout_s": 1.5, "params": {"max_attempts": "1", "timeout_s": "1"}}],
        "qagen": {"families": ["direct", "reasoning"], "per_table": 2},
        "run": {"release": "f", "max_tokens": 8},
    }
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(cfg))
    summary = run_embedded(load_settings(path, env={}))

    store = open_store(cfg["store"]["url"])
    failures = store.select(schema.failures)
    reasons = [(f["stage"], f["entity"], f["reason"]) for f in failures]
    assert any(stage == "scraper" and "broken.html" in entity for stage, entity, _ in reasons), reasons
    assert any(stage == "scraper" and "latin1.html" in entity for stage, entity, _ in reasons), reasons
    assert any(stage == "qagen" and "ZeroDivisionError" in reason for stage, _, reason in reasons), reasons
    # the other tables went on: questions were generated and every one was asked and judged
    n_questions = store.count(schema.questions)
    assert n_questions >= 2
    judgments = store.select(schema.judgments)
    assert len(judgments) == n_questions
    assert all(j["verdict"] == "error" for j in judgments)
    results = store.select(schema.results)
    assert all("timeout" in r["error"] or "timed out" in r["error"].lower() for r in results), [r["error"] for r in results]
    # shown in the summary and in the report
    assert len(summary.failures) == len(failures)
    md = (tmp_path / "out" / "leaderboard.md").read_text()
    assert "ZeroDivisionError" in md and "broken.html" in md
    doc = json.loads((tmp_path / "out" / "leaderboard.json").read_text())
    assert doc["models"][0]["n"] == n_questions and doc["models"][0]["correct"] == 0
    jsonschema.Draft202012Validator(load_schema()).validate(doc)
    assert doc["models"][0]["errors"] == n_questions and doc["models"][0]["mean_latency_ms"] is None
