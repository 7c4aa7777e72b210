"""The package layering, checked on the source: services never import the CLI, `shared/` imports no service
(nor the CLI), and no product code spells a topic name outside the topic registry.

Static (the `import` statements and string constants of every module), so it holds for code paths no test
happens to run; tests and benchmarks may import anything, but the benchmarks too take topic names from the
registry."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from livetab import topics
from livetab.runtime import declared

ROOT = Path(__file__).resolve().parents[1]
SERVICE_PACKAGES = {f"livetab_{s}" for s in topics.SERVICES}
TOPIC_NAME = re.compile(r"^livetab\.[a-z0-9.-]+\.v1$")


def _product_modules(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.py") if "tests" not in p.relative_to(ROOT).parts
                  and "v1" not in p.relative_to(ROOT).parts)


def _imports(path: Path) -> set[str]:
    """Top-level package of every module `path` imports (at any depth of the file: lazy imports count)."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            out.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module.split(".")[0])
    return out


def _topic_literals(path: Path) -> list[tuple[int, str]]:
    return [(n.lineno, n.value) for n in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and TOPIC_NAME.match(n.value)]


def _service_modules() -> list[Path]:
    return [p for s in topics.SERVICES for p in _product_modules(ROOT / "services" / s)]


def test_the_folders_exist() -> None:  # the checks below would pass vacuously on a moved tree
    assert len(_product_modules(ROOT / "shared" / "livetab")) > 30
    assert len(_service_modules()) > 60
    assert len(_product_modules(ROOT / "cli")) > 5


@pytest.mark.parametrize("path", _service_modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_service_imports_the_cli(path: Path) -> None:
    assert "livetab_cli" not in _imports(path)


@pytest.mark.parametrize("path", _product_modules(ROOT / "shared" / "livetab"), ids=lambda p: str(p.relative_to(ROOT)))
def test_shared_imports_no_service_and_not_the_cli(path: Path) -> None:
    assert not _imports(path) & (SERVICE_PACKAGES | {"livetab_cli"})


def test_no_topic_name_outside_the_registry() -> None:
    registry = ROOT / "shared" / "livetab" / "topics.py"
    found = [f"{p.relative_to(ROOT)}:{line}: {name}"
             for folder in ("shared/livetab", "services", "cli", "bench")
             for p in _product_modules(ROOT / folder) if p != registry
             for line, name in _topic_literals(p)]
    assert found == []
    assert len(_topic_literals(registry)) >= len(topics.TOPICS)  # the check can see a literal where there is one


def test_every_service_is_declared_and_its_handlers_consume_only_its_topics() -> None:
    """Each service of the registry has a declaration the runtime can start; every topic a service
    consumes in the registry is read by one of its handlers (none is published into the void)."""
    from livetab.runtime import Build
    from livetab.settings import Settings

    services = declared()
    assert set(services) == set(topics.SERVICES)
    for name, svc in services.items():
        handlers = svc.build(Build(Settings()))  # raises when a handler reads another service's topic
        read = {t for h in handlers for t in h.topics}
        assert read == set(svc.consumes), (name, read, svc.consumes)


def test_an_evaluation_command_imports_neither_the_kafka_client_nor_alembic_nor_aiohttp() -> None:
    """`livetab eval` runs embedded on an up-to-date store: the Kafka client (~0.16 s to import) and Alembic
    (~0.13 s) are for distributed mode and for migrations, and are imported only there; aiohttp (~0.13 s) is
    a test and bench dependency, not the OpenAI backend's (livetab.models.http1)."""
    import subprocess
    import sys

    probe = ("import sys; import livetab.evaluate_api, livetab.store, livetab.runtime.embedded; "
             "import livetab.models.openai_compat, livetab.models.probe, livetab_inference.service; "
             "from livetab_cli.main import main; main(['list', 'families']); "
             "print(sorted({m.split('.')[0] for m in sys.modules} & {'kafka', 'alembic', 'aiohttp'}))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "[]", out.stderr
