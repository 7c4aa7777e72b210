"""Calibration of factuality judges on real human labels, the model-free part: TaTA's "attributable" ratings
(is everything the text states supported by the table?) joined to the TaTA tables, a claim-free baseline judge
that needs no model (every number the text states must occur in the table, its title or its unit at the text's
precision) and Cohen's kappa between a judge and the people. Rows the raters left blank (the text was not
interpretable, so later questions were skipped) carry no attributable rating and are left out.

The published figures built here (`tata_baseline_figure`, and `tata_llm_not_computed` for the LLM judge's
figure when no model is run) are what every report carries (`livetab_reporter.calibration`); the LLM insight
judge's own measurement lives with that judge (`livetab_judge.calibration`).
"""

from __future__ import annotations

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
from livetab.numbers import decimals_in
from livetab.paths import shared_data
from livetab.tables import Source, Table

__all__ = [
    "FALSE",
    "TRUE",
    "CalibrationReport",
    "TataRating",
    "calibrate",
    "even_subset",
    "load_tata_ratings",
    "load_tata_tables",
    "numbers_in_table_judge",
    "report_from_labels",
    "tata_baseline_figure",
    "tata_figure",
    "tata_llm_not_computed",
]

log = logging.getLogger(__name__)

TRUE, FALSE = "true", "false"  # the labels compared (the LLM judges' verdict labels, livetab_judge.llm_judge)
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


def report_from_labels(judge: str, judged: list[str], ratings: Sequence[TataRating], unparsed: int = 0) -> CalibrationReport:
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
    return report_from_labels(name, judged, joined)


def even_subset(ratings: Sequence[TataRating], n: int) -> list[TataRating]:
    """`n` rows spread evenly over the ratings sorted by (lang, id, model, row): deterministic, all strata."""
    ordered = sorted(ratings, key=lambda r: (r.lang, r.example_id, r.model, r.row))
    if n >= len(ordered):
        return ordered
    step = len(ordered) / n
    return [ordered[int(i * step)] for i in range(n)]


# --- published figures (every report, `livetab calibrate`) ---------------------------------------------------------

TATA_DATA = ("TaTA human ratings (shared/data/human_judgments/tata_all_human_annotations.csv), ar + en rows with "
             "a 0/1 'attributable' rating, joined to the TaTA tables")
TATA_LICENCE = "CC BY 4.0"
_TATA_COMPARES = "{judge} vs TaTA's human 'attributable' rating (is everything the text states supported by the table)"
_TATA_METHOD = "Cohen's kappa and agreement (true/false labels); confusion counts"


def tata_figure(key: str, report: CalibrationReport, judge: str, *, note: str, seconds: float,
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
    return tata_figure("insight_baseline_vs_tata", report,
                   "numbers-in-table baseline (no model: every number in the text occurs in the table)",
                   which="model-free baseline insight judge",
                   note="The model-free floor an insight judge should beat.", seconds=time.perf_counter() - t0)


def tata_llm_not_computed(judge: str, reason: str) -> Figure:
    return Figure(key="insight_llm_vs_tata", compares=_TATA_COMPARES.format(judge="LLM insight factuality judge"),
                  method=_TATA_METHOD, data=TATA_DATA, licence=TATA_LICENCE, judge=judge, status=NOT_COMPUTED,
                  note=reason)
