"""Calibration of factuality judges on real human labels: TaTA's "attributable" ratings (is everything
the text states supported by the table?) joined to the TaTA tables, and Cohen's kappa between a judge
and the people.

Two judges are measured: a claim-free baseline that needs no model (every number the text states must
occur in the table, its title or its unit at the text's precision) over all rated rows, and the LLM
insight-factuality judge over a subset. Rows the raters left blank (the text was not interpretable,
so later questions were skipped) carry no attributable rating and are left out.

CLI: `python -m livetab_judge.calibration [--limit-llm N]` prints the figures as JSON;
`livetab calibrate` publishes them (`tata_baseline_figure`, `tata_llm_figures`) beside the leaderboard.
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import json
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from decimal import Decimal
from pathlib import Path

from livetab.calibration import NOT_COMPUTED, Figure
from livetab.metrics import cohen_kappa_detail
from livetab.models.base import ModelBackend, SamplingParams
from livetab.numbers import decimals_in
from livetab.paths import shared_data
from livetab.tables import Source, Table

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

TABLE_FILES = {"ar": "tata_ar_dev_test.jsonl", "en": "tata_en_parallel.jsonl"}


@dataclass(frozen=True)
class TataRating:
    row: str  # the CSV's own row number
    example_id: str
    lang: str
    model: str
    text: str
    attributable: bool


def _cell(v: object) -> str:
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def load_tata_tables(lang: str, data: Path | None = None) -> dict[str, Table]:
    """TaTA tables of one language by example id (first row of `table_data` is the header)."""
    if lang not in TABLE_FILES:
        raise ValueError(f"TaTA tables exist here only for {', '.join(TABLE_FILES)}, not {lang!r}")
    path = (data or shared_data()) / "arabic" / TABLE_FILES[lang]
    tables: dict[str, Table] = {}
    with path.open(encoding="utf-8") as f:
        for line in f:
            rec = json.loads(line)
            grid = json.loads(rec["table_data"])
            if not grid:
                log.warning("TaTA %s has an empty table", rec["example_id"])
                continue
            caption = rec.get("title", "") + (f" ({rec['unit_of_measure']})" if rec.get("unit_of_measure") else "")
            tables[rec["example_id"]] = Table(
                id=rec["example_id"], source=Source(kind="tata", title=rec.get("title", ""), licence="CC BY 4.0"),
                header=[[_cell(c) for c in grid[0]]], rows=[[_cell(c) for c in r] for r in grid[1:]],
                language=lang, caption=caption,
            )
    return tables


def load_tata_ratings(langs: Sequence[str] = ("ar", "en"), data: Path | None = None) -> list[TataRating]:
    """Rated rows of the human-annotation CSV in `langs` (blank or out-of-range ratings skipped)."""
    path = (data or shared_data()) / "human_judgments" / "tata_all_human_annotations.csv"
    out: list[TataRating] = []
    skipped = 0
    with path.open(encoding="utf-8", newline="") as f:
        for rec in csv.DictReader(f):
            if rec.get("lang") not in langs:
                continue
            value = (rec.get("attributable") or "").strip()
            if value not in ("0.0", "1.0"):
                skipped += 1
                continue
            out.append(TataRating(row=rec.get("", ""), example_id=rec["id"], lang=rec["lang"], model=rec["model"],
                                  text=rec.get("output") or "", attributable=value == "1.0"))
    log.info("TaTA ratings: %d rated rows in %s, %d without a 0/1 attributable rating", len(out), langs, skipped)
    return out


def _decimals(d: Decimal) -> int:
    exp = d.as_tuple().exponent
    return -exp if isinstance(exp, int) and exp < 0 else 0


def numbers_in_table_judge(table: Table, text: str) -> bool:
    """Attributable iff every number in the text occurs in the table, its title or unit, rounded to the
    text's precision ("18" matches a cell 18.4). A text without numbers is taken as attributable."""
    language = table.language or "en"
    pool: list[Decimal] = []
    for s in [table.caption, *table.columns, *(c for r in table.rows for c in r)]:
        pool.extend(decimals_in(s, language))
    for claimed in decimals_in(text, language):
        q = Decimal(1).scaleb(-_decimals(claimed))
        if not any(v.quantize(q) == claimed.quantize(q) or v == claimed for v in pool):
            return False
    return True


@dataclass
class CalibrationReport:
    judge: str
    n: int
    kappa: float
    observed_agreement: float
    expected_agreement: float
    judge_true_rate: float
    human_true_rate: float
    confusion: dict[str, int] = field(default_factory=dict)  # "judge/human" -> count
    unparsed: int = 0
    by_lang: dict[str, dict[str, float]] = field(default_factory=dict)

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


def _report(judge: str, judged: list[str], ratings: Sequence[TataRating], unparsed: int = 0) -> CalibrationReport:
    human = [TRUE if r.attributable else FALSE for r in ratings]
    d = cohen_kappa_detail(judged, human)
    by_lang: dict[str, dict[str, float]] = {}
    for lang in sorted({r.lang for r in ratings}):
        idx = [i for i, r in enumerate(ratings) if r.lang == lang]
        sub = cohen_kappa_detail([judged[i] for i in idx], [human[i] for i in idx])
        by_lang[lang] = {"n": float(len(idx)), "kappa": sub.kappa, "agreement": sub.observed_agreement}
    return CalibrationReport(
        judge=judge, n=d.n, kappa=d.kappa, observed_agreement=d.observed_agreement,
        expected_agreement=d.expected_agreement, judge_true_rate=judged.count(TRUE) / d.n,
        human_true_rate=human.count(TRUE) / d.n, confusion={f"{a}/{b}": c for (a, b), c in d.confusion.items()},
        unparsed=unparsed, by_lang=by_lang,
    )


def calibrate(judge: Callable[[Table, str], bool], ratings: Sequence[TataRating],
              tables: dict[str, Table], *, name: str) -> CalibrationReport:
    """Kappa of a model-free judge against the human ratings whose table is known."""
    joined = [r for r in ratings if r.example_id in tables]
    judged = [TRUE if judge(tables[r.example_id], r.text) else FALSE for r in joined]
    return _report(name, judged, joined)


def even_subset(ratings: Sequence[TataRating], n: int) -> list[TataRating]:
    """`n` rows spread evenly over the ratings sorted by (lang, id, model, row): deterministic, all strata."""
    ordered = sorted(ratings, key=lambda r: (r.lang, r.example_id, r.model, r.row))
    if n >= len(ordered):
        return ordered
    step = len(ordered) / n
    return [ordered[int(i * step)] for i in range(n)]


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
    all_rows = _report(f"{judge.name} (unparsed = not attributable)",
                       [lab if lab in (TRUE, FALSE) else FALSE for lab in labels], joined, unparsed)
    keep = [i for i, lab in enumerate(labels) if lab in (TRUE, FALSE)]
    if keep:
        parsed = _report(f"{judge.name} (parsed only)", [labels[i] for i in keep], [joined[i] for i in keep], 0)
    else:
        parsed = CalibrationReport(f"{judge.name} (parsed only)", 0, float("nan"), 0.0, 0.0, 0.0, 0.0)
    return all_rows, parsed


# --- published figures (`livetab calibrate`) ---------------------------------------------------------

TATA_DATA = ("TaTA human ratings (shared/data/human_judgments/tata_all_human_annotations.csv), ar + en rows with "
             "a 0/1 'attributable' rating, joined to the TaTA tables")
TATA_LICENCE = "CC BY 4.0"
_TATA_COMPARES = "{judge} vs TaTA's human 'attributable' rating (is everything the text states supported by the table)"
_TATA_METHOD = "Cohen's kappa and agreement (true/false labels); confusion counts"


def _figure(key: str, report: CalibrationReport, judge: str, *, note: str, seconds: float,
            which: str = "insight factuality judge") -> Figure:
    values = {"kappa": report.kappa, "agreement": report.observed_agreement,
              "expected_agreement": report.expected_agreement, "judge_true_rate": report.judge_true_rate,
              "human_true_rate": report.human_true_rate}
    if report.unparsed:
        values["unparsed"] = float(report.unparsed)
    return Figure(key=key, compares=_TATA_COMPARES.format(judge=which), method=_TATA_METHOD,
                  data=TATA_DATA, licence=TATA_LICENCE, judge=judge, n=report.n, values=values,
                  confusion=dict(report.confusion), by={k: dict(v) for k, v in report.by_lang.items()}, note=note,
                  seconds=seconds)


def tata_baseline_figure(data: Path | None = None) -> Figure:
    """The claim-free, model-free baseline (numbers-in-table) on every rated ar/en row: a few seconds."""
    t0 = time.perf_counter()
    tables = {**load_tata_tables("ar", data), **load_tata_tables("en", data)}
    report = calibrate(numbers_in_table_judge, load_tata_ratings(("ar", "en"), data), tables, name="numbers-in-table")
    return _figure("insight_baseline_vs_tata", report,
                   "numbers-in-table baseline (no model: every number in the text occurs in the table)",
                   which="model-free baseline insight judge",
                   note="The model-free floor an insight judge should beat.", seconds=time.perf_counter() - t0)


def tata_llm_not_computed(judge: str, reason: str) -> Figure:
    return Figure(key="insight_llm_vs_tata", compares=_TATA_COMPARES.format(judge="LLM insight factuality judge"),
                  method=_TATA_METHOD, data=TATA_DATA, licence=TATA_LICENCE, judge=judge, status=NOT_COMPUTED,
                  note=reason)


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
    llm = _figure("insight_llm_vs_tata", all_rows, judge, seconds=seconds, which="LLM insight factuality judge",
                  note=f"On {subset}; unparsed replies ({all_rows.unparsed}) counted as not attributable; "
                       f"temperature 0, at most {max_tokens} tokens, table cut at {max_table_chars} characters; "
                       "kappa_parsed_only is over the parsed replies alone.")
    llm.values.update(kappa_parsed_only=parsed.kappa, n_parsed=float(parsed.n))
    same = _figure("insight_baseline_vs_tata_llm_subset", base, "numbers-in-table baseline (no model)",
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
