"""The source registry, the GSM8K pass-through and the local_html source over the shared real pages."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
from livetab.gsm8k import MathProblem
from livetab.paths import shared_data
from livetab.settings import SourceSettings
from livetab_scraper.sources import (
    Failure,
    Fetched,
    Source,
    SourceConfigError,
    available_sources,
    build_source,
    read_gsm8k,
    summarize,
)

PAGES = shared_data() / "wiki_html" / "pages"


def test_every_builtin_source_is_registered_and_satisfies_the_protocol(tmp_path: Path) -> None:
    assert {"wikipedia", "local_html", "local_csv", "local_files", "gsm8k"} <= set(available_sources())
    configs = [{"kind": "local_html", "location": str(PAGES)}, {"kind": "local_csv", "location": str(tmp_path)},
               {"kind": "gsm8k"}, {"kind": "wikipedia", "since": "2026-10-01", "contact": "a@b.c"}]
    for cfg in configs:
        assert isinstance(build_source(cfg), Source)


def test_settings_shape_with_string_options_builds_a_source() -> None:
    settings = SourceSettings(kind="local_html", location=str(PAGES), language="en", options={"limit": "3"})
    items = list(build_source(settings.model_dump()).fetch())
    assert len(items) == 3 and all(isinstance(i, Fetched) for i in items)


def test_unknown_kinds_and_bad_options_are_named() -> None:
    with pytest.raises(SourceConfigError, match="unknown source kind 'ftp'"):
        build_source({"kind": "ftp"})
    with pytest.raises(SourceConfigError, match="needs 'kind'"):
        build_source({"location": "x"})
    with pytest.raises(SourceConfigError, match="setting 'limit'"):
        build_source({"kind": "gsm8k", "limit": "many"})


# ------------------------------------------------------------------ local_html


def test_local_html_passes_the_fifty_real_pages_with_their_sidecar_metadata() -> None:
    items = list(build_source({"kind": "local_html", "location": str(PAGES)}).fetch())
    assert len(items) == 50 and all(isinstance(i, Fetched) for i in items)
    first = items[0]
    assert isinstance(first, Fetched)
    side = json.loads((PAGES / f"{Path(first.extra['file']).stem}.json").read_text())
    assert first.meta.title == side["title"] and first.meta.revision == str(side["revision"])
    assert first.meta.table_index == side["tableIndex"] and first.meta.uri == side["url"]
    assert first.meta.licence == "CC BY-SA 4.0" and first.html and "<table" in first.html
    assert first.meta.created_at == "", "a copied page's file time is not its creation date"


def test_local_html_bad_pages_are_failures_and_bad_sidecars_notes(tmp_path: Path) -> None:
    (tmp_path / "a.html").write_text("<table class='wikitable'><tr><th>x</th></tr><tr><td>1</td></tr></table>")
    (tmp_path / "a.json").write_text("{broken")
    (tmp_path / "b.html").write_text("   ")
    (tmp_path / "c.html").write_bytes(b"\x00\x00\xff\xfe\x00 binary")
    items = list(build_source({"kind": "local_html", "location": str(tmp_path)}).fetch())
    a, b, c = items
    assert isinstance(a, Fetched) and any("sidecar a.json is unreadable" in n for n in a.notes)
    assert isinstance(b, Failure) and "empty" in b.reason
    assert isinstance(c, Failure) and "binary" in c.reason
    assert summarize(items) == {"fetched": 1, "tables": 0, "failures": 2, "not_fresh": 0}


# ------------------------------------------------------------------ GSM8K


def test_gsm8k_sample_reads_into_typed_problems() -> None:
    problems, failures = read_gsm8k()
    assert len(problems) == 300 and failures == []
    assert len({p.id for p in problems}) == 300
    robe = next(p for p in problems if p.id == "gsm8k-1")
    assert robe == MathProblem(id="gsm8k-1", question=robe.question, answer_text=robe.answer_text, final_answer="3",
                               index=1)
    assert robe.question.startswith("A robe takes 2 bolts")
    assert robe.answer_text.endswith("#### 3")
    for p in problems:  # the final answer is the number after ####, checked, not copied blindly
        assert Fraction(p.answer_text.rsplit("####", 1)[1].strip().replace(",", "")) == p.final_value


def test_gsm8k_bad_lines_are_failures_with_line_numbers(tmp_path: Path) -> None:
    p = tmp_path / "p.jsonl"
    good = {"question": "2+2?", "answer": "2+2=4\n#### 4"}
    p.write_text("\n".join([
        json.dumps(good),
        "{not json",
        json.dumps({"question": "q", "answer": "no marker"}),
        json.dumps({"question": "q", "answer": "x\n#### 5", "final_answer": "6"}),
        json.dumps({"question": "q", "answer": "x\n#### many"}),
        json.dumps(["a list"]),
        json.dumps({"question": "big", "answer": "x\n#### 10,800"}),
    ]) + "\n")
    problems, failures = read_gsm8k(p)
    assert [q.final_answer for q in problems] == ["4", "10,800"]
    assert problems[1].final_value == 10800
    assert [f.location.rsplit(":", 1)[1] for f in failures] == ["2", "3", "4", "5", "6"]
    reasons = " | ".join(f.reason for f in failures)
    assert "not valid JSON" in reasons and "no final answer" in reasons and "disagrees" in reasons
    assert "not a number" in reasons and "not a JSON object" in reasons


def test_gsm8k_source_yields_problems_with_licence() -> None:
    items = list(build_source({"kind": "gsm8k", "limit": 5}).fetch())
    assert len(items) == 5
    first = items[0]
    assert isinstance(first, Fetched) and first.kind == "math" and first.problem is not None
    assert first.meta.licence == "MIT" and "grade-school-math" in first.meta.attribution


def test_gsm8k_missing_file_is_a_failure(tmp_path: Path) -> None:
    items = list(build_source({"kind": "gsm8k", "location": str(tmp_path / "none.jsonl")}).fetch())
    assert len(items) == 1 and isinstance(items[0], Failure) and "cannot open" in items[0].reason
