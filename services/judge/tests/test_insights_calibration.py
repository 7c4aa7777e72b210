"""Factuality judges against real human labels: TaTA "attributable" ratings joined to the TaTA tables.

The model-free baseline runs over every rated Arabic and English row; the LLM insight judge (local
model) over an evenly spread subset of 30. Kappa is whatever it is; what is tested is that the join
and the measurement are real, and that the baseline beats a judge that says "attributable" to all.
"""

from __future__ import annotations

import asyncio
import logging
import math

import pytest
from livetab.models.base import SamplingParams
from livetab_judge.calibration import (
    calibrate,
    calibrate_llm,
    even_subset,
    load_tata_ratings,
    load_tata_tables,
    numbers_in_table_judge,
)
from livetab_judge.insights import InsightJudge

log = logging.getLogger(__name__)


def test_tables_and_ratings_join() -> None:
    ar, en = load_tata_tables("ar"), load_tata_tables("en")
    assert len(ar) == 181 and len(en) == 181
    t = en["AS75-en-1"]
    assert t.columns == ["column 1", "First sex", "First marriage", "Birth of first child"]  # blank corner cell
    assert ["Benin", "18.4", "24.7", "25.7"] in t.rows
    ratings = load_tata_ratings(("ar", "en"))
    # rated rows (attributable 0/1) whose example has a table: counted from the files by hand beforehand
    joined = [r for r in ratings if r.example_id in {**ar, **en}]
    assert sum(r.lang == "ar" for r in joined) == 370
    assert sum(r.lang == "en" for r in joined) == 436
    with pytest.raises(ValueError):
        load_tata_tables("yo")


def test_numbers_in_table_judge_on_a_real_table() -> None:
    t = load_tata_tables("en")["AS75-en-1"]
    assert numbers_in_table_judge(t, "In Benin men first marry at a median age of 24.7 years.")
    assert numbers_in_table_judge(t, "In Benin men first marry at about 25.")  # 24.7 rounds to 25
    assert not numbers_in_table_judge(t, "In Benin men first marry at a median age of 27.3 years.")
    assert numbers_in_table_judge(t, "Men in West Africa marry later than they start having sex.")
    ar = load_tata_tables("ar")["AS75-ar-1"]  # Arabic texts write 24,7 for the table's 24.7
    assert numbers_in_table_judge(ar, "يتزوج الرجال في بنين لأول مرة في سن متوسطه 24,7 عامًا.")
    assert not numbers_in_table_judge(ar, "يتزوج الرجال في بنين لأول مرة في سن متوسطه 27,3 عامًا.")


def test_baseline_kappa_over_all_rated_rows() -> None:
    tables = {**load_tata_tables("ar"), **load_tata_tables("en")}
    ratings = load_tata_ratings(("ar", "en"))
    rep = calibrate(numbers_in_table_judge, ratings, tables, name="numbers-in-table")
    always = calibrate(lambda t, s: True, ratings, tables, name="always attributable")
    log.info("baseline calibration: %s", rep.as_dict())
    assert rep.n == 806 == always.n
    assert sum(rep.confusion.values()) == rep.n
    assert -1.0 <= rep.kappa <= 1.0 and set(rep.by_lang) == {"ar", "en"}
    assert always.kappa == pytest.approx(0.0)
    assert rep.kappa > always.kappa  # the number check carries real signal about attributability


@pytest.mark.model
@pytest.mark.timeout(1200)  # 12 CPU calls of a 135M model (a 30-row run is reported in the issue note)
def test_llm_insight_judge_kappa_on_12_rated_rows() -> None:
    from livetab.models.llama_local import LlamaLocalBackend

    tables = {**load_tata_tables("ar"), **load_tata_tables("en")}
    sub = even_subset([r for r in load_tata_ratings(("ar", "en")) if r.example_id in tables], 12)
    assert len(sub) == 12 and {r.lang for r in sub} == {"ar", "en"}
    judge = InsightJudge(LlamaLocalBackend(), sampling=SamplingParams(temperature=0.0, max_tokens=48),
                         max_table_chars=1500)
    all_rows, parsed = asyncio.run(calibrate_llm(judge, sub, tables))
    base = calibrate(numbers_in_table_judge, sub, tables, name="numbers-in-table (subset)")
    log.info("LLM calibration: %s | parsed only: %s | baseline on subset: %s", all_rows.as_dict(),
             parsed.as_dict(), base.as_dict())
    assert all_rows.n == 12 and sum(all_rows.confusion.values()) == 12
    assert parsed.n == 12 - all_rows.unparsed
    assert math.isnan(parsed.kappa) or -1.0 <= parsed.kappa <= 1.0
    assert -1.0 <= all_rows.kappa <= 1.0


def test_the_shared_calibration_compares_the_judges_own_labels() -> None:
    """The TaTA figures (livetab.tata_calibration, read by every report) count the labels the LLM judge gives."""
    from livetab import tata_calibration
    from livetab_judge import llm_judge

    assert (tata_calibration.TRUE, tata_calibration.FALSE) == (llm_judge.TRUE, llm_judge.FALSE)
