"""Pages of the bundled sample (deploy/sample/wiki), copied into a test's own folder."""

from __future__ import annotations

import shutil
from pathlib import Path

__all__ = ["ROOT", "sample_pages"]

ROOT = Path(__file__).resolve().parents[2]


def sample_pages(folder: Path, pages: list[str]) -> Path:
    """Copy these sample pages (`<id>.html` and their `<id>.json` sidecars) into `folder`; returns it."""
    folder.mkdir(parents=True, exist_ok=True)
    for p in pages:
        for ext in (".html", ".json"):
            shutil.copy(ROOT / "deploy" / "sample" / "wiki" / f"{p}{ext}", folder / f"{p}{ext}")
    return folder
