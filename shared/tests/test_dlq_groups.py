"""`livetab replay`'s default group is the consuming service's group from the topic registry."""

from __future__ import annotations

import pytest
from livetab.dlq import default_group


def test_default_group_is_the_consuming_services() -> None:
    assert default_group("livetab.inference.results.v1") == "livetab-judge"
    assert default_group("livetab.inference.requests.qwen-7b.v1") == "livetab-inference-qwen-7b"
    with pytest.raises(ValueError, match="no service consumes"):
        default_group("livetab.reports.v1")
    with pytest.raises(KeyError):
        default_group("livetab.nope.v1")
