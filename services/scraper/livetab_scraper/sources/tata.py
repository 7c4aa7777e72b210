"""The `tata` source: TaTA tables (Gehrmann et al. 2023; DHS survey report charts) read into livetab tables.

A TaTA record is one chart's data: `table_data` (a JSON-encoded 2-D list), `title`, `unit_of_measure`,
`chart_type`, `example_id`. The grid is what the chart plotted, not a table a person typed, so its
meaning is partly outside it:

    sources:
      - kind: tata
        location: ../shared/data/arabic/tata_ar_dev_test.jsonl

What a careful reader sees, and this source reads:

- **No header row** in about half of them (`[["الإجمالي", 35], ["لا يوجد", 58], …]`): the first row
  already states an amount, so it is data (`filestructure.read_file_structure` reads the header depth
  from the content). The columns are then named from the metadata: the label column from the title's
  "حسب X" / "by X" ("… حسب التعليم" -> "التعليم") when the chart has no sections, else "السنة" when every label is a year, else
  "الفئة" (the chart's category); the value column from `unit_of_measure` (from the title when it is empty: the chart plots what
  its title says; "القيمة" when both are).
  A header whose corner cell is empty gets the same label-column name.
- **Section rows** (`["محل الإقامة", ""]`, `["مبكر", "", "", ""]`) head the rows under them and become
  a `القسم` (Section) column, named from the title when it says what they are ("… حسب الخصائص الخلفية":
  the column "الخصائص الخلفية" holds محل الإقامة, المقاطعة, …); a label split over two columns (section in the first, the row's own label
  in the second: `["", "المناطق الحضرية", 54]`) is read as one label column first.
- **Unlabelled rows** under a section: a chart's proportion and count rows (`["", 0.32, …]`,
  `["", 278, …]`) when each section holds exactly that pair: one row per section, each measure split
  into a proportion column and a count column ("… (النسبة)", "… (العدد)"), so no column mixes the two.
- **Totals**: a row whose label says so ("الإجمالي", "إجمالي مناطق تنزانيا", "Total"), in a chart "by"
  background characteristics a single data row above the first of its sections (the national figure,
  "كينيا" over "محل الإقامة"), or a row whose amounts are exactly the sums of the rows above it in two or
  more columns (in one column figures agree by chance: a sorted bar chart's `2, 4, 6`). Marked in
  `Table.total_rows`, kept as rows.
- **Units**: `unit_of_measure` is the unit of every column of amounts (`Table.column_units`).
- Empty columns (a spacer the chart software left) are dropped.

Cell texts are never changed beyond trimming spaces. Every line gives a `Fetched` with one table or a
`Failure` naming the line and the reason. Licence: CC BY 4.0 (TaTA).
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from livetab.ids import content_id
from livetab.numbers import normalise_digits, read_number
from livetab.tables import Table
from livetab.total_labels import is_total_label
from pydantic import Field

from livetab_scraper.filestructure import FileStructure, read_file_structure, shape_grid
from livetab_scraper.sources.base import Failure, Fetched, Item, SourceConfig, SourceMeta, register_source

__all__ = ["TataConfig", "TataReading", "TataSource", "iter_tata", "key_name", "read_tata"]

log = logging.getLogger(__name__)

LICENCE = "CC BY 4.0"
# Names given to columns the chart left unnamed, per language.
CATEGORY = {"ar": "الفئة", "en": "Category"}
YEAR = {"ar": "السنة", "en": "Year"}
VALUE = {"ar": "القيمة", "en": "Value"}
SHARE = {"ar": "النسبة", "en": "Proportion"}
COUNT = {"ar": "العدد", "en": "Number"}
_BY = {"ar": re.compile(r"(?:^|\s)حسب\s+(.+)$"), "en": re.compile(r"\bby\s+(.+)$", re.I)}
_CUT = re.compile(r"\s*(?:[،,؛;:(*.؟?]|\s-\s|\s(?:خلال|في الفترة|من عام|منذ|during|from|in)\s).*$")
_YEARISH = re.compile(r"^(?:19|20)\d{2}(?:\s*[-–/]\s*(?:19|20)?\d{2})?$")


def _lang(language: str) -> str:
    return language.split("-")[0] if language.split("-")[0] in CATEGORY else "en"


def key_name(title: str, labels: list[str], language: str = "ar") -> str:
    """The label column's name: the title's "حسب X" ("by X") part, else "السنة" when every label is a
    year, else "الفئة"."""
    lang = _lang(language)
    m = _BY[lang].search(title.strip())
    if m:
        x = _CUT.sub("", m.group(1)).strip()
        if x and len(x.split()) <= 5 and not any(ch.isdigit() for ch in x):
            return x
    filled = [v for v in labels if v]
    if filled and all(_YEARISH.match(normalise_digits(v).strip()) for v in filled):
        return YEAR[lang]
    return CATEGORY[lang]


_CHARACTERISTICS = re.compile(r"الخصائص|characteristics", re.I)


def _group_name(title: str, language: str) -> str:
    """The section column's name when the title says the chart is "by" kinds of characteristics ("… حسب
    الخصائص الخلفية": residence, region, education are its sections); "" otherwise."""
    lang = _lang(language)
    m = _BY[lang].search(title.strip())
    x = _CUT.sub("", m.group(1)).strip() if m else ""
    return x if x and _CHARACTERISTICS.search(x) and len(x.split()) <= 5 else ""


def _cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value).strip()


def _is_amount(text: str, language: str) -> bool:
    return bool(text) and read_number(text, language, units=True) is not None


def _drop_empty_columns(grid: list[list[str]]) -> tuple[list[list[str]], int]:
    width = max((len(r) for r in grid), default=0)
    grid = [r + [""] * (width - len(r)) for r in grid]
    keep = [c for c in range(width) if any(r[c] for r in grid)]
    return [[r[c] for c in keep] for r in grid], width - len(keep)


def _merge_split_labels(grid: list[list[str]], language: str) -> bool:
    """A label split over the first two columns (section in the first, the row's label in the second,
    never both in one row): read as one column. Rows with a label in the first column and amounts after
    an empty second cell (`["الإجمالي", "", 53]`) or texts in the second column under an empty first
    cell (`["", "المناطق الحضرية", 54]`) show the layout; a first column of headings over unlabelled rows
    of amounts (`["", 0.32, 0.29]`) is not it."""
    if not grid or len(grid[0]) < 3:
        return False
    body = grid[1:] if not grid[0][0] and not grid[0][1] else grid
    if any(r[0] and r[1] for r in body):
        return False
    spaced = any(r[0] and not r[1] and any(r[2:]) for r in body)
    texts = [r[1] for r in body if not r[0] and r[1]]
    labelled = bool(texts) and all(not _is_amount(v, language) for v in texts)
    if not (texts and (spaced or labelled)):
        return False
    for r in grid:
        r[0:2] = [r[0] or r[1]]
    return True


def _fold_pairs(grid: list[list[str]], start: int, language: str) -> list[list[str]] | None:
    """Unlabelled row pairs under each section, a proportion row (every amount a fraction) and a count row
    (every amount a whole number above 1): one row per section, each column split into its proportion
    and its count ("… (النسبة)", "… (العدد)"), so that no column mixes the two. None when the grid is
    not that shape."""
    lang = _lang(language)
    if start != 1:
        return None
    blocks: list[tuple[str, list[int]]] = []
    for r in range(start, len(grid)):
        row = grid[r]
        if row[0] and not any(row[1:]):
            blocks.append((row[0], []))
        elif not row[0] and blocks:
            blocks[-1][1].append(r)
        else:
            return None
    if not blocks or not all(len(rows) == 2 for _, rows in blocks):
        return None

    def values(r: int) -> list[float]:
        return [x.value for v in grid[r][1:] if v and (x := read_number(v, language)) is not None]

    for _, (share, count) in blocks:
        a, b = values(share), values(count)
        if not a or not b or not all(0 <= x <= 1 for x in a) or not all(x > 1 and x.is_integer() for x in b):
            return None
    width = len(grid[0])
    header = [grid[0][0]]
    for c in range(1, width):
        header += [f"{grid[0][c]} ({SHARE[lang]})", f"{grid[0][c]} ({COUNT[lang]})"]
    out = [header]
    for label, (share, count) in blocks:
        row = [label]
        for c in range(1, width):
            row += [grid[share][c], grid[count][c]]
        out.append(row)
    keep = [c for c in range(len(header)) if c == 0 or any(row[c] for row in out[1:])]
    return [[row[c] for c in keep] for row in out]


@dataclass
class TataReading:
    """What was read from one record: the table and, for the counts the tests report, how."""

    table: Table
    headerless: bool  # the grid had no header row: the columns were named from the metadata
    named_from_title: bool  # the label column's name came from the title's "حسب X"
    named_from_unit: bool  # the value column's name came from unit_of_measure
    folded_sections: int  # sections of unlabelled proportion/count row pairs read as one row each
    structure: FileStructure
    notes: list[str]


def _exact_sum(grid: list[list[str]], r: int, block: list[int], language: str) -> bool:
    """Row r's amounts are exactly the sums of the block's, in every column where the block states two or
    more, and there are at least two such columns: one column agrees by chance too often (a percentage
    distribution's last share is the sum of the others whenever it is 50)."""
    checked = 0
    for c in range(1, len(grid[r])):
        v = read_number(grid[r][c], language, units=True)
        vals = [x.value for k in block if (x := read_number(grid[k][c], language, units=True)) is not None]
        if v is None or len(vals) < 2:
            continue
        if abs(sum(vals) - v.value) > 1e-9 * max(1.0, abs(v.value)) or v.value == 0:
            return False
        checked += 1
    return checked >= 2


def _totals(grid: list[list[str]], s: FileStructure, language: str, by_groups: bool) -> list[int]:
    """Total rows by label, by position (in a chart "by" background groups, a single data row above the
    first of two or more sections: the national figure) and by exact sum."""
    out: list[int] = []
    first_section = min(s.sections, default=None)
    above = [r for r in range(s.header_rows, first_section or 0) if r not in s.sections]
    if by_groups and len(s.sections) >= 2 and first_section is not None and len(above) == 1:
        out.append(above[0])
    start = s.header_rows
    for r in range(s.header_rows, len(grid)):
        if r in s.sections:
            start = r + 1
            continue
        if r in out:
            start = r + 1
            continue
        if grid[r][0] and is_total_label(grid[r][0], language):
            out.append(r)
            start = r + 1
            continue
        block = [k for k in range(start, r) if k not in s.sections]
        if len(block) >= 2 and _exact_sum(grid, r, block, language):
            out.append(r)
            start = r + 1
    return sorted(out)


def _name_blank_columns(grid: list[list[str]], s: FileStructure, value: str, language: str) -> None:
    """A column of amounts with no label in the header's last row: "الإجمالي" (Total) when each of its
    amounts is exactly the sum of the row's other amounts (a stacked bar's total), else the unit."""
    levels = [r for r in range(s.header_rows) if r not in s.unit_rows]
    if not levels:
        return
    last = levels[-1]
    body = range(s.header_rows, len(grid))
    total_word = "الإجمالي" if _lang(language) == "ar" else "Total"
    for c in range(1, len(grid[0])):
        if grid[last][c] or any(grid[r][c] for r in levels):
            continue
        summed = checked = 0
        for r in body:
            v = read_number(grid[r][c], language)
            others = [x.value for k in range(1, len(grid[r])) if k != c and (x := read_number(grid[r][k], language))]
            if v is None or len(others) < 2:
                continue
            checked += 1
            summed += abs(sum(others) - v.value) < 1e-9
        grid[last][c] = total_word if checked >= 2 and summed == checked else value


def read_tata(rec: dict[str, object], language: str = "ar", origin: str = "") -> TataReading:
    """One TaTA record as a table with its structure read; ValueError says why it cannot be used."""
    raw = rec.get("table_data")
    try:
        data = json.loads(raw) if isinstance(raw, str) else raw
    except json.JSONDecodeError as e:
        raise ValueError(f"table_data is not valid JSON: {e.msg}") from None
    if not isinstance(data, list) or not all(isinstance(r, list) for r in data):
        raise ValueError("table_data is not a list of rows")
    lang = _lang(language)
    grid, dropped = _drop_empty_columns([[_cell(v) for v in row] for row in data])
    grid = [r for r in grid if any(r)]
    if len(grid) < 2 or len(grid[0]) < 2:
        raise ValueError(f"the chart has {len(grid)} row(s) of {len(grid[0]) if grid else 0} column(s): too small")
    notes: list[str] = []
    if dropped:
        notes.append(f"{dropped} empty column(s) dropped")
    if _merge_split_labels(grid, language):
        notes.append("a label split over two columns (section, row label) read as one label column")
    title = str(rec.get("title") or "").strip()
    unit = str(rec.get("unit_of_measure") or "").strip().rstrip(".:؛ ").strip()
    found = read_file_structure(grid, language, default_header=1)
    headerless = found.header_rows == 0
    folded = _fold_pairs(grid, found.header_rows, language)
    if folded is not None:
        notes.append(f"{len(folded) - 1} sections of unlabelled proportion and count rows read as one row each, "
                     "with a proportion and a count column per measure")
        grid = folded
        found = read_file_structure(grid, language, default_header=1)
    labels = [r[0] for r in grid[found.header_rows:]]
    # The title's "by X" names the label column of a plain chart; over sections (residence, region, …)
    # it names what the sections range over, so the labels are then the categories.
    key = CATEGORY[lang] if found.sections else key_name(title, labels, language)
    from_title = key not in (CATEGORY[lang], YEAR[lang])
    from_unit = False
    if headerless:
        value = unit or title.rstrip(".:؟?* ").strip() or VALUE[lang]  # a chart without a unit plots its title
        from_unit = bool(unit)
        width = len(grid[0])
        values = [value] if width == 2 else [f"{value} ({k})" for k in range(1, width)]
        grid.insert(0, [key, *values])
        notes.append(f"no header row: the label column named {key!r}, the value column {value!r} (title, unit of measure)")
        found = read_file_structure(grid, language, default_header=1)
    elif not any(grid[r][0] for r in range(found.header_rows) if r not in found.unit_rows):
        last = max(r for r in range(found.header_rows) if r not in found.unit_rows)
        grid[last][0] = key
    else:
        from_title = False
    if not headerless:
        _name_blank_columns(grid, found, unit or VALUE[lang], language)
    found.totals = _totals(grid, found, language, by_groups=bool(_BY[lang].search(title)))
    if unit:
        for c in range(1, len(grid[0])):
            if c not in found.units and any(_is_amount(grid[r][c], language) for r in range(found.header_rows, len(grid))):
                found.units[c] = unit
    header, rows, cells, group, totals, units = shape_grid(grid, found, language)
    kinds = _group_name(title, language) if group else ""
    if kinds and kinds not in header[-1]:  # the sections are the title's "background characteristics"
        header[-1][0] = kinds
        cells = [replace(c, text=kinds) if c.header and c.row == len(header) - 1 and c.col == 0 else c for c in cells]
        units = {kinds if k == group else k: v for k, v in units.items()}
        group = kinds
    example = str(rec.get("example_id") or "").strip()
    uri = f"tata:{example}" if example else f"tata:{origin}"
    revision = content_id("rev", raw if isinstance(raw, str) else json.dumps(raw), title, unit)
    meta = SourceMeta(kind="tata", uri=uri, title=title, revision=revision, table_index=0, licence=LICENCE,
                      attribution=f"TaTA (Gehrmann et al. 2023), example {example or origin}, CC BY 4.0")
    table = Table(id=content_id("tata", uri, revision), source=meta, header=header, rows=rows, language=language,
                  domain="health", caption=title, cells=cells, group_column=group, total_rows=totals,
                  column_units=units)
    notes += found.notes()
    return TataReading(table=table, headerless=headerless, named_from_title=from_title, named_from_unit=from_unit,
                       folded_sections=len(folded) - 1 if folded is not None else 0, structure=found, notes=notes)


def iter_tata(location: str | Path, language: str = "ar") -> Iterator[Item]:
    """Every record of a TaTA JSONL file."""
    path = Path(location)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        yield Failure(str(path), f"cannot read the file: {e}", "tata")
        return
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        where = f"{path}:{lineno}"
        try:
            rec = json.loads(line)
            if not isinstance(rec, dict):
                raise ValueError("the record is not a JSON object")
            got = read_tata(rec, language, origin=f"{path.name}:{lineno}")
        except json.JSONDecodeError as e:
            yield Failure(where, f"not valid JSON: {e.msg} at column {e.colno}", "tata")
            continue
        except ValueError as e:
            yield Failure(where, str(e), "tata")
            continue
        extra = {"chart_type": str(rec.get("chart_type") or ""), "unit_of_measure": str(rec.get("unit_of_measure") or ""),
                 "example_id": str(rec.get("example_id") or "")}
        yield Fetched(meta=got.table.source, language=language, domain=got.table.domain, tables=[got.table],
                      format="tata", notes=got.notes, extra=extra)


class TataConfig(SourceConfig):
    location: str
    language: str = "ar"
    limit: int | None = Field(None, ge=1)


class TataSource:
    name = "tata"

    def __init__(self, config: TataConfig) -> None:
        self.config = config

    def fetch(self, limit: int | None = None) -> Iterator[Item]:
        limit = limit or self.config.limit
        produced = 0
        for item in iter_tata(self.config.location, self.config.language):
            if isinstance(item, Fetched):
                if limit is not None and produced >= limit:
                    return
                produced += 1
            yield item
        log.info("tata %s: %d tables", self.config.location, produced)


@register_source("tata", config=TataConfig)
def _build(config: TataConfig) -> TataSource:
    return TataSource(config)
