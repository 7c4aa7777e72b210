"""A release frozen while generation goes on: the services run embedded over the in-process bus (the same
handlers as over Kafka), a first batch of pages is generated, the release is frozen, a second batch is
scraped into the same release name. The later questions join no release (each is recorded as late), the
frozen set and its manifest hash do not move, and after every service is restarted on the same store the
hash is the same and the release is published and planned over exactly the frozen set."""

from __future__ import annotations

from pathlib import Path

import yaml
from livetab import topics
from livetab.ids import content_id
from livetab.releases import FROZEN, LIVE, frozen_questions, get_release, manifest_hash
from livetab.runtime.embedded import Embedded
from livetab.settings import load_settings
from livetab.store import schema
from livetab.v1 import table_pb2
from livetab_api.releases import release_command

from tests.support.sample import sample_pages

FIRST, LATER = ["203-733", "203-278"], ["203-831"]


def _scrape(services: Embedded, folder: Path) -> None:
    cmd = table_pb2.ScrapeCommand(id=content_id("scrape", str(folder)), source="local_html", location=str(folder),
                                  release="fresh", language="en")
    services.publish(topics.SCRAPES, cmd, key=cmd.id, message_id=cmd.id)


def _command(services: Embedded, action: str) -> None:
    cmd = release_command("fresh", action, by="test")
    services.publish(topics.RELEASE_COMMANDS, cmd, key=cmd.release, message_id=cmd.id)


def test_frozen_release_takes_no_later_question_and_keeps_its_hash_across_a_restart(tmp_path: Path) -> None:
    cfg = tmp_path / "c.yaml"
    cfg.write_text(yaml.safe_dump({
        "out_dir": str(tmp_path / "out"), "store": {"url": f"sqlite:///{tmp_path / 's.db'}"},
        "models": [{"name": "oracle", "backend": "scripted", "params": {"policy": "oracle"}}],
        "qagen": {"families": ["direct", "reasoning"], "per_table": 3}, "run": {"release": "fresh"}}))
    settings = load_settings(cfg, env={})
    services = Embedded(settings)
    _scrape(services, sample_pages(tmp_path / "first", FIRST))
    services.drive()
    _command(services, "freeze")
    services.drive()
    frozen = get_release(services.store, "fresh")
    members = set(frozen_questions(services.store, "fresh"))
    assert frozen is not None and frozen.status == FROZEN and len(members) >= 4
    assert frozen.manifest_hash == manifest_hash(members)

    _scrape(services, sample_pages(tmp_path / "later", LATER))  # generation goes on after the freeze
    services.drive()
    later = {r["id"] for r in services.store.select(schema.questions, release="fresh")} - members
    assert later, "the later pages should give questions"
    late = {f["entity"] for f in services.store.select(schema.failures, stage="release")}
    verified_later = {r["id"] for r in services.store.select(schema.questions, release="fresh", status="verified")} - members
    assert verified_later and verified_later <= late  # each later question recorded as late, with its reason
    assert set(frozen_questions(services.store, "fresh")) == members
    services.close()

    restarted = Embedded(settings)  # every service again, on the same store
    again = get_release(restarted.store, "fresh")
    assert again is not None and again.manifest_hash == frozen.manifest_hash
    _command(restarted, "publish")
    restarted.drive()
    live = get_release(restarted.store, "fresh")
    assert live is not None and live.status == LIVE and live.manifest_hash == frozen.manifest_hash
    from livetab_cli.embedded import run_messages

    (run,) = run_messages(settings)
    restarted.publish(topics.RUNS, run, key=run.id, message_id=run.id)
    restarted.drive(only=("api",))
    planned = {r.question_id for r in _requests(restarted)}
    assert planned == members  # exactly the frozen set: no later question is ever asked
    restarted.close()


def _requests(services: Embedded) -> list:  # type: ignore[type-arg]
    from livetab.v1 import inference_pb2

    return [inference_pb2.InferenceRequest.FromString(r.value) for r in services.bus.records(topics.INFERENCE_REQUESTS)]
