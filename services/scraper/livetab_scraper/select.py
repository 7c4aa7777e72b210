"""Which of a page's tables to keep: one or more per page, by a configured rule.

Rules: `first` (document order), `largest` (most non-empty body cells; FreshTab keeps one table per
page, the largest is the usual choice), `all`, and `index` (the table at `index` among the page's
selected tables, as WikiTableQuestions' `tableIndex`). `limit` caps how many are kept per page.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from livetab.tables import Table

__all__ = ["RULES", "select_per_page"]

RULES = ("first", "largest", "all", "index")


def _filled(t: Table) -> int:
    return sum(1 for r in t.rows for v in r if v.strip())


def select_per_page(tables: Iterable[Table], *, rule: str = "largest", limit: int = 1,
                    index: int | None = None) -> list[Table]:
    """The tables to keep, grouped by page (`Source.uri` + revision), in page order then table order."""
    if rule not in RULES:
        raise ValueError(f"unknown table selection rule {rule!r}; use one of {', '.join(RULES)}")
    if rule == "index" and index is None:
        raise ValueError("rule 'index' needs index=")
    pages: dict[tuple[str, str], list[Table]] = defaultdict(list)
    for t in tables:
        pages[(t.source.uri, t.source.revision)].append(t)
    kept: list[Table] = []
    for group in pages.values():
        if rule == "index":
            chosen = [t for t in group if t.source.table_index == index]
        elif rule == "largest":
            chosen = sorted(group, key=lambda t: (-_filled(t), t.source.table_index))
        else:
            chosen = list(group)
        if rule != "all":
            chosen = chosen[:limit]
        kept.extend(sorted(chosen, key=lambda t: t.source.table_index))
    return kept
