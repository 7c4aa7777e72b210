"""A question lint: patterns of questions that read a table wrongly or read like a template gone astray.

Each check looks at one question's text and gold against the table it was generated from; the release
quality report counts the flags (`lint_counts`). The flags:

- `header_row_as_data`: a value the question gives a row (its key, or a value it states with "is") is a
  header-level or unit label of the table, a unit label ("£m", "(in thousands)") or another column's name (`the row whose "2018" is "£m"`, `whose
  "2018" is "2019"`): a header or unit row was read as a data row;
- `total_row_as_key`: a whole-table question (count, sum, average, highest, lowest) that names a total
  row's label as a value — the total was counted with the rows it totals;
- `column_n_name`: a column named "column 3", the name the model gives a column it found no header for;
- `answer_in_question`: a lookup whose gold (three or more characters) is quoted in its own question (not a
  question that offers its alternatives, `"A" or "B"`, `between "A" and "B"`, "…: «A» أم «B»؟");
- `key_on_numeric`: a row keyed by an amount (`the row whose "Fiscal Year Ended June 30," is "1,577"`);
- `degenerate_distinct_count`: a count of distinct values whose answer is 1 or the number of data rows;
- `doubled_quotes`: quote marks back to back (`""Steve Severin" has the highest ..."."`), a quoted
  statement whose own values are quoted;
- `number_agreement`: a count that disagrees with its noun (`Exactly 1 rows have ...`, `There are 1 ...`);
- `named_by_file`: a question that names its table by a file (`from file:tatqa_bf16cbd8b1.csv`).

A row's key is found in the phrasings qagen writes: `"Item" is "UK"` (names quoted), and with names as
phrases of running text, `the row whose item is "UK"`, `where the item is "UK"`, `for the item "UK"`; a
phrase is matched to a column by its words (case aside; "2019 figure" and `"#" value` name "2019" and "#").
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

from livetab.numbers import read_number
from livetab.tables import Table

__all__ = ["LINT_FLAGS", "lint_counts", "lint_question"]

LINT_FLAGS = ("header_row_as_data", "total_row_as_key", "column_n_name", "answer_in_question", "key_on_numeric",
              "degenerate_distinct_count", "doubled_quotes", "number_agreement", "named_by_file")
_QUOTED = re.compile(r"[\"«“]([^\"»”]{1,80})[\"»”]")
_KEY = re.compile(r"[\"«“]([^\"»”]{1,80})[\"»”]\s+(?:is|equals?|was|هو|هي|يساوي)\s+[\"«“]([^\"»”]{1,80})[\"»”]")
# a column named as a phrase of running text before its value: "whose item is "UK"", "for the item "UK""
_PHRASE_KEY = re.compile(r"(?:\bwhose|\bwhere the|\bfor the)\s+(\"[^\"]{1,40}\" value|[^\"«“?:;]{1,60}?)\s+"
                         r"(?:(?:is|are)\s+)?[\"«“]([^\"»”]{1,80})[\"»”]", re.I)
_DOUBLED = re.compile(r"[\"“”«»]{2}|[\"”»][.?!][\"”»]")
_AGREEMENT = re.compile(r"(?<![\d.,])(?<!column )1 (?:rows|values|entries|times|days|years)\b|\b(?:there|they) (?:are|were) 1\b|"
                        r"(?<![\d.,])(?:0|[2-9]|\d{2,}) (?:row|value|entry) (?:has|is|was)\b", re.I)
_STATED = re.compile(r"\b(?:is|are|was|were|equal to|equals)\s+(?:not\s+)?[\"«“]([^\"»”]{1,80})[\"»”]", re.I)
# a question that offers its alternatives ("Which has the lower ...: "Italy" or "United States"?") names its answer
_CHOICE = re.compile(r"[\"»”]\s*(?:or|أم)\s+[\"«“]|\bbetween\s+[\"«“][^\"»”]+[\"»”]\s+and\s+[\"«“]", re.I)
_FILE_NAME = re.compile(r"\bfile:|\b[\w-]+\.(?:csv|tsv|xlsx|xls|docx|json|md)\b", re.I)
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


def _norm(name: str) -> str:
    return " ".join(name.replace('"', " ").split()).strip(",;: ").lower()


def _keys(text: str, columns: set[str]) -> list[tuple[str, str]]:
    """(column, value) of every key the question names: quoted names as they are, a phrase as the column
    whose name it is (kept as written when no column has that name)."""
    keys = [(c.strip(), v) for c, v in _KEY.findall(text)]
    by_norm = {_norm(c): c for c in columns}
    for phrase, value in _PHRASE_KEY.findall(text):
        p = _norm(phrase)
        for cand in (p, p.removesuffix(" figure"), p.removesuffix(" value")):
            if cand in by_norm:
                keys.append((by_norm[cand], value))
                break
        else:
            keys.append((phrase.strip(), value))
    return keys


def lint_question(text: str, gold: str, family: str, table: Table) -> list[str]:
    """The lint flags one question raises (in `LINT_FLAGS` order; empty when it reads well)."""
    flags: list[str] = []
    quoted = [q.strip() for q in _QUOTED.findall(text)]
    columns = {c.strip() for c in table.columns}
    header_labels = {v.strip() for level in table.header for v in level if v.strip()} | {
        u.strip() for u in table.column_units.values()}
    keys = _keys(text, columns)
    # the values the question gives a row: its key, and a value it states ("... the 2018 figure is "£m"")
    given = [value for _, value in keys] + _STATED.findall(text)
    if any((value.strip() in header_labels and value.strip() not in columns) or value.strip() in columns
           or (value.strip() and _UNIT_LABEL.match(value.strip())) for value in given):
        flags.append("header_row_as_data")
    totals = {table.rows[r][0].strip() for r in table.total_rows if 0 <= r < len(table.rows) and table.rows[r]}
    if totals and _WHOLE.search(text) and any(q in totals for q in quoted):
        flags.append("total_row_as_key")
    if _COLUMN_N.search(text):
        flags.append("column_n_name")
    g = gold.strip()
    if (family in _LOOKUP_FAMILIES and len(g) >= 3 and g in quoted and not _WHOLE.search(text)
            and not _CHOICE.search(text) and not _ALTERNATIVES.search(text)):
        flags.append("answer_in_question")
    if any(read_number(value, table.language or "en", units=True, accounting=True) is not None
           and column.strip() in columns and not re.fullmatch(r"(?:19|20)\d\d", value.strip()) for column, value in keys):
        flags.append("key_on_numeric")
    if _DISTINCT.search(text) and (n := read_number(g)) is not None and (
            n.value == 1 or n.value == len(table.rows) - len(table.total_rows)):
        flags.append("degenerate_distinct_count")
    if _DOUBLED.search(text):
        flags.append("doubled_quotes")
    if _AGREEMENT.search(text):
        flags.append("number_agreement")
    if _FILE_NAME.search(text):
        flags.append("named_by_file")
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
