"""A question lint: patterns of questions that read a table wrongly or read like a template gone astray.

Each check looks at one question's text and gold against the table it was generated from; the release
quality report counts the flags (`lint_counts`). The flags:

- `header_row_as_data`: a value quoted in the question is a header-level or unit label of the table, a
  unit label ("£m", "(in thousands)") or another column's name (`the row whose "2018" is "£m"`, `whose
  "2018" is "2019"`): a header or unit row was read as a data row;
- `total_row_as_key`: a whole-table question (count, sum, average, highest, lowest) that names a total
  row's label as a value — the total was counted with the rows it totals;
- `column_n_name`: a column named "column 3", the name the model gives a column it found no header for;
- `answer_in_question`: a lookup whose gold (three or more characters) is quoted in its own question
  (not a choice between two quoted alternatives, "…: «A» أم «B»؟", whose answer is one of them);
- `key_on_numeric`: a row keyed by an amount (`the row whose "Fiscal Year Ended June 30," is "1,577"`);
- `degenerate_distinct_count`: a count of distinct values whose answer is 1 or the number of data rows.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

from livetab.numbers import read_number
from livetab.tables import Table

__all__ = ["LINT_FLAGS", "lint_counts", "lint_question"]

LINT_FLAGS = ("header_row_as_data", "total_row_as_key", "column_n_name", "answer_in_question", "key_on_numeric",
              "degenerate_distinct_count")
_QUOTED = re.compile(r"[\"«“]([^\"»”]{1,80})[\"»”]")
_KEY = re.compile(r"[\"«“]([^\"»”]{1,80})[\"»”]\s+(?:is|equals?|was|هو|هي|يساوي)\s+[\"«“]([^\"»”]{1,80})[\"»”]")
_COLUMN_N = re.compile(r"\bcolumn \d+\b|\bالعمود \d+", re.I)
_WHOLE = re.compile(r"\b(?:how many|sum|total of|average|mean|highest|lowest|most|least)\b|مجموع|متوسط|كم عدد|أعلى|أدنى",
                    re.I)
# "Which has the lower X: "A" or "B"?" / "أيهما له قيمة أقل في X: «A» أم «B»؟": the answer is one of the two
# alternatives the question offers, as it must be.
_ALTERNATIVES = re.compile(r"[\"»”]\s*(?:or|أم)\s*[\"«“][^\"»”]{1,80}[\"»”]\s*[?؟]\s*$", re.I)
_DISTINCT = re.compile(r"\b(?:distinct|different|unique)\b|مختلفة|مميزة", re.I)
_LOOKUP_FAMILIES = {"direct", "reasoning"}
# A label that only names a unit or scale, as unit rows print it: "$M", "£m", "%", "(in thousands)".
_UNIT_LABEL = re.compile(r"^\(?\s*(?:US\$|\$|£|€|¥)?\s*(?:m|M|bn|k|'?000s?|%|million|thousands?|millions?)?\s*\)?$|"
                         r"^\(?\s*(?:\$ |dollars )?in (?:thousands|millions|billions)\b.*\)?$", re.I)


def lint_question(text: str, gold: str, family: str, table: Table) -> list[str]:
    """The lint flags one question raises (in `LINT_FLAGS` order; empty when it reads well)."""
    flags: list[str] = []
    quoted = [q.strip() for q in _QUOTED.findall(text)]
    columns = {c.strip() for c in table.columns}
    header_labels = {v.strip() for level in table.header for v in level if v.strip()} | {
        u.strip() for u in table.column_units.values()}
    keys = _KEY.findall(text)
    if any((value.strip() in header_labels and value.strip() not in columns) or value.strip() in columns
           or (value.strip() and _UNIT_LABEL.match(value.strip())) for _, value in keys):
        flags.append("header_row_as_data")
    totals = {table.rows[r][0].strip() for r in table.total_rows if 0 <= r < len(table.rows) and table.rows[r]}
    if totals and _WHOLE.search(text) and any(q in totals for q in quoted):
        flags.append("total_row_as_key")
    if _COLUMN_N.search(text):
        flags.append("column_n_name")
    g = gold.strip()
    if (family in _LOOKUP_FAMILIES and len(g) >= 3 and g in quoted and not _WHOLE.search(text)
            and not _ALTERNATIVES.search(text)):
        flags.append("answer_in_question")
    if any(read_number(value, table.language or "en", units=True, accounting=True) is not None
           and column.strip() in columns and not re.fullmatch(r"(?:19|20)\d\d", value.strip()) for column, value in keys):
        flags.append("key_on_numeric")
    if _DISTINCT.search(text) and (n := read_number(g)) is not None and (
            n.value == 1 or n.value == len(table.rows) - len(table.total_rows)):
        flags.append("degenerate_distinct_count")
    return flags


def lint_counts(items: Iterable[tuple[str, str, str, Table]]) -> dict[str, int]:
    """Flag counts over (text, gold, family, table) items, every flag listed (0 when none), plus `flagged`:
    the questions with at least one flag."""
    counts: Counter[str] = Counter({f: 0 for f in LINT_FLAGS})
    flagged = 0
    for text, gold, family, table in items:
        flags = lint_question(text, gold, family, table)
        counts.update(flags)
        flagged += bool(flags)
    return {**{f: counts[f] for f in LINT_FLAGS}, "flagged": flagged}
