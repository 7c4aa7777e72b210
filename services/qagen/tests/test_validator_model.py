"""The validator's agreement with TabFact's human labels, measured with the real local model on a
fixed 12-statement subset (all 302: `python -m livetab_qagen.validator`)."""

from __future__ import annotations

import pytest
from livetab_qagen.validator import measure_tabfact_agreement

pytestmark = pytest.mark.model


def test_tabfact_agreement_with_the_local_model() -> None:
    from livetab.models.llama_local import LlamaLocalBackend

    report = measure_tabfact_agreement(LlamaLocalBackend(), limit=12)
    print("\n" + report.to_json())
    assert report.n == 12 and sum(report.confusion.values()) == 12
    assert 0.0 <= report.accuracy <= 1.0 and -1.0 <= report.kappa <= 1.0
    assert report.seconds_per_call > 0
