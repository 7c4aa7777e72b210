"""Installing a bundled model: the joined file is kept only when its size and sha256 match the pins.

The same code path as `deploy/install.sh` (`livetab.models.bundled.assemble_verified`), on small temporary
files instead of the 253 MB Gemma GGUF.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from livetab.models import bundled
from livetab.models.base import ModelError
from livetab.models.bundled import BUNDLED, assemble_verified, locate

CHUNKS = [b"GGUF" + bytes(range(256)) * 3, b"second chunk " * 50, b"tail"]
WHOLE = b"".join(CHUNKS)
SHA = hashlib.sha256(WHOLE).hexdigest()


def _joiner(chunks: list[bytes], calls: list[Path]):  # type: ignore[no-untyped-def]
    def join(tmp: Path) -> None:
        calls.append(tmp)
        with tmp.open("wb") as f:
            for c in chunks:
                f.write(c)
    return join


def test_matching_file_is_installed_once_and_kept(tmp_path: Path) -> None:
    target = tmp_path / "models" / "m.gguf"
    calls: list[Path] = []
    assert assemble_verified(_joiner(CHUNKS, calls), target, len(WHOLE), SHA) == target
    assert target.read_bytes() == WHOLE and len(calls) == 1 and calls[0] != target
    assemble_verified(_joiner(CHUNKS, calls), target, len(WHOLE), SHA)  # idempotent: nothing joined again
    assert len(calls) == 1
    assert sorted(p.name for p in target.parent.iterdir()) == ["m.gguf"]


@pytest.mark.parametrize("chunks", [
    [CHUNKS[0], CHUNKS[1][:-1] + b"X", CHUNKS[2]],  # one byte flipped: same size, other hash
    CHUNKS[:2],  # a chunk missing: wrong size
])
def test_corrupted_file_is_rejected_and_never_left_in_place(tmp_path: Path, chunks: list[bytes]) -> None:
    target = tmp_path / "m.gguf"
    with pytest.raises(ModelError, match=r"sha256|bytes"):
        assemble_verified(_joiner(chunks, []), target, len(WHOLE), SHA)
    assert list(tmp_path.iterdir()) == []  # neither the target nor the partial file


def test_a_corrupted_cached_file_is_replaced(tmp_path: Path) -> None:
    target = tmp_path / "m.gguf"
    target.write_bytes(WHOLE[:-1] + b"?")
    calls: list[Path] = []
    assemble_verified(_joiner(CHUNKS, calls), target, len(WHOLE), SHA)
    assert len(calls) == 1 and target.read_bytes() == WHOLE


def test_locate_checks_the_cached_file_and_says_how_to_install(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LIVETAB_CACHE", str(tmp_path))
    with pytest.raises(ModelError, match=r"install\.sh"):
        locate("gemma3-270m")
    gguf = tmp_path / "models" / BUNDLED["gemma3-270m"].file
    gguf.parent.mkdir()
    gguf.write_bytes(b"not the model")
    with pytest.raises(ModelError, match="13 bytes"):
        locate("gemma3-270m")
    with pytest.raises(ModelError, match="unknown bundled model"):
        locate("gpt-5")
    assert bundled.main(["install", "nope"]) == 2

