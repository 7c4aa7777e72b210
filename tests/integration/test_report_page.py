"""report.html and the release export over a real embedded cycle: real sample tables, generated and verified
questions, the real rule judge and reporter. The models are the project's scripted oracle for most questions
(anti-oracle for the rest) — the worst case for privacy, since every correct response discloses a gold answer.

- no public file of a live release (everything under OUT_DIR but private/) holds a question text or a
  distinctive gold answer, while the operator's private report holds them (so the search would find them);
- the page renders in headless Chromium: its figures load with a nonzero size and its labels are there
  (a screenshot is kept under out/test-report/);
- a retired release exported in JSONL and Parquet loads with `datasets` and pandas, turns back into the
  stored questions and tables byte for byte, and its results give back the leaderboard's scores."""

from __future__ import annotations

import asyncio
import html
import json
import re
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from livetab.ids import content_id
from livetab.metrics import wilson_interval
from livetab.models.base import Completion, GenerateRequest
from livetab.models.scripted import prompt_text, scripted_answer
from livetab.settings import Settings, load_settings
from livetab.store import open_store, schema
from livetab.v1 import question_pb2, table_pb2
from livetab_cli.embedded import export_release, run_embedded
from livetab_reporter.export import question_from_row, read_rows, table_from_row

from tests.support.browser import look_at
from tests.support.sample import ROOT, sample_pages

pytestmark = [pytest.mark.slow]

PAGES = sorted(p.stem for p in (ROOT / "deploy" / "sample" / "wiki").glob("*.html"))  # all 15
MODELS = {"oracle-4-of-5": 4, "oracle-1-of-5": 1}  # the oracle for k of 5 questions, the anti-oracle otherwise


class MostlyOracle:
    """The project's scripted oracle for `k` of every 5 questions (by question id) and its anti-oracle for the
    rest (livetab.models.scripted: real phrasings, options by the letter the prompt showed), so accuracy is
    mixed and every correct response carries its gold answer. Prompt tokens are counted as the prompt's
    whitespace-separated words (the scripted model reports none), for the complexity figure."""

    def __init__(self, name: str, k: int) -> None:
        self.name, self.k = name, k

    async def generate(self, request: GenerateRequest) -> list[Completion]:
        t0 = time.perf_counter()
        q = request.question
        assert q is not None, "the inference handler passes the question to in-process backends"
        shown = prompt_text(request.messages)
        policy = "oracle" if int(content_id("pick", q.id)[-4:], 16) % 5 < self.k else "anti_oracle"
        text = scripted_answer(q, request.table, policy=policy, phrasing="rotate", seed=request.sampling.seed,
                               shown=shown)
        await asyncio.sleep(0)
        return [Completion(text=text, prompt_tokens=len(shown.split()), completion_tokens=len(text.split()),
                           latency_ms=(time.perf_counter() - t0) * 1000)]


def _settings(tmp: Path, **extra: Any) -> Settings:
    pages = sample_pages(tmp / "pages", PAGES)
    cfg = {"out_dir": str(tmp / "out"), "store": {"url": f"sqlite:///{tmp / 'store.db'}"},
           "sources": [{"kind": "local_html", "location": str(pages)},
                       {"kind": "gsm8k", "location": str(ROOT / "deploy" / "sample" / "gsm8k" / "problems.jsonl")}],
           "models": [{"name": n, "backend": "openai", "base_url": "http://127.0.0.1:9/v1"} for n in MODELS],
           "qagen": {"families": ["direct", "reasoning", "fact", "mcq"], "per_table": 4},
           "run": {"release": "r-live", "formats": ["markdown", "csv"], "max_rows": 25}, **extra}
    path = tmp / "config.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return load_settings(path, env={})


@pytest.fixture(scope="module")
def cycle(tmp_path_factory: pytest.TempPathFactory) -> tuple[Settings, Path]:
    tmp = tmp_path_factory.mktemp("page")
    settings = _settings(tmp)
    backends = {n: MostlyOracle(n, k) for n, k in MODELS.items()}
    run_embedded(settings, backends=backends)  # type: ignore[arg-type]
    return settings, tmp / "out"


def _questions(settings: Settings) -> list[question_pb2.Question]:
    store = open_store(settings.store.url)
    rows = store.select(schema.questions, release=settings.run.release)
    store.close()
    return [question_pb2.Question.FromString(r["payload"]) for r in rows]


def _text(path: Path) -> str:
    if path.suffix == ".parquet":
        return json.dumps(read_rows(path), ensure_ascii=False)
    if path.suffix == ".png":
        return path.read_bytes().decode("latin-1")  # no text chunks expected; searched all the same
    return path.read_text(encoding="utf-8")


def _distinctive(gold: str) -> bool:
    """A gold answer that cannot turn up in a report by chance (a count, a year, a hex id): has a letter,
    4+ characters, and is not a label every report prints."""
    return len(gold) >= 4 and bool(re.search(r"[^\W\d_]", gold)) and gold.lower() not in {
        "true", "false", "none", "yes", "no"}


def _found(needle: str, text: str) -> bool:
    return re.search(rf"(?<![\w]){re.escape(needle)}(?![\w])", text, flags=re.IGNORECASE) is not None


def test_public_files_of_a_live_release_hold_no_question_and_no_gold(cycle: tuple[Settings, Path]) -> None:
    settings, out = cycle
    qs = _questions(settings)
    texts = sorted({q.text for q in qs if len(q.text) >= 12})
    golds = sorted({q.gold.text for q in qs if _distinctive(q.gold.text)})
    assert len(texts) >= 40 and len(golds) >= 10, (len(texts), len(golds))
    public = [p for p in out.rglob("*") if p.is_file() and "private" not in p.relative_to(out).parts]
    names = {str(p.relative_to(out)) for p in public}
    assert {"leaderboard.json", "leaderboard.md", "report.html", "release/README.md", "release/results.jsonl",
            "release/results.parquet", "plots/ranking.svg"} <= names, names
    assert not any(n.endswith(".png") for n in names), names  # the figures are SVG, inline on the page too
    assert not {"release/questions.jsonl", "release/tables.jsonl", "release/questions.parquet"} & names
    for p in public:
        text = _text(p)
        leaked = [t for t in texts if t in text] + [g for g in golds if _found(g, text)]
        assert not leaked, f"{p.relative_to(out)} discloses {leaked[:3]}"
    # the search does find them where they belong: the operator's private report and private release copy
    private = html.unescape((out / "private" / "report.html").read_text(encoding="utf-8"))
    assert sum(_found(g, private) for g in golds) >= 0.8 * len(golds)
    assert any(t in private for t in texts)
    assert len((out / "private" / "release" / "questions.jsonl").read_text().splitlines()) == len(qs)
    doc = json.loads((out / "leaderboard.json").read_text())
    assert doc["public"] is False and [m["model"] for m in doc["models"]] == list(MODELS)  # ranked by accuracy


def test_page_renders_in_headless_chromium(cycle: tuple[Settings, Path]) -> None:
    _, out = cycle
    shot = ROOT / "out" / "test-report" / "report.png"
    found, dom = look_at(out / "report.html", shot)
    assert shot.stat().st_size > 20_000
    figs = found["figs"]
    assert len(figs) >= 4, figs
    assert all(w > 200 and h > 100 and shown > 200 and texts >= 8 for _, w, h, shown, texts in figs), figs
    assert {"Accuracy per model", "Accuracy by skill", "Accuracy by format", "Accuracy vs table complexity"} <= {
        label for label, *_ in figs}
    assert {"Ranking", "Figures", "Breakdowns"} <= set(found["h2"]) and any(h.startswith("Answers") for h in found["h2"])
    assert {"family", "skill", "format", "scope"} <= set(found["slices"])
    for name in MODELS:
        assert name in dom
    svg = (out / "plots" / "by_skill.svg").read_text()
    assert "accuracy (95% Wilson interval)" in svg and "skill" in svg  # labels are text, not paths


def test_retired_release_exports_reload_and_reimport(cycle: tuple[Settings, Path], tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # local files only: no test needs the network
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    import datasets
    import pandas as pd

    settings, out = cycle
    retired = settings.model_copy(update={"releases": settings.releases.model_copy(
        update={"retired": [settings.run.release]})})
    store = open_store(settings.store.url)
    runs = [r["id"] for r in store.select(schema.runs, release=settings.run.release)]
    folder = tmp_path / "release"
    families = export_release(store, retired, folder, run_ids=runs)
    stored_q = {r["id"]: r["payload"] for r in store.select(schema.questions, release=settings.run.release)}
    stored_t = {r["id"]: r["payload"] for r in store.select(schema.tables, release=settings.run.release)}
    store.close()
    assert sum(families.values()) == len(stored_q)
    card = (folder / "README.md").read_text()
    header = yaml.safe_load(card.split("---")[1])
    assert header["license"] == ["cc-by-sa-4.0", "mit"] and header["language"] == ["en"]
    assert header["size_categories"] == ["n<1K"] and "table-question-answering" in header["task_categories"]
    assert "## Judge calibration" in card and "## Freshness cutoff" in card
    by_card = datasets.load_dataset(str(folder), "questions", split="train", cache_dir=str(tmp_path / "hf-card"))
    assert by_card.num_rows == len(stored_q)  # the card's `configs` name each file

    for ext, loader in (("jsonl", "json"), ("parquet", "parquet")):
        ds = {n: datasets.load_dataset(loader, data_files=str(folder / f"{n}.{ext}"), split="train",
                                       cache_dir=str(tmp_path / f"hf-{ext}-{n}"))
              for n in ("questions", "tables", "results")}  # one config each, as the card declares them
        frames = {n: (pd.read_json(folder / f"{n}.jsonl", lines=True, dtype=False) if ext == "jsonl"
                      else pd.read_parquet(folder / f"{n}.parquet")) for n in ("questions", "tables", "results")}
        for rows in (list(ds["questions"]), frames["questions"].to_dict("records")):
            back = {q.id: q.SerializeToString(deterministic=True) for q in map(question_from_row, rows)}
            assert back == {k: question_pb2.Question.FromString(v).SerializeToString(deterministic=True)
                            for k, v in stored_q.items()}, ext
            assert all(r["licence"] in ("CC BY-SA 4.0", "MIT") and r["source_uri"] for r in rows)
        for rows in (list(ds["tables"]), frames["tables"].to_dict("records")):
            back = {t.id: t.SerializeToString(deterministic=True) for t in map(table_from_row, rows)}
            assert back == {k: table_pb2.Table.FromString(v).SerializeToString(deterministic=True)
                            for k, v in stored_t.items()}, ext
        # the scores come back from the exported results: per model, accuracy and interval as published
        doc = json.loads((out / "leaderboard.json").read_text())
        for rows in (list(ds["results"]), frames["results"].to_dict("records")):
            for m in doc["models"]:
                mine = [r for r in rows if r["model"] == m["model"] and r["family"] != "insight"]
                correct = sum(r["verdict"] == "correct" for r in mine)
                assert (len(mine), correct) == (m["n"], m["correct"])
                lo, hi = wilson_interval(correct, len(mine))
                assert (round(lo, 4), round(hi, 4)) == (m["ci_low"], m["ci_high"])
                assert all(r["response"] is not None and r["latency_ms"] >= 0 for r in mine)
