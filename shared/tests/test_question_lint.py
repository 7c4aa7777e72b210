"""The question lint on questions written out by hand over one small report table: each flag is raised by
the pattern it names and not by the well-formed question beside it."""

from __future__ import annotations

import pytest
from livetab.question_lint import LINT_FLAGS, lint_counts, lint_question
from livetab.tables import Source, Table

TABLE = Table(id="t", source=Source(kind="local_files", uri="file:r.csv"), header=[["Item", "2019", "2018"]],
              rows=[["UK", "83.2", "73.5"], ["USA", "222.2", "199.0"], ["Total", "305.4", "272.5"]],
              total_rows=[2], column_units={"2019": "$M", "2018": "$M"})


@pytest.mark.parametrize(("text", "gold", "family", "flags"), [
    ('What is the "2019" of the row whose "2018" is "$M"?', "73.5", "direct", ["header_row_as_data"]),
    ('What is the "2019" of the row whose "Item" is "2018"?', "83.2", "direct", ["header_row_as_data"]),
    ('What is the sum of "2019" over the rows "UK", "USA" and "Total"?', "610.8", "reasoning", ["total_row_as_key"]),
    ('What is the "column 2" of the row whose "Item" is "UK"?', "83.2", "direct", ["column_n_name"]),
    ('Which "Item" is "USA" in the row whose "2019" is "222.2"?', "USA", "direct",
     ["answer_in_question", "key_on_numeric"]),
    ('How many different values does "Item" have?', "2", "reasoning", ["degenerate_distinct_count"]),
    # A choice between two quoted alternatives names its answer by design (en and ar).
    ('Which has the lower "2019": "UK" or "USA"?', "USA", "reasoning", []),
    ("أيهما له قيمة أقل في «2019»: «UK» أم «USA»؟", "USA", "reasoning", []),
    ('What is the "2019" of the row whose "Item" is "UK"?', "83.2", "direct", []),
    ('What was the total in 2019?', "305.4", "direct", []),
    # the same patterns with column names written as phrases of running text
    ('What is the 2019 figure of the row whose 2018 figure is "$M"?', "73.5", "direct", ["header_row_as_data"]),
    ('What is the 2019 figure for the item "2018"?', "83.2", "direct", ["header_row_as_data"]),
    ('In the row where the 2019 figure is "222.2", what is the item?', "USA", "direct", ["key_on_numeric"]),
    ('What is the 2019 figure for the item "UK"?', "83.2", "direct", []),
    ('True or false: For the item "UK", the 2019 figure is "$M".', "False", "fact", ["header_row_as_data"]),
    ('Which has the higher 2019 figure: "UK" or "USA"?', "USA", "reasoning", []),
    ('Between "UK" and "USA", which has the higher 2019 figure?', "USA", "reasoning", []),
    # phrasing gone astray
    ('Is the following statement true or false? ""USA" has the highest "2019"." Answer True or False.', "True",
     "fact", ["doubled_quotes"]),
    ('True or false: "USA" has the highest 2019 figure. Answer True or False.', "True", "fact", []),
    ('Is the following statement true or false? Exactly 1 rows have item equal to "UK".', "True", "fact",
     ["number_agreement"]),
    ('True or false: Exactly 1 row has item equal to "UK". Answer True or False.', "True", "fact", []),
    ('How many column 1 values are above 100?', "1", "reasoning", ["column_n_name"]),
    ('True or false: There are exactly 2 rows with a 2019 figure above 100.', "False", "fact", []),
    ('Considering the table "tatqa_bf16cbd8b1" from file:tatqa_bf16cbd8b1.csv: How many rows are there?', "2",
     "reasoning", ["named_by_file"]),
    ('Considering the table "Revenue by country" from TAT-QA: How many rows are there?', "2", "reasoning", []),
])
def test_each_flag_is_raised_by_its_pattern(text: str, gold: str, family: str, flags: list[str]) -> None:
    assert lint_question(text, gold, family, TABLE) == flags


def test_counts_list_every_flag() -> None:
    counts = lint_counts([('What is the "column 2" of the row whose "Item" is "UK"?', "83.2", "direct", TABLE),
                          ('What is the "2019" of the row whose "Item" is "UK"?', "83.2", "direct", TABLE)])
    assert counts == {**dict.fromkeys(LINT_FLAGS, 0), "column_n_name": 1, "flagged": 1}
