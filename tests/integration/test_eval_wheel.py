"""A wheel built from the checkout, installed into a fresh virtual environment, runs `livetab eval --model
gguf:PATH --limit 5` on the bundled sample from outside the checkout.

Offline: the wheel is built with `pip wheel --no-deps --no-build-isolation` and installed with `--no-deps
--no-index`; the fresh venv reaches the pinned dependencies of this test's own environment through a .pth
file (PyPI cannot be reached from tests), so what is checked is the wheel itself — its modules, entry points
(`livetab`, the services, the report writer), package data and the bundled sample under share/livetab — and its
declared dependencies and extras, not their resolution from an index.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.model
@pytest.mark.slow
def test_a_wheel_in_a_fresh_venv_evaluates_a_gguf(tmp_path: Path) -> None:
    from livetab.models.bundled import locate

    dist = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(dist),
                    str(ROOT)], check=True, capture_output=True, timeout=600)
    (wheel,) = dist.glob("livetab-*.whl")
    with zipfile.ZipFile(wheel) as z:
        meta = z.read(next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))).decode()
        names = z.namelist()
    for extra in ("kafka", "llama", "web", "dev"):
        assert f"Provides-Extra: {extra}" in meta
    assert "Requires-Dist: llama-cpp-python" in meta and "Requires-Dist: pydantic" in meta
    assert any(n.endswith("share/livetab/deploy/demo.yaml") for n in names)

    venv = tmp_path / "venv"
    subprocess.run([Path(sys.base_prefix) / "bin" / "python3", "-m", "venv", str(venv)], check=True, timeout=300)
    python = venv / "bin" / "python"
    purelib = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    Path(purelib, "_livetab_test_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run([python, "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)], check=True,
                   capture_output=True, timeout=300)
    where = subprocess.run([python, "-c", "import livetab; print(livetab.__file__)"], capture_output=True, text=True,
                           check=True, cwd=tmp_path).stdout
    assert where.startswith(purelib)  # the wheel's copy, not the checkout's

    out = tmp_path / "out"
    proc = subprocess.run([venv / "bin" / "livetab", "eval", "--model", f"gguf:{locate('smollm2-135m')}", "--limit",
                           "5", "--model-args", "max_tokens=16", "--output", str(out)], capture_output=True, text=True,
                          timeout=900, cwd=tmp_path, env={**os.environ, "LIVETAB_CACHE": str(tmp_path / "cache")})
    assert proc.returncode == 0, proc.stderr
    doc = json.loads((out / "leaderboard.json").read_text(encoding="utf-8"))
    assert doc["models"][0]["n"] == 5 and doc["models"][0]["errors"] == 0
    rows = [json.loads(x) for x in (out / "samples.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 5 and all(r["verdict"] and r["response"] for r in rows)
