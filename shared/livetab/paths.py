"""Where things are: the repository root, the shared data beside it, the bundled sample, outputs."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["repo_root", "sample_dir", "shared_data"]


def repo_root() -> Path:
    return Path(__file__).resolve().parents[2]


def shared_data() -> Path:
    """The public data set beside the checkout (`../shared/data`), or `LIVETAB_SHARED_DATA`."""
    env = os.environ.get("LIVETAB_SHARED_DATA")
    return Path(env) if env else (repo_root().parent / "shared" / "data").resolve()


def sample_dir() -> Path:
    """The small offline sample of real Wikipedia pages shipped with livetab (see its NOTICE)."""
    return repo_root() / "deploy" / "sample"
