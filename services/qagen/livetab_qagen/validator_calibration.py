"""The validator's published calibration: its model checking TabFact statements against the human
ENTAILED/REFUTED labels (`validator.measure_tabfact_agreement_async`), as a figure for `livetab calibrate`.

The validator has no rule part that decides a statement (its rules only read the model's reply), so the
figure needs a model; with the local SmolLM2 on a CPU it runs on a fixed, reproducible prefix of the
statements (the loader's sha256 order) whose size is stated as n.
"""

from __future__ import annotations

import time

from livetab.calibration import Figure
from livetab.models.base import ModelBackend
from livetab.tabfact_calibration import (
    TABFACT_COMPARES,
    TABFACT_DATA,
    TABFACT_LICENCE,
    TABFACT_METHOD,
    tabfact_not_computed,
)

from livetab_qagen.validator import measure_tabfact_agreement_async

__all__ = ["TABFACT_DATA", "tabfact_not_computed", "tabfact_validator_figure"]


async def tabfact_validator_figure(backend: ModelBackend, limit: int, *, judge: str, max_tokens: int = 4,
                                   max_rows: int = 40) -> Figure:
    """The validator model on the first `limit` statements of the fixed shuffled order."""
    t0 = time.perf_counter()
    report = await measure_tabfact_agreement_async(backend, limit, max_tokens=max_tokens, max_rows=max_rows)
    confusion = {k.replace("human_", "").replace("__model_", "/"): v for k, v in report.confusion.items()}
    # keys read "reference/model" in the validator's report; the published form is "judge/reference"
    confusion = {f"{k.split('/')[1]}/{k.split('/')[0]}": v for k, v in confusion.items()}
    human_true = sum(v for k, v in confusion.items() if k.endswith("/true"))
    return Figure(key="validator_vs_tabfact", compares=TABFACT_COMPARES, method=TABFACT_METHOD, data=TABFACT_DATA,
                  licence=TABFACT_LICENCE, judge=judge, n=report.n,
                  values={"accuracy": report.accuracy, "kappa": report.kappa, "unparsed": float(report.unparsed),
                          "predicted_true_share": report.predicted_true_share,
                          "seconds_per_call": report.seconds_per_call},
                  confusion=confusion, seconds=time.perf_counter() - t0,
                  note=(f"The first {report.n} of 302 statements in a fixed sha256 order (roughly balanced); "
                        f"True/False prompt, temperature 0, at most {max_tokens} tokens, tables cut at {max_rows} "
                        f"rows; an unparsed reply counts as wrong. The model said True on "
                        f"{report.predicted_true_share:.0%} of the statements; people labelled "
                        f"{human_true / report.n if report.n else 0:.0%} of them true."))
