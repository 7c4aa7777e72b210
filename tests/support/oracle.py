"""Inputs and checks shared by the oracle / anti-oracle runs (embedded and over Kafka).

The oracle model answers every question right and the anti-oracle every question wrong (the scripted
backend, livetab.models.scripted); run through scrape -> qagen -> planner -> inference -> judge ->
reporter, the leaderboard must say 100% and 0% in every slice. Families: every family the programmatic
generator and the math flow produce. `insight` (free-text insights, scored apart from QA accuracy) is judged
by the claims alone, as a run without an LLM insight judge is: the oracle writes the question's reference
insights with the executable claims qagen verified on the table, the anti-oracle their false twins with
claims the table refutes, so every insight of the oracle must be judged factual and every one of the
anti-oracle's not factual (`check_insights`).
"""

from __future__ import annotations

import csv
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from livetab.paths import shared_data
from livetab.store import Store, schema
from livetab.v1 import inference_pb2, question_pb2

from tests.support.sample import ROOT, sample_pages

__all__ = ["ALL_FAMILIES", "FAMILIES", "FORMATS", "FRESHTAB_LANGUAGES", "INSIGHT", "SETTINGS", "arabic_tables",
           "check_insights", "check_leaderboard", "freshtab_sources", "gsm8k_problems", "judge_insight", "models",
           "sources", "verdict_cells"]

# qagen families asked for; the math flow adds family "math" (with insufficient/contradictory variants)
QAGEN_FAMILIES = ["direct", "reasoning", "fact", "mcq", "insight", "imperfect", "closed_book"]
# the QA families (in QA accuracy); closed_book variants keep their base family (direct/mcq/reasoning)
FAMILIES = {"direct", "reasoning", "fact", "mcq", "imperfect", "math"}
INSIGHT = "insight"  # scored apart: each insight factual or not, never in QA accuracy
ALL_FAMILIES = FAMILIES | {INSIGHT}
FORMATS = ["csv", "markdown", "html", "json"]
SETTINGS = ["with_table", "closed_book"]


def models(phrasing: str = "rotate") -> list[dict[str, Any]]:
    return [{"name": "oracle", "backend": "scripted", "params": {"policy": "oracle", "phrasing": phrasing}},
            {"name": "anti-oracle", "backend": "scripted", "params": {"policy": "anti_oracle", "phrasing": phrasing}}]


def oracle_cycle(tmp: Path, release: str, sources: list[dict[str, Any]], *, formats: list[str],
                 settings: list[str]) -> dict[str, Any]:
    """One embedded cycle of the scripted oracle and anti-oracle (every phrasing in rotation) over `sources`:
    the settings, the run's summary, the leaderboard it wrote and how long it took."""
    import time

    import yaml
    from livetab.settings import load_settings
    from livetab_cli.embedded import run_embedded

    cfg = {"out_dir": str(tmp / "out"), "store": {"url": f"sqlite:///{tmp / 'o.db'}"}, "sources": sources,
           "models": models("rotate"), "qagen": {"families": QAGEN_FAMILIES, "per_table": 6},
           "run": {"release": release, "formats": formats, "settings": settings, "max_rows": 25}}
    path = tmp / "c.yaml"
    path.write_text(yaml.safe_dump(cfg))
    loaded = load_settings(path, env={})
    t0 = time.perf_counter()
    summary = run_embedded(loaded)
    seconds = time.perf_counter() - t0
    doc = json.loads((tmp / "out" / "leaderboard.json").read_text())
    return {"settings": loaded, "summary": summary, "doc": doc, "seconds": seconds}


def arabic_tables(folder: Path, n: int) -> Path:
    """The first `n` Arabic TaTA tables as CSV files (their grids unchanged) for the `local_files` source."""
    folder.mkdir(parents=True, exist_ok=True)
    with (shared_data() / "arabic" / "tata_ar_dev_test.jsonl").open(encoding="utf-8") as f:
        for _, line in zip(range(n), f, strict=False):
            rec = json.loads(line)
            with (folder / f"{rec['example_id']}.csv").open("w", newline="", encoding="utf-8") as out:
                csv.writer(out).writerows([[str(c) for c in row] for row in json.loads(rec["table_data"])])
    return folder


FRESHTAB_LANGUAGES = ("de", "es", "fr", "nl", "ru", "sv")


def freshtab_sources(n: int, languages: tuple[str, ...] = (*FRESHTAB_LANGUAGES, "en")) -> list[dict[str, Any]]:
    """`freshtab` sources for the first `n` FreshTab tables of each language (English: the January 2026 set)."""
    folder = shared_data() / "freshtab"
    files = {lang: folder / f"FT2-5_25_{lang}.jsonl" for lang in FRESHTAB_LANGUAGES} | {
        "en": folder / "FreshTab.01.26.en.jsonl"}
    return [{"kind": "freshtab", "location": str(files[lang]), "options": {"limit": str(n)}} for lang in languages]


def gsm8k_problems(path: Path, n: int) -> Path:
    """The first `n` word problems of the demo's GSM8K sample."""
    lines = (ROOT / "deploy" / "sample" / "gsm8k" / "problems.jsonl").read_text(encoding="utf-8").splitlines()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines[:n]) + "\n", encoding="utf-8")
    return path


def sources(tmp: Path, pages: list[str], n_arabic: int, n_math: int) -> list[dict[str, Any]]:
    """Demo pages, GSM8K problems and the first `n_arabic` Arabic TaTA charts through the `tata` source
    (headerless charts named from their titles and units, sections, totals)."""
    wiki = sample_pages(tmp / "pages", pages)
    out: list[dict[str, Any]] = [
        {"kind": "local_html", "location": str(wiki), "language": "en"},
        {"kind": "gsm8k", "location": str(gsm8k_problems(tmp / "gsm8k" / "problems.jsonl", n_math))}]
    if n_arabic:
        out.append({"kind": "tata", "location": str(shared_data() / "arabic" / "tata_ar_dev_test.jsonl"),
                    "language": "ar", "options": {"limit": str(n_arabic)}})
    return out


def verdict_cells(store: Store, run_id: str) -> dict[tuple[str, str, str, str], list[str]]:
    """(family, format, setting, language) -> the verdicts of one run, read from the store."""
    results = {r["id"]: inference_pb2.InferenceResult.FromString(r["payload"])
               for r in store.select(schema.results, run_id=run_id)}
    judgments = store.select(schema.judgments, run_id=run_id)
    questions = {k: question_pb2.Question.FromString(v["payload"])
                 for k, v in store.get_many(schema.questions, [j["question_id"] for j in judgments]).items()}
    cells: dict[tuple[str, str, str, str], list[str]] = defaultdict(list)
    for j in judgments:
        res, q = results[j["request_id"]], questions[j["question_id"]]
        cells[(q.family, res.format, res.setting, q.language)].append(j["verdict"])
    return cells


def check_leaderboard(doc: dict[str, Any], *, formats: list[str], settings: list[str],
                      families: set[str], languages: set[str]) -> dict[str, dict[str, Any]]:
    """Oracle 100% and anti-oracle 0% overall and in every slice the reporter computed, with every expected
    family, format, setting and language present (so the check cannot pass on an empty slice)."""
    by_model = {m["model"]: m for m in doc["models"]}
    assert set(by_model) == {"oracle", "anti-oracle"}, set(by_model)
    for name, want in (("oracle", 1.0), ("anti-oracle", 0.0)):
        m = by_model[name]
        check_insights(m["insight"], want)
        assert m["n"] + m["insight"]["answers"] == m["planned"] and m["n"] > 0 and m["errors"] == 0, m
        assert m["accuracy"] == want, (name, m["accuracy"])
        assert set(m["families"]) == families, (name, set(m["families"]))
        assert set(m["slices"]["format"]) == set(formats), m["slices"]["format"].keys()
        assert set(m["slices"]["setting"]) == set(settings)
        assert set(m["slices"]["language"]) == languages
        for key, values in [("family", m["families"]), *m["slices"].items()]:
            for value, row in values.items():
                if "n" in row:
                    assert row["n"] > 0 and row["accuracy"] == want, (name, key, value, row)
    return by_model


def check_insights(ins: dict[str, Any], want: float) -> None:
    """A model's insight scores (leaderboard.json's `insight` object): every answer judged by the claims it
    wrote, none left not judged or undecided; every insight factual (want 1.0) or every one not (0.0)."""
    assert ins["answers"] > 0 and ins["judged"] == ins["answers"], ins
    assert (ins["not_judged"], ins["errors"], ins["undecided"]) == (0, 0, 0), ins
    assert ins["insights"] == ins["factual"] + ins["not_factual"] >= ins["answers"], ins
    assert ins["factual_rate"] == want and ins["all_factual"] == (ins["answers"] if want else 0), ins
    assert ins["decided_by"] == {"claim": ins["insights"]}, ins
    assert ins["categories"].get("incorrect", 0) == ins["not_factual"], ins


def judge_insight(answer: str, question: Any, table: Any) -> tuple[str, list[str]]:
    """(verdict, per-insight labels) of one insight answer under the claims-only insight judge (what the judge
    service runs without an LLM insight judge)."""
    import asyncio

    from livetab.v1 import judgment_pb2
    from livetab_judge.insight_answers import CLAIMS_ONLY, InsightAnswerJudge, InsightCase
    from livetab_judge.insights import InsightJudge

    j = judgment_pb2.Judgment()
    asyncio.run(InsightAnswerJudge(InsightJudge(None, name=CLAIMS_ONLY)).judge_many(
        [InsightCase(j, question, answer, table)]))
    return j.verdict, [lab.label for lab in j.insights]
