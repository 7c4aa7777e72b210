"""The form of the validator's published figure: qagen's validator model vs TabFact's human ENTAILED/REFUTED
labels. The measurement needs a model and lives with the validator (`livetab_qagen.validator_calibration`);
what every report shows when it was not run (`tabfact_not_computed`) is built here from the same
description, so a report never has to load the validator."""

from __future__ import annotations

from livetab.calibration import NOT_COMPUTED, Figure

__all__ = ["TABFACT_COMPARES", "TABFACT_DATA", "TABFACT_LICENCE", "TABFACT_METHOD", "tabfact_not_computed"]

TABFACT_DATA = "TabFact test statements with human ENTAILED/REFUTED labels, 151 + 151 (shared/data/tabfact)"
TABFACT_LICENCE = "MIT (tables from Wikipedia, CC BY-SA)"
TABFACT_COMPARES = "qagen's validator model vs TabFact's human ENTAILED/REFUTED label on a statement about a table"
TABFACT_METHOD = "accuracy and Cohen's kappa (unparsed replies a category of their own); confusion counts"


def tabfact_not_computed(judge: str, reason: str) -> Figure:
    return Figure(key="validator_vs_tabfact", compares=TABFACT_COMPARES, method=TABFACT_METHOD, data=TABFACT_DATA,
                  licence=TABFACT_LICENCE, judge=judge, status=NOT_COMPUTED, note=reason)
