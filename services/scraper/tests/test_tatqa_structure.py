"""TAT-QA's annual-report tables read as a careful reader reads them (issue 17).

`READER` was written by reading each table of `../shared/data/tatqa/dev_sample.jsonl` (row indices are
rows of the file's grid, 0 = its first row): how many leading rows are the header (unit rows included),
the unit of each value column as the table prints it, the section rows (a label over the rows under it,
empty cells), and the total rows — a row labelled as a total, or one whose figures are the sums of rows
above it (a roll-forward's closing balance, "Net financial result"). `DIFFERS` lists, field by field,
where livetab's reading is not the reader's, with why; every other field must agree exactly.
Tables 17 and 34 are two tables stacked in one grid (a repeated header in the body) and are left out.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from livetab.numbers import read_number
from livetab.tables import Table
from livetab_scraper.coltypes import detect_column_types
from livetab_scraper.filestructure import read_file_structure
from livetab_scraper.sources.files import LocalFilesConfig, read_table_file

DATA = Path(__file__).resolve().parents[3] / ".." / "shared" / "data" / "tatqa" / "dev_sample.jsonl"
pytestmark = pytest.mark.skipif(not DATA.exists(), reason="shared TAT-QA sample not present")

_K = "(in thousands)"
# table -> (header rows, {column: unit}, section rows, total rows)
READER: dict[int, tuple[int, dict[int, str], list[int], list[int]]] = {
    0: (2, {1: "$M", 2: "$M"}, [], [6]),
    1: (2, {1: "£m", 2: "£m"}, [], [4]),  # EBITDA: the two rows above it, summed
    2: (3, {1: "(Dollars in millions)", 2: "(Dollars in millions)"}, [3, 11], [8, 10, 15, 16]),
    3: (2, {}, [], [5]),  # ending balance of a roll-forward
    4: (3, {1: _K}, [], [7, 11, 15]),  # share balances; the price column has no scale
    5: (2, {}, [], [4]),
    6: (2, {}, [], []),
    7: (4, {1: "(In thousands, except percentages)", 2: "(In thousands, except percentages)", 3: "($)",
            4: "(%)"}, [], []),
    8: (2, {}, [], [4]),
    9: (2, {}, [2, 3, 7, 10, 14], [6, 13, 17]),  # rows 2-3: one heading on two lines; totals unlabelled
    10: (2, {1: "($ in millions)", 2: "($ in millions)", 3: "($ in millions)"}, [2, 5], []),
    11: (2, {1: "Tonnes of CO2e", 2: "Tonnes of CO2e"}, [2, 6], [5]),
    12: (2, {1: "Number", 2: "Number"}, [], [7]),
    13: (1, {}, [], [7, 9]),
    14: (2, {}, [], []),  # "Dividend yield | None" is a data row
    15: (2, {}, [], [5]),
    16: (2, {1: "(Dollars in millions)", 2: "(Dollars in millions)"}, [], [8, 10, 12]),
    18: (2, {c: "(in thousands of U.S. dollars)" for c in (1, 2, 3, 4)}, [], [6]),
    19: (3, {1: "(dollars in thousands)", 2: "(dollars in thousands)", 3: "$", 4: "%"}, [], []),
    20: (3, {1: "(dollars in thousands)", 2: "(dollars in thousands)", 3: "(dollars in thousands)",
             4: "% Change"}, [3], [7]),
    21: (3, {1: _K, 2: _K, 3: _K}, [], [6]),
    22: (3, {1: "(In thousands)", 2: "(In thousands)"}, [], []),
    23: (2, {}, [2], []),
    24: (2, {1: "All figures in USD ‘000, except TCE rate per day",
             2: "All figures in USD ‘000, except TCE rate per day"}, [], [4, 7, 9]),
    25: (1, {}, [], [6]),
    26: (2, {1: _K, 2: _K}, [2, 7, 11, 19, 23], [6, 10, 16, 18, 22, 26]),
    27: (2, {}, [], [6]),
    28: (2, {}, [], []),
    29: (1, {1: "€ million", 2: "€ million"}, [], [6, 7, 9, 11]),
    30: (1, {}, [], [5, 9, 13]),
    31: (3, {c: "(As percentage of net revenues)" for c in (1, 2, 3)}, [], [5]),
    32: (2, {}, [2, 4, 5], [9]),
    33: (4, {1: "(in millions)", 2: "(in millions)", 3: "(in millions)"}, [], [7, 10]),
    35: (1, {1: "(Dollars in Millions)", 2: "(Dollars in Millions)"}, [], [4, 6]),
    36: (1, {1: "$ million", 2: "$ million", 3: "(%)"}, [], []),
    38: (2, {}, [], [8]),
    39: (3, {1: "(In millions)", 2: "(In millions)", 3: "(In millions)"}, [], []),
    40: (2, {}, [11], [8, 10, 17, 18, 21]),
    41: (2, {}, [], [5, 7]),
    42: (2, {}, [2, 5], [8]),
    43: (3, {1: "(in millions)", 2: "(in millions)", 3: "(in millions)"}, [], [16]),
    44: (2, {}, [], []),
    45: (2, {}, [], []),
    46: (1, {1: "€m", 2: "€m", 3: "€m"}, [], [4]),
    47: (2, {}, [], [4]),
    48: (3, {}, [], []),
    49: (2, {1: "($ in millions)", 2: "($ in millions)"}, [], [5, 6]),
    50: (1, {}, [1, 2, 5, 9, 10], [15]),
    51: (2, {}, [], [6]),
    52: (2, {}, [2, 10], [7, 9, 14, 15]),
    53: (3, {1: "($ in millions)", 2: "($ in millions)", 3: "($ in millions)"}, [3], [6]),
    54: (2, {}, [], [4]),
    55: (3, {1: "(S$ million)", 2: "(S$ million)", 3: "(%)"}, [], [6, 9, 13]),
    56: (1, {1: "(in thousands of U.S. dollars)", 2: "(in thousands of U.S. dollars)"}, [2], [14]),
    57: (2, {c: "Payments due by Period (In thousands)" for c in (1, 2, 3)}, [3], [6]),
    58: (1, {}, [], [8]),
    59: (2, {}, [], [8]),
}
# (table, field) -> why livetab reads it otherwise
DIFFERS: dict[tuple[int, str], str] = {
    (4, "units"): "one '(in thousands)' under 'Number of Shares' is read as the unit of both value columns",
    (29, "totals"): "the subtotals sum runs that start mid-table (rows 2-5 under EBIT), no block boundary",
    (35, "totals"): "a net row computed with a 'Less:' row printed positive (row 4 minus row 5) is no sum",
    (40, "totals"): "net rows computed with 'Less' rows printed positive (rows 10, 18) are no sums",
    (41, "totals"): "'Net' = total minus a tax benefit printed positive is no sum",
    (49, "totals"): "'Net financing receivables' = recorded investment minus allowance is no sum",
    (52, "totals"): "the net row subtracts liabilities printed positive",
}


def _tables() -> list[list[list[str]]]:
    return [json.loads(line)["table"]["table"] for line in DATA.read_text(encoding="utf-8").splitlines()]


def test_the_hand_checked_table_covers_at_least_30_tables() -> None:
    assert len(READER) >= 30 and len(READER) - len({t for t, _ in DIFFERS}) >= 30


def test_structure_is_read_as_a_careful_reader_reads_it() -> None:
    tables = _tables()
    agree = total = 0
    wrong: list[str] = []
    for i, (h, units, sections, totals) in READER.items():
        got = read_file_structure(tables[i])
        fields = {"header": (h, got.header_rows), "units": (units, got.units),
                  "sections": (sections, sorted(got.sections)), "totals": (totals, got.totals)}
        for name, (want, have) in fields.items():
            total += 1
            if want == have:
                agree += 1
                assert (i, name) not in DIFFERS, f"table {i} {name} now agrees: take it off DIFFERS"
            elif (i, name) not in DIFFERS:
                wrong.append(f"table {i} {name}: reader {want}, livetab {have}")
    assert not wrong, "\n".join(wrong)
    assert agree / total >= 0.95, f"{agree}/{total} fields agree"


def _as_file_table(tmp_path: Path, i: int, grid: list[list[str]]) -> Table:
    import csv

    path = tmp_path / f"tatqa_{i}.csv"
    with path.open("w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows(grid)
    items = read_table_file(path, LocalFilesConfig(location=str(tmp_path)), tmp_path)
    tables = [t for item in items for t in getattr(item, "tables", [])]
    assert len(tables) == 1, items
    return tables[0]


def test_every_numeric_column_of_the_60_tables_is_typed_numeric(tmp_path: Path) -> None:
    """Read through the file source, as a user would: a value column whose cells all state amounts
    (accounting negatives, currency, dashes, percentages) is numeric, not text; header, unit and
    section rows are not rows."""
    numeric = {"integer", "decimal", "percentage", "currency"}
    misses: list[str] = []
    for i, grid in enumerate(_tables()):
        table = _as_file_table(tmp_path, i, grid)
        types = detect_column_types(table)
        for c, name in enumerate(table.columns):
            values = [r[c] for r in table.rows if r[c].strip() and r[c].strip() not in {"—", "–", "-", "$—", "nm"}]
            readable = [v for v in values if read_number(v, units=True, accounting=True) is not None]
            if values and len(readable) == len(values) and types.get(name) not in numeric:
                misses.append(f"table {i} column {name!r}: {types.get(name)}")
        if i in READER:
            h, _, sections, _ = READER[i]
            assert len(table.rows) == len(grid) - h - len(sections) or (i, "sections") in DIFFERS
    assert not misses, "\n".join(misses)


def test_unit_rows_become_column_units_and_totals_are_marked(tmp_path: Path) -> None:
    grid = _tables()[0]
    table = _as_file_table(tmp_path, 0, grid)
    assert table.header == [["Item", "Year-ended 31 March 2019", "Year-ended 31 March 2018 Restated See note 2"]]
    assert table.column_units == {"Year-ended 31 March 2019": "$M",
                                  "Year-ended 31 March 2018 Restated See note 2": "$M"}
    assert table.rows[table.total_rows[0]][0] == "Total revenue from external customers by country"
    sectioned = _as_file_table(tmp_path, 2, _tables()[2])
    assert sectioned.group_column == "Section" and sectioned.columns[0] == "Section"
    assert {r[0] for r in sectioned.rows} == {"Deferred tax assets", "Deferred tax liabilities"}
    assert sectioned.columns[2:] == ["As of December 31, - 2019", "As of December 31, - 2018"]
    assert Table.from_proto(sectioned.to_proto()) == sectioned  # what was found travels on the bus
