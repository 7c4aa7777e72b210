"""The `freshtab` source: a FreshTab release (its published JSONL/JSON files) read into livetab tables.

FreshTab (Kristyna-Navitas/FreshTab) publishes fresh Wikipedia tables as one record per table:
`title`, `category` (its domain labels, "sport | competition | tournament"), `url`, `date` (the page's
creation or the event's date), `QID`, `table` (a 2-D list, first row the header) and `language`.
One config entry turns such a release into a livetab release:

    sources:
      - kind: freshtab
        location: path/to/FreshTab.01.26.en.jsonl   # or a folder of *.jsonl / *.json files

The records are pandas output, and their quirks are repaired where that is safe and recorded where not:

- headers were lower-cased and snake_cased (`no._overall`, `fecha_de_emisión_original`): underscores
  become spaces and the first letter is capitalised ("No. overall", "Fecha de emisión original"); the
  original case of later words is lost (German nouns stay lower-case);
- pandas' suffixes for repeated headers (`party.1`), its placeholders for missing header cells
  (`unnamed:_3_level_1`), repeated levels of a flattened two-row header (`partido_partido`) and soft
  hyphens, zero-width spaces and footnote marks (`[2]`) are removed; a header made only of pandas'
  column numbers (`0`, `1`, ...) means the table had none, and its columns stay unnamed;
- `<NA>` (and `nan`) cells are missing values (empty cells); section headings' edit links
  (`A[redigera | redigera wikitext]`) are removed;
- the grid is read through the structure readers (`livetab_scraper.flatgrid`): pandas' copies of a
  spanning cell become one cell again, a column copying its neighbour in every row ("Choice",
  "Choice (2)") is collapsed, colour-swatch columns are dropped, footer rows ("Source: ...") go to the
  footnotes, full-width headings become the `Section` row group, a heading glued onto every column name
  ("Date north america") heads the first section or titles the table, and total rows are marked in
  `Table.total_rows`;
- a date that is empty, doubled (`2025-03-17T00:00:00+00:00T00:00:00Z`) or unreadable is recorded in
  the item's notes; the readable part becomes `created_at`;
- pandas wrote floats with a decimal point whatever the page's language (`26.2`, `160.0`, `7431.0`);
  in a language whose decimal separator is a comma, a column whose numbers are all written that way,
  none with exactly three digits after the point (which would be a thousands group, `50.549`), is
  rewritten in the language's notation (`26,2`, `160,0`): the same values, written so that a reader of
  the language reads them as FreshTab stored them. The rewrite is noted; values pandas had already
  misread on the page (`74,31 %` stored as `7431.0`) cannot be recovered and stay as stored;
- in a column whose cells are mostly numbers, the cells that do not read as one (`30:30`, `3–1`) are
  recorded in the notes and left as they are (text).

Every line gives a `Fetched` with one table or a `Failure` naming the line and the reason. The table
keeps FreshTab's labels in `Fetched.extra["freshtab_category"]`; its livetab domain is the first
label (sport, politics, culture; FreshTab's "mix" is "other"). Attribution: the page URL, CC BY-SA 4.0.
"""

from __future__ import annotations

import json
import logging
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from livetab.ids import content_id
from livetab.numbers import read_number
from livetab.render import unique_columns
from livetab.tables import Cell, Table, flatten_header
from pydantic import Field

from livetab_scraper.coltypes import value_type
from livetab_scraper.flatgrid import FlatTable, heading_rows, read_flat_grid
from livetab_scraper.sources.base import Failure, Fetched, Item, SourceConfig, SourceMeta, register_source

__all__ = ["FreshTabConfig", "FreshTabSource", "iter_freshtab", "read_date", "readable_header"]

log = logging.getLogger(__name__)

LICENCE = "CC BY-SA 4.0"
DOMAINS = {"sport": "sport", "politics": "politics", "culture": "culture"}
MISSING = frozenset({"<NA>", "nan", "NaN", "None", "NaT"})
NUMERIC_TYPES = frozenset({"integer", "decimal", "percentage", "currency"})

_INVISIBLE = re.compile("[\u00ad\u200b\u200c\u200d\u2060\ufeff]")
_FOOTNOTE = re.compile(r"\s*\[[^\]]{1,8}\]")
_UNNAMED = re.compile(r"(?:^|_)unnamed:_\d+(?:_level_\d+)?(?=_|$)")
_PANDAS_DUP = re.compile(r"(?<=[^\d\W]|[)\]%.])\.\d{1,2}$")
_ISO = re.compile(r"(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}):(\d{2}))?")
_SPACES = re.compile(r"[\s\u00a0\u200a\u2009\u202f]+")
_PANDAS_FLOAT = re.compile(r"^-?\d+\.(\d+)$")
# a section heading's edit links, kept by pandas in the text ("A[redigera | redigera wikitext]")
_EDIT_LINK = re.compile(r"\s*\[(?:edit|redigera|bearbeiten|modifier|editar|bewerken|править)(?: \| [^\]]{1,30})?\]", re.I)


def _collapse_levels(name: str) -> str:
    """`partido_partido` -> `partido`, `x_estado_federado_estado_federado` -> `x_estado_federado`: a
    flattened header whose levels repeat keeps one copy of each repeated run of words."""
    parts = name.split("_")
    changed = True
    while changed:
        changed = False
        for k in range(len(parts) // 2, 0, -1):
            for i in range(len(parts) - 2 * k + 1):
                if parts[i:i + k] == parts[i + k:i + 2 * k]:
                    del parts[i + k:i + 2 * k]
                    changed = True
                    break
            if changed:
                break
    return "_".join(parts)


def _common_prefix(headers: list[str]) -> list[str]:
    """The words every header starts with (a title row pandas glued onto each column), if at least
    two columns share at least three words and every column keeps a word of its own."""
    split = [h.split("_") for h in headers]
    if len(split) < 2 or any(not h for h in headers):
        return []
    prefix: list[str] = []
    for words in zip(*split, strict=False):
        if len(set(words)) != 1:
            break
        prefix.append(words[0])
    if len(prefix) < 3 or any(len(w) <= len(prefix) for w in split):
        return []
    return prefix


def readable_header(raw: object) -> str:
    """FreshTab's snake_case header cell as a column name a reader recognises ("" when pandas made it up)."""
    name = _INVISIBLE.sub("", str(raw))
    name = _FOOTNOTE.sub("", name).strip()
    name = _PANDAS_DUP.sub("", name)
    name = _UNNAMED.sub("", name).strip("_")
    if not name or name.isdigit():
        return ""
    name = _collapse_levels(name)
    name = _SPACES.sub(" ", name.replace("_", " ")).strip()
    return name[:1].upper() + name[1:]


def _unique(names: list[str]) -> list[str]:
    """Repeated column names made distinct the way livetab keys columns ("Party", "Party (2)"), so that
    a question naming a column names one the reader can see."""
    seen: Counter[str] = Counter()
    out: list[str] = []
    for name in names:
        seen[name] += 1
        out.append(name if not name or seen[name] == 1 else f"{name} ({seen[name]})")
    return out


def read_date(raw: object) -> tuple[str, str]:
    """FreshTab's `date` as an ISO timestamp (`2025-03-17T00:00:00Z`) and a note when it was not clean."""
    text = str(raw or "").strip()
    if not text:
        return "", "no date given"
    m = _ISO.match(text)
    if m is None:
        return "", f"date {text!r} is not readable"
    y, mo, d, h, mi, s = (m.group(i) or "00" for i in range(1, 7))
    stamp = f"{y}-{mo}-{d}T{h}:{mi}:{s}Z"
    rest = text[m.end():]
    if rest in ("", "Z", "+00:00"):
        return stamp, ""
    return stamp, f"date {text!r} is malformed (read as {stamp})"


def _cell(value: object) -> str:
    if value is None:
        return ""
    text = _EDIT_LINK.sub("", _INVISIBLE.sub("", str(value))).strip()
    return "" if text in MISSING else text


def _repair_pandas_floats(table: Table) -> list[str]:
    """Rewrite columns of pandas floats (`26.2`) in the language's notation (`26,2`); notes say which."""
    if numbers_decimal(table.language) == ".":
        return []
    notes: list[str] = []
    for c, key in enumerate(unique_columns(table.columns)):
        cells = [row[c] for row in table.rows if c < len(row) and row[c]]
        numeric = [v for v in cells if any(ch.isdigit() for ch in v)]
        floats = [m for v in numeric if (m := _PANDAS_FLOAT.match(v))]
        if not floats or len(floats) != len(numeric) or any(len(m.group(1)) == 3 for m in floats):
            continue
        for row in table.rows:
            if c < len(row) and _PANDAS_FLOAT.match(row[c]):
                row[c] = row[c].replace(".", ",")
        notes.append(f"column {key!r}: {len(floats)} pandas floats written with a decimal comma ({floats[0].group(0)!r} -> "
                     f"{floats[0].group(0).replace('.', ',')!r})")
    return notes


def numbers_decimal(language: str) -> str:
    """The decimal separator of `language` as the shared number reader reads it."""
    reading = read_number("1,5", language)
    return "," if reading is not None and reading.value == 1.5 else "."


def _numeric_outliers(table: Table, *, min_share: float = 0.6) -> list[str]:
    """Notes for cells in a mostly numeric column that do not read as a number (kept as text)."""
    notes: list[str] = []
    for c, key in enumerate(unique_columns(table.columns)):
        cells = [(r, row[c]) for r, row in enumerate(table.rows) if c < len(row) and row[c]]
        kinds = [(r, v, value_type(v, table.language)) for r, v in cells]
        numeric = sum(k in NUMERIC_TYPES for _, _, k in kinds)
        if not cells or numeric < min_share * len(cells) or numeric == len(cells):
            continue
        odd = [(r, v) for r, v, k in kinds if k not in NUMERIC_TYPES]
        shown = ", ".join(f"row {r + 1} {v!r}" for r, v in odd[:5]) + (" ..." if len(odd) > 5 else "")
        notes.append(f"column {key!r}: {len(odd)} of {len(cells)} cells are not numbers, kept as text ({shown})")
    return notes


def _glued_heading(header: list[str], rows: list[list[str]], language: str) -> tuple[list[str], str]:
    """Column names that all end (or start) with the same words, a heading row pandas glued onto each
    ("Date north america", "City north america"; "District 1 party"): the names without it, and the heading.
    One word is enough when the body has heading rows of the same kind ("Name batters" over "All-rounders");
    otherwise two, in a table of three columns or more. Every column keeps a word of its own."""
    words = [h.split() for h in header]
    if len(words) < 2 or any(not w for w in words):
        return header, ""
    need = 1 if heading_rows(rows, language) else 2
    if need == 2 and len(words) < 3:
        return header, ""
    for side in (-1, 1):
        k = 0
        while all(len(w) > k + 1 for w in words) and len({(w[-1 - k] if side < 0 else w[k]).casefold()
                                                           for w in words}) == 1:
            k += 1
        if k >= need:
            glued = words[0][-k:] if side < 0 else words[0][:k]
            names = [" ".join(w[:-k] if side < 0 else w[k:]) for w in words]
            text = " ".join(glued)
            return [n[:1].upper() + n[1:] for n in names], text[:1].upper() + text[1:]
    return header, ""


def _texts_from_grid(table: Table) -> None:
    """The cells' texts from the (repaired) header and rows, so the two never disagree."""
    grid = [*table.header, *table.rows]
    table.cells = [replace(c, text=grid[c.row][c.col]) if c.row < len(grid) and c.col < len(grid[c.row]) else c
                   for c in table.cells]


def _record(rec: object, origin: str, lineno: int, default_language: str) -> Fetched:
    """One FreshTab record as a `Fetched` with its table; ValueError says why it cannot be used."""
    if not isinstance(rec, dict):
        raise ValueError("the record is not a JSON object")
    grid = rec.get("table")
    if not isinstance(grid, list) or not all(isinstance(r, list) for r in grid):
        raise ValueError("no 'table' (a list of rows)")
    if len(grid) < 2:
        raise ValueError(f"the table has {len(grid)} row(s): a header and at least one data row are needed")
    url = str(rec.get("url") or "").strip()
    if not url:
        raise ValueError("no 'url': the table could not be attributed")
    raw_header = [str(h) for h in grid[0]]
    notes: list[str] = []
    cleaned = [_UNNAMED.sub("", _PANDAS_DUP.sub("", _FOOTNOTE.sub("", _INVISIBLE.sub("", h)).strip())).strip("_")
               for h in raw_header]
    prefix = _common_prefix(cleaned)
    if prefix:
        notes.append(f"a title row glued onto every header was removed: {readable_header('_'.join(prefix))!r}")
        cleaned = [h[len("_".join(prefix)) + 1:] for h in cleaned]
    header = [readable_header(h) for h in cleaned]
    rows = [[_cell(v) for v in row] for row in grid[1:]]
    rows = [r for r in rows if any(r)]
    if not rows:
        raise ValueError("every data row is empty")
    numbered = bool(raw_header) and all(h.strip().isdigit() for h in raw_header)
    one_name = len(header) > 1 and len(set(header)) == 1  # a title spread over every column
    first = rows[0]
    if (numbered or one_name) and len(rows) > 1 and all(first) and len(set(first)) > 1 \
            and all(not any(ch.isdigit() for ch in v) for v in first):
        why = "pandas' column numbers" if numbered else f"one title over every column ({header[0]!r})"
        header = [_SPACES.sub(" ", v).strip() for v in first]
        rows = rows[1:]
        notes.append(f"the header was {why}; the first row, all labels, became the header")
    elif numbered:
        notes.append("the header is pandas' column numbers: the table had no header, its columns are unnamed")
    dups = [h for h in raw_header if _PANDAS_DUP.search(_INVISIBLE.sub("", h))]
    if dups:
        notes.append(f"pandas suffixes removed from repeated headers: {dups[:5]}")
    language = str(rec.get("language") or default_language).strip().lower() or default_language
    header, heading = _glued_heading(header, rows, language)
    if heading:
        notes.append(f"a heading glued onto every column name was split off: {heading!r}")
    flat: FlatTable | None = read_flat_grid(header, rows, language, heading)
    if flat is not None and not (flat.rows and flat.header):
        flat = None  # nothing left but headings, or the header was one title: the grid as pandas gave it
    cells: list[Cell] = []
    levels = [header]
    if flat is not None:
        notes.extend(flat.notes)
        levels, rows = flat.header, flat.rows
        if flat.changed or any(c.rowspan > 1 or c.colspan > 1 for c in flat.cells):
            cells = flat.cells
    if len(levels) > 1 and len(set(flatten_header(levels))) < len(levels[-1]):
        levels = [flatten_header(levels)]  # two levels that still repeat a name: one level, made distinct below
    if len(levels) == 1:
        levels = [_unique(levels[0])]
    created, date_note = read_date(rec.get("date"))
    if date_note:
        notes.append(date_note)
    category = str(rec.get("category") or "").strip()
    domain = DOMAINS.get(category.split("|")[0].strip().lower(), "other")
    title = str(rec.get("title") or "").strip()
    qid = str(rec.get("QID") or "").strip()
    revision = content_id("rev", raw_header, grid[1:])
    meta = SourceMeta(kind="freshtab", uri=url, title=title, revision=revision,
                      table_index=0, created_at=created, licence=LICENCE,
                      attribution=f"{title or url}, Wikipedia ({url}), CC BY-SA 4.0; via FreshTab ({origin})")
    tid = content_id("freshtab", origin, str(rec.get("csv_id") or lineno), qid, revision)
    caption = " — ".join([title, *(t for t in flat.titles if t and t != title)]) if flat else title
    table = Table(id=tid, source=meta, header=levels, rows=rows, language=language, domain=domain, caption=caption,
                  cells=cells, group_column=flatten_header(levels)[0] if flat and flat.group_column else "",
                  total_rows=flat.total_rows if flat else [], footnotes=flat.footnotes if flat else [])
    notes.extend(_repair_pandas_floats(table))
    notes.extend(_numeric_outliers(table))
    _texts_from_grid(table)
    event = created if created.endswith("T00:00:00Z") else ""
    extra = {"freshtab_category": category, "freshtab_dataset": str(rec.get("dataset") or origin),
             "qid": qid, "csv_id": str(rec.get("csv_id") or ""), "raw_header": json.dumps(raw_header,
                                                                                         ensure_ascii=False)}
    return Fetched(meta=meta, language=language, domain=domain, tables=[table], format="freshtab",
                   event_date=event, page_created_at="" if event else created, notes=notes, extra=extra)


_NAMED_LANGUAGE = re.compile(r"[._]([a-z]{2})\.jsonl?$")


def _language_of(path: Path) -> str:
    """`FreshTab.01.26.en.jsonl` and `FT2-5_25_de.jsonl` name their language; "en" otherwise."""
    m = _NAMED_LANGUAGE.search(path.name)
    return m.group(1) if m else "en"


def _records(path: Path) -> Iterator[tuple[int, Any] | Failure]:
    """(line number, decoded record) per record of a JSONL file or a JSON list; Failures for bad lines."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        yield Failure(str(path), f"cannot read the file: {e}", "freshtab")
        return
    if path.suffix == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            yield Failure(str(path), f"not valid JSON: {e.msg} at line {e.lineno}", "freshtab")
            return
        if isinstance(data, dict):
            data = data.get("data", data.get("tables", [data]))
        if not isinstance(data, list):
            yield Failure(str(path), "a JSON file must hold a list of records", "freshtab")
            return
        yield from enumerate(data, 1)
        return
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            yield lineno, json.loads(line)
        except json.JSONDecodeError as e:
            yield Failure(f"{path}:{lineno}", f"not valid JSON: {e.msg} at column {e.colno}", "freshtab")


def iter_freshtab(location: str | Path, language: str | None = None) -> Iterator[Item]:
    """Every record of a FreshTab file, or of every *.jsonl / *.json file in a folder (sorted by name);
    `language` is the language of records that do not name theirs (default: from the file name)."""
    root = Path(location)
    if root.is_dir():
        files = sorted(p for p in root.iterdir() if p.suffix in (".jsonl", ".json") and p.is_file())
        if not files:
            yield Failure(str(root), "the folder has no .jsonl or .json files", "freshtab")
    elif root.is_file():
        files = [root]
    else:
        yield Failure(str(root), "no such file or folder", "freshtab")
        return
    for path in files:
        default = _language_of(path) if _NAMED_LANGUAGE.search(path.name) else language or "en"
        for got in _records(path):
            if isinstance(got, Failure):
                yield got
                continue
            lineno, rec = got
            try:
                yield _record(rec, path.name, lineno, default)
            except ValueError as e:
                yield Failure(f"{path}:{lineno}", str(e), "freshtab")


class FreshTabConfig(SourceConfig):
    location: str
    # The language of a record without its own `language` field (every FreshTab record has one; the
    # scraper command always passes a language, so this cannot override the records).
    language: str | None = None
    force_language: str | None = None  # overrides the records' own `language`
    limit: int | None = Field(None, ge=1)


class FreshTabSource:
    name = "freshtab"

    def __init__(self, config: FreshTabConfig) -> None:
        self.config = config

    def fetch(self, limit: int | None = None) -> Iterator[Item]:
        limit = limit or self.config.limit
        produced = 0
        counts: Counter[str] = Counter()
        for item in iter_freshtab(self.config.location, self.config.language):
            if isinstance(item, Fetched):
                if limit is not None and produced >= limit:
                    return
                if self.config.force_language:
                    item.language = self.config.force_language
                    item.tables = [_with_language(t, self.config.force_language) for t in item.tables]
                produced += 1
                counts[item.language] += 1
            yield item
        log.info("freshtab %s: %d tables %s", self.config.location, produced, dict(counts))


def _with_language(table: Table, language: str) -> Table:
    table.language = language
    return table


@register_source("freshtab", config=FreshTabConfig)
def _build(config: FreshTabConfig) -> FreshTabSource:
    return FreshTabSource(config)
