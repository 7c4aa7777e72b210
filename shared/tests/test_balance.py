from __future__ import annotations

import pytest
from livetab.balance import balance_domains
from livetab.tables import Source, Table


def _tables(counts: dict[str, int]) -> list[Table]:
    return [Table(id=f"{d}-{i:03d}", source=Source(kind="t"), header=[["a"]], rows=[["1"]], domain=d)
            for d, n in counts.items() for i in range(n)]


def test_diverse_is_an_even_split_limited_by_the_scarcest_domain() -> None:
    b = balance_domains(_tables({"sport": 40, "politics": 7, "culture": 12, "other": 9}), "diverse")
    assert b.counts == {"sport": 7, "politics": 7, "culture": 7, "other": 7}
    assert len(b.kept) == 28 and len(b.dropped) == 68 - 28
    assert all("domain balance" in reason for _, reason in b.dropped)


def test_lot_mirrors_lotnlg_and_is_deterministic() -> None:
    tables = _tables({"sport": 200, "politics": 10, "culture": 30, "other": 30})
    a = balance_domains(tables, "lot", total=100)
    assert a.counts == {"sport": 73, "politics": 3, "culture": 11, "other": 13}
    b = balance_domains(list(reversed(tables)), "lot", total=100)
    assert [t.id for t in a.kept] == [t.id for t in b.kept]


def test_bad_targets_are_refused() -> None:
    with pytest.raises(ValueError, match="domain shares"):
        balance_domains([], {"sports": 1.0})
    with pytest.raises(KeyError):
        balance_domains([], "nonsense")
