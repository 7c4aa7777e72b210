"""The LLM insight-factuality judge measured on TaTA's human "attributable" ratings (is everything the
text states supported by the table?). The ratings, the tables, the model-free baseline and the published
figures' form live in `livetab.tata_calibration` (every report carries the baseline); this module runs the
model, on a subset spread over language, table and system, beside the baseline on the same rows.

CLI: `python -m livetab_judge.calibration [--limit-llm N]` prints the figures as JSON;
`livetab calibrate` publishes them (`tata_baseline_figure`, `tata_llm_figures`) beside the leaderboard.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import time
from collections.abc import Sequence
from pathlib import Path

from livetab.calibration import Figure
from livetab.models.base import ModelBackend, SamplingParams
from livetab.tables import Table
from livetab.tata_calibration import (
    CalibrationReport,
    TataRating,
    calibrate,
    even_subset,
    load_tata_ratings,
    load_tata_tables,
    numbers_in_table_judge,
    report_from_labels,
    tata_baseline_figure,
    tata_figure,
    tata_llm_not_computed,
)

from livetab_judge.insights import Insight, InsightJudge
from livetab_judge.llm_judge import FALSE, TRUE

__all__ = [
    "CalibrationReport",
    "TataRating",
    "calibrate",
    "calibrate_llm",
    "even_subset",
    "load_tata_ratings",
    "load_tata_tables",
    "numbers_in_table_judge",
    "tata_baseline_figure",
    "tata_llm_figures",
    "tata_llm_not_computed",
]

log = logging.getLogger(__name__)


async def calibrate_llm(judge: InsightJudge, ratings: Sequence[TataRating],
                        tables: dict[str, Table]) -> tuple[CalibrationReport, CalibrationReport]:
    """The LLM factuality judge on `ratings`: kappa with unparsed replies counted as not attributable,
    and kappa over the parsed replies only."""
    joined = [r for r in ratings if r.example_id in tables]
    verdicts = []
    t0 = time.perf_counter()
    for i, r in enumerate(joined, 1):
        verdicts.append(await judge.judge(tables[r.example_id], Insight(r.text)))
        log.debug("calibration %d/%d %s -> %s (%.0f s so far)", i, len(joined), r.example_id,
                  verdicts[-1].verdict, time.perf_counter() - t0)
    labels = [v.verdict for v in verdicts]
    unparsed = sum(1 for lab in labels if lab not in (TRUE, FALSE))
    all_rows = report_from_labels(f"{judge.name} (unparsed = not attributable)",
                       [lab if lab in (TRUE, FALSE) else FALSE for lab in labels], joined, unparsed)
    keep = [i for i, lab in enumerate(labels) if lab in (TRUE, FALSE)]
    if keep:
        parsed = report_from_labels(f"{judge.name} (parsed only)", [labels[i] for i in keep], [joined[i] for i in keep], 0)
    else:
        parsed = CalibrationReport(f"{judge.name} (parsed only)", 0, float("nan"), 0.0, 0.0, 0.0, 0.0)
    return all_rows, parsed


def tata_llm_figures(backend: ModelBackend, limit: int, *, judge: str, max_tokens: int = 48,
                     max_table_chars: int = 1500, data: Path | None = None) -> list[Figure]:
    """The LLM insight judge on `limit` rated rows spread evenly over languages, tables and systems (unparsed
    replies counted as not attributable), and the baseline on the same rows for comparison."""
    t0 = time.perf_counter()
    tables = {**load_tata_tables("ar", data), **load_tata_tables("en", data)}
    sub = even_subset([r for r in load_tata_ratings(("ar", "en"), data) if r.example_id in tables], limit)
    ij = InsightJudge(backend, sampling=SamplingParams(temperature=0.0, max_tokens=max_tokens),
                      max_table_chars=max_table_chars)
    all_rows, parsed = asyncio.run(calibrate_llm(ij, sub, tables))
    seconds = time.perf_counter() - t0
    base = calibrate(numbers_in_table_judge, sub, tables, name="numbers-in-table")
    subset = f"a fixed subset of {len(sub)} rows spread evenly over language, table and system"
    llm = tata_figure("insight_llm_vs_tata", all_rows, judge, seconds=seconds, which="LLM insight factuality judge",
                  note=f"On {subset}; unparsed replies ({all_rows.unparsed}) counted as not attributable; "
                       f"temperature 0, at most {max_tokens} tokens, table cut at {max_table_chars} characters; "
                       "kappa_parsed_only is over the parsed replies alone.")
    llm.values.update(kappa_parsed_only=parsed.kappa, n_parsed=float(parsed.n))
    same = tata_figure("insight_baseline_vs_tata_llm_subset", base, "numbers-in-table baseline (no model)",
                   which="model-free baseline insight judge (LLM judge's subset)",
                   note=f"The baseline on the LLM judge's subset ({subset}), for a like-for-like comparison.",
                   seconds=0.0)
    return [llm, same]


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Judge-vs-human agreement on TaTA attributable ratings.")
    ap.add_argument("--limit-llm", type=int, default=0, help="also run the local LLM judge on N rows")
    ap.add_argument("--max-tokens", type=int, default=48)
    ap.add_argument("--max-table-chars", type=int, default=1500)
    args = ap.parse_args(argv)
    tables = {**load_tata_tables("ar"), **load_tata_tables("en")}
    ratings = load_tata_ratings(("ar", "en"))
    out: dict[str, object] = {
        "baseline": calibrate(numbers_in_table_judge, ratings, tables, name="numbers-in-table").as_dict()}
    if args.limit_llm:
        from livetab.models.llama_local import LlamaLocalBackend

        judge = InsightJudge(LlamaLocalBackend(), sampling=SamplingParams(temperature=0.0, max_tokens=args.max_tokens),
                             max_table_chars=args.max_table_chars)
        sub = even_subset([r for r in ratings if r.example_id in tables], args.limit_llm)
        base_sub = calibrate(numbers_in_table_judge, sub, tables, name="numbers-in-table (same subset)")
        all_rows, parsed = asyncio.run(calibrate_llm(judge, sub, tables))
        out["llm"] = all_rows.as_dict()
        out["llm_parsed_only"] = parsed.as_dict()
        out["baseline_on_llm_subset"] = base_sub.as_dict()
    print(json.dumps(out, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
