"""The extractor against WikiTableQuestions' reference tables on 150 real Wikipedia pages.

`wiki_html/` (50 pages) and `wiki_html_more/` (100 more, with title rows, section rows and colour
swatches): for each page of the manifests the `table_index`-th wikitable is extracted and compared
cell for cell with the reference CSV. How the reference was made (WTQ's table-to-csv, rules in
../shared/data/README.md), and so how the comparison reads our table:

- its header is one row: the labels of a column's header levels, top to bottom, joined by a line
  break, a label repeated by a rowspan written once (`1975–1979\\nObverse`); a colspan repeats the
  label in every column it covers (`Round, Round`);
- a row whose cells all hold the same text is dropped (a title row, a full-width section or note
  row, a spacer row). This rule is NOT applied to our rows: livetab keeps such rows as structure,
  not as data rows, and the test proves it page by page. `SAME_TEXT_ROWS` lists every such row of
  the 150 target tables (found in the page's HTML, independently of the structure reader) and what
  livetab made of it: the caption (a title row, or one section heading over the whole body), a row
  group (the `Section` column, left out of the comparison as the reference has no such column), a
  note (a full-width row under the body, kept in `Table.footnotes`) or nothing (a spacer row);
  a same-text row left among our data rows would be a difference;
- near-empty columns are dropped: the comparison drops our columns whose body has no text
  (`drop_empty`), every one listed in `EMPTY_COLUMNS` (image, map and reference columns; livetab
  keeps them at extraction, its cleaning step drops them). Decorative columns (colour swatches,
  spacers with no header of their own) livetab drops itself;
- whitespace inside a cell is not significant (the reference keeps stray spaces after line breaks),
  nor are invisible format characters (Unicode category Cf: the zero-width no-break spaces around
  the `/` of coordinates, soft hyphens), which livetab's cell text leaves out; cells are compared
  with those removed and runs of whitespace collapsed.

Every page that still differs is listed in `EXPLAINED` with its class, and the test asserts both
that the list is exact and that each differing cell is of the stated class. Figure and command:

    .venv/bin/python -m pytest services/scraper/tests/test_extract_wtq.py -q -s   (prints N/150)
"""

from __future__ import annotations

import csv
import functools
import json
import re
import unicodedata
from pathlib import Path

import pytest
from livetab.paths import shared_data
from livetab.tables import Source, Table
from livetab_scraper.clean import drop_empty
from livetab_scraper.extract import ExtractResult, extract_tables
from livetab_scraper.grid import MAX_COLSPAN, MAX_ROWSPAN, RawCell, expand, parse_span
from livetab_scraper.htmltext import cell_text
from lxml import etree

WIKI = shared_data() / "wiki_html"
MORE = shared_data() / "wiki_html_more"


def _manifest(folder: Path) -> dict[str, tuple[Path, int]]:
    lines = (folder / "manifest.jsonl").read_text(encoding="utf-8").splitlines()
    return {(m := json.loads(line))["page_id"]: (folder, int(m["table_index"])) for line in lines if line.strip()}


MANIFEST = {**_manifest(WIKI), **_manifest(MORE)}
PAGES = sorted(MANIFEST)

# Pages that differ from the reference, by class. "marker": livetab separates a footnote or
# maintenance marker from the value, the reference keeps it in the cell (each differing reference
# cell is our value followed by the marker).
EXPLAINED: dict[str, tuple[str, str]] = {
    "204-458": ("marker", "symbol footnote marker: reference 'Watkins Glen‡', livetab 'Watkins Glen' + marker ‡"),
    "204-321": ("marker", "maintenance tag: reference '2016[citation needed]', livetab '2016' (tag removed)"),
}
_MARKER_TAIL = re.compile(r"^(?:[*†‡§¶#]+|\[[^\]]{1,30}\])$")

# Every row of the 150 target tables whose cells all hold one text (the reference drops them), in
# table order: (what livetab made of it, the start of its text). "caption": lifted to Table.caption
# (a title row over the header, or one section heading over the whole body); "group": a section row,
# the value of the `Section` column for the rows under it; "note": a full-width row under the body,
# kept in Table.footnotes; "spacer": a row with no text, dropped. None is a data row in livetab.
SAME_TEXT_ROWS: dict[str, list[tuple[str, str]]] = {
    "202-57": [("caption", "Climate data for Varna, Bulgaria"), ("note", "Source: Climatebase.ru")],
    "203-429": [("caption", "Representing Austria")],
    "203-454": [("note", '"—" denotes a recording that did not chart')],
    "203-503": [("spacer", "")],
    "203-617": [("note", "Reference:")],
    "203-709": [("note", "Sources:")],
    "203-781": [("caption", "Representing Kazakhstan")],
    "203-821": [("note", "(*) designates lists that are unordered.")],
    "203-824": [("note", 'Reference: "1983 NHL Entry Draft')],
    "204-153": [("group", "Grand Slam tournaments"), ("group", "Career statistics")],
    "204-588": [("caption", "Representing United Arab Emirates")],
    "204-603": [("note", "OFFICIAL 125CC REPORT")],
    "204-692": [("note", "Notes:\nProvides aggregate scores.")],
}

# Columns with no text in the body (images, maps, links to references), which the reference drops
# as near-empty and livetab keeps until cleaning: page -> their names.
EMPTY_COLUMNS: dict[str, list[str]] = {
    "203-422": ["Image"],
    "203-550": ["Image", "Ref(s)"],
    "204-176": ["Image", "Date designated"],
    "204-191": ["Image"],
    "204-330": ["Post"],
    "204-579": ["Map"],
    "204-773": ["Reference"],
    "204-873": ["Portrait"],
}


def wtq_header(levels: list[list[str]]) -> list[str]:
    width = max((len(level) for level in levels), default=0)
    out = []
    for c in range(width):
        parts: list[str] = []
        for level in levels:
            label = level[c] if c < len(level) else ""
            if label and (not parts or parts[-1] != label):
                parts.append(label)
        out.append("\n".join(parts))
    return out


def _visible(v: str) -> str:
    if v.isascii():
        return v
    return "".join(ch for ch in v if unicodedata.category(ch) != "Cf")


def norm(grid: list[list[str]]) -> list[list[str]]:
    return [[" ".join(_visible(v).split()) for v in row] for row in grid]


@functools.cache
def load(page_id: str) -> tuple[dict[str, object], ExtractResult]:
    """The page's metadata and extraction (cached: tests read the results and do not change them)."""
    folder = MANIFEST[page_id][0] if page_id in MANIFEST else WIKI
    meta = json.loads((folder / "pages" / f"{page_id}.json").read_text(encoding="utf-8"))
    html = (folder / "pages" / f"{page_id}.html").read_text(encoding="utf-8")
    source = Source(kind="wikipedia", uri=str(meta["url"]), title=str(meta["title"]), revision=str(meta["revision"]))
    return meta, extract_tables(html, source=source, language="en")


def target(meta: dict[str, object], result: ExtractResult) -> Table | None:
    return next((t for t in result.tables if t.source.table_index == meta["tableIndex"]), None)


def reference(page_id: str) -> list[list[str]]:
    folder = MANIFEST[page_id][0] if page_id in MANIFEST else WIKI
    with open(folder / "tables" / f"{page_id}.csv", encoding="utf-8", newline="") as f:
        return list(csv.reader(f, escapechar="\\"))


def as_wtq(table: Table) -> list[list[str]]:
    """Our table as the reference's rules write it (see the module docs)."""
    table = drop_empty(table)
    header, rows = table.header, table.rows
    if table.group_column:  # the reference has no row-group column
        header, rows = [level[1:] for level in header], [r[1:] for r in rows]
    return ([wtq_header(header)] if header else []) + rows


def cell_diffs(got: list[list[str]], ref: list[list[str]]) -> list[tuple[str, str]]:
    """(reference, ours) for every differing cell of two grids of the same shape."""
    assert len(got) == len(ref) and all(len(a) == len(b) for a, b in zip(got, ref, strict=True))
    return [(v, got[r][c]) for r, row in enumerate(ref) for c, v in enumerate(row) if got[r][c] != v]


def cell_match_rate(got: list[list[str]], ref: list[list[str]]) -> float:
    total = sum(len(r) for r in ref)
    same = sum(1 for r, row in enumerate(ref) for c, v in enumerate(row)
               if r < len(got) and c < len(got[r]) and got[r][c] == v)
    extra = max(0, sum(len(r) for r in got) - total)
    return same / max(total + extra, 1)


@pytest.fixture(scope="module")
def outcomes() -> dict[str, tuple[bool, float, str]]:
    out: dict[str, tuple[bool, float, str]] = {}
    for pid in PAGES:
        meta, result = load(pid)
        table = target(meta, result)
        if table is None:
            out[pid] = (False, 0.0, f"not extracted: {result.errors}")
            continue
        got, ref = norm(as_wtq(table)), norm(reference(pid))
        out[pid] = (got == ref, cell_match_rate(got, ref), "" if got == ref else f"{len(got)} vs {len(ref)} rows")
    return out


def test_150_pages_present_with_their_manifest_index() -> None:
    assert len(PAGES) == 150
    for pid, (folder, index) in MANIFEST.items():
        meta = json.loads((folder / "pages" / f"{pid}.json").read_text(encoding="utf-8"))
        assert meta["tableIndex"] == index, pid
        assert (folder / "tables" / f"{pid}.csv").is_file(), pid


def test_at_least_145_of_150_pages_match_cell_for_cell(
    outcomes: dict[str, tuple[bool, float, str]], capsys: pytest.CaptureFixture[str],
) -> None:
    matched = sum(ok for ok, _, _ in outcomes.values())
    with capsys.disabled():
        print("\nWTQ reference match, pages that differ (cell match rate):")
        for pid, (ok, rate, note) in outcomes.items():
            if not ok:
                print(f"  {pid:>8}  DIFF  {rate:6.1%}  {note}  [{EXPLAINED.get(pid, ('unexplained',))[0]}]")
        print(f"  pages matching cell for cell: {matched}/{len(outcomes)}")
    assert matched >= 145, {pid: o for pid, o in outcomes.items() if not o[0]}


def test_every_difference_is_explained_by_its_class(outcomes: dict[str, tuple[bool, float, str]]) -> None:
    differing = {pid for pid, (ok, _, _) in outcomes.items() if not ok}
    assert differing == set(EXPLAINED), (differing - set(EXPLAINED), set(EXPLAINED) - differing)
    for pid, (cls, _) in EXPLAINED.items():
        meta, result = load(pid)
        table = target(meta, result)
        assert table is not None
        diffs = cell_diffs(norm(as_wtq(table)), norm(reference(pid)))
        assert diffs, pid
        if cls == "marker":
            for ref_v, ours in diffs:
                assert ref_v.startswith(ours) and _MARKER_TAIL.match(ref_v[len(ours):].strip()), (pid, ref_v, ours)
        else:  # pragma: no cover - a new class needs its own check
            raise AssertionError(f"no check for class {cls!r}")


def page_html(page_id: str) -> bytes:
    return (MANIFEST[page_id][0] / "pages" / f"{page_id}.html").read_bytes()


def same_text_rows(page_id: str) -> list[str]:
    """The reference's dropped rows, read from the page's HTML: every row of the target wikitable
    whose slots, spans expanded, all hold one text (a full-width cell, a row of equal cells, a blank row).

    Only cell text and span expansion are livetab's; rows are read here, not by the structure reader.
    """
    meta, _ = load(page_id)
    root = etree.fromstring(page_html(page_id), etree.HTMLParser(encoding="utf-8"))
    tables = [t for t in root.iter("table") if "wikitable" in (t.get("class") or "").split()]
    el = tables[int(str(meta["tableIndex"]))]
    raw = [[RawCell(cell_text(td).text, parse_span(td.get("rowspan"), limit=MAX_ROWSPAN, zero_ok=True)[0],
                    parse_span(td.get("colspan"), limit=MAX_COLSPAN, zero_ok=False)[0])
            for td in tr if td.tag in ("td", "th")]
           for tr in el.iter("tr") if next(tr.iterancestors("table")) is el]
    grid = expand(raw)
    out = []
    for r in range(grid.n_rows):
        texts = {grid.values[r][c] for c in range(grid.n_cols) if grid.origin[r][c] >= 0}
        if grid.n_cols > 1 and len(texts) == 1:
            out.append(texts.pop())
    return out


@pytest.fixture(scope="module")
def dropped_rows() -> dict[str, list[str]]:
    return {pid: rows for pid in PAGES if (rows := same_text_rows(pid))}


def test_every_row_the_reference_drops_is_listed_with_what_livetab_made_of_it(
    dropped_rows: dict[str, list[str]],
) -> None:
    assert set(dropped_rows) == set(SAME_TEXT_ROWS), (set(dropped_rows) ^ set(SAME_TEXT_ROWS))
    for pid, texts in dropped_rows.items():
        listed = SAME_TEXT_ROWS[pid]
        assert len(texts) == len(listed) and all(t.startswith(p) for t, (_, p) in zip(texts, listed, strict=True)), (
            pid, texts)
        meta, result = load(pid)
        table = target(meta, result)
        assert table is not None
        groups = [r[0] for r in table.rows] if table.group_column else []
        for text, (fate, _) in zip(texts, listed, strict=True):
            assert not any(len(set(r)) == 1 and r[0] == text for r in table.rows), (pid, text)  # never data
            if fate == "caption":
                assert text in table.caption and not any(text in level for level in table.header), (pid, text)
            elif fate == "group":
                assert text in groups, (pid, text)
            elif fate == "note":
                assert any(text.replace("\n", " ") in " ".join(f.split()) for f in table.footnotes), (pid, text)
            else:
                assert fate == "spacer" and not text.strip(), (pid, text)
                assert all(any(v.strip() for v in r) for r in table.rows), pid


@pytest.mark.parametrize("page_id", sorted(p for p, rows in SAME_TEXT_ROWS.items()
                                           if any(f in ("caption", "group") for f, _ in rows)))
def test_title_and_section_rows_are_kept_as_structure(page_id: str) -> None:
    caption = " — ".join(t for f, t in SAME_TEXT_ROWS[page_id] if f == "caption")
    groups = [t for f, t in SAME_TEXT_ROWS[page_id] if f == "group"]
    meta, result = load(page_id)
    table = target(meta, result)
    assert table is not None
    assert table.caption == caption
    assert all(len(set(r)) > 1 for r in table.rows)  # no section row left as a data row
    if groups:
        assert table.group_column == "Section" and table.columns[0] == "Section"
        seen = [g for i, g in enumerate(r[0] for r in table.rows) if i == 0 or table.rows[i - 1][0] != g]
        assert seen == groups
        merged = [c for c in table.cells if c.col == 0 and c.row >= len(table.header)]
        assert [c.text for c in merged] == groups and sum(c.rowspan for c in merged) == table.n_rows
    else:
        assert not table.group_column
        assert all(caption not in level for level in table.header)


def test_every_column_the_reference_drops_as_empty_is_listed() -> None:
    found: dict[str, list[str]] = {}
    for pid in PAGES:
        meta, result = load(pid)
        table = target(meta, result)
        assert table is not None
        empty = [name for c, name in enumerate(table.columns) if not any(r[c].strip() for r in table.rows)]
        if empty:
            found[pid] = empty
            assert drop_empty(table).n_cols == table.n_cols - len(empty)
    assert found == EMPTY_COLUMNS


@pytest.mark.slow
def test_the_data_selector_extracts_the_same_target_table_on_every_page() -> None:
    """Selector "data" (every table that is not navigation or furniture) finds each target table as it
    is under "wikitable", and no succession box; 2 s of CPU over the 150 pages."""
    for pid in PAGES:
        meta, result = load(pid)
        table = target(meta, result)
        assert table is not None
        source = Source(kind="wikipedia", uri=str(meta["url"]), title=str(meta["title"]), revision=str(meta["revision"]))
        data = extract_tables(page_html(pid), source=source, language="en", selector="data")
        same = [t for t in data.tables if (t.header, t.rows, t.caption) == (table.header, table.rows, table.caption)]
        assert len(same) == 1, (pid, len(data.tables), data.errors)
        for t in data.tables:
            assert not {"Preceded by", "Succeeded by"} & {v for row in [*t.header, *t.rows] for v in row}, (pid, t.id)


def test_colspan_header_is_repeated_over_its_columns(outcomes: dict[str, tuple[bool, float, str]]) -> None:
    meta, result = load("203-514")
    table = target(meta, result)
    assert table is not None
    assert table.columns[:3] == ["Round", "Round", "Race"]
    assert outcomes["203-514"][0]
    head = [c for c in table.cells if c.header and c.row == 0]
    assert (head[0].text, head[0].colspan) == ("Round", 2)  # the original merged cell is kept


def test_footnote_marker_is_separated_and_its_note_kept(outcomes: dict[str, tuple[bool, float, str]]) -> None:
    meta, result = load("204-368")
    table = target(meta, result)
    assert table is not None
    assert table.header[0][:2] == ["Position", "Officer"]
    assert outcomes["204-368"][0]
    assert any(f.startswith("[1] ") and len(f) > 10 for f in table.footnotes), table.footnotes
    markers = result.markers[table.id]
    assert any((m.row, m.col, m.label) == (0, 1, "[1]") for m in markers)


def test_symbol_marker_is_the_only_difference_on_its_page() -> None:
    meta, result = load("204-458")
    table = target(meta, result)
    assert table is not None
    got, ref = norm(as_wtq(table)), norm(reference("204-458"))
    diffs = [(r, c) for r, row in enumerate(ref) for c, v in enumerate(row) if got[r][c] != v]
    assert [(ref[r][c], got[r][c]) for r, c in diffs] == [("Watkins Glen‡", "Watkins Glen")]
    assert any(m.label == "‡" for m in result.markers[table.id])


def test_table_ids_and_indices_are_deterministic() -> None:
    _, first = load("203-122")
    _, second = load.__wrapped__("203-122")
    assert [t.id for t in first.tables] == [t.id for t in second.tables]
    assert [t.source.table_index for t in first.tables] == sorted(t.source.table_index for t in first.tables)
    assert len({t.id for t in first.tables}) == len(first.tables)


def test_every_wikitable_on_the_page_is_accounted_for() -> None:
    """Each `<table class="... wikitable ...">` on a page is either extracted or skipped with a reason."""
    tag = re.compile(r"<table\b[^>]*\bclass=\"[^\"]*\bwikitable\b", re.I)
    for pid in PAGES:
        _, result = load(pid)
        folder = MANIFEST[pid][0]
        expected = len(tag.findall((folder / "pages" / f"{pid}.html").read_text(encoding="utf-8")))
        skipped = [e for e in result.errors if e.startswith("table ")]
        assert len(result.tables) + len(skipped) == expected, (pid, result.errors)
        assert sorted(t.source.table_index for t in result.tables) == [t.source.table_index for t in result.tables]


FURNITURE = {  # page -> (index among its wikitables, class) of furniture classed `wikitable`
    "203-821": (0, "infobox"), "204-74": (0, "infobox"), "204-932": (0, "infobox"),
    "202-248": (2, "succession-box"), "203-122": (11, "succession-box"), "204-603": (3, "succession-box"),
}


@pytest.mark.parametrize("page_id", sorted(FURNITURE))
def test_infoboxes_and_succession_boxes_are_not_data_in_any_selector_mode(page_id: str) -> None:
    index, cls = FURNITURE[page_id]
    meta, result = load(page_id)
    assert index not in [t.source.table_index for t in result.tables]
    assert any(e.startswith(f"table {index}: is page furniture") and cls in e for e in result.errors), result.errors
    assert target(meta, result) is not None  # the data table keeps WTQ's tableIndex, furniture counted
    folder = MANIFEST[page_id][0]
    html = (folder / "pages" / f"{page_id}.html").read_text(encoding="utf-8")
    data = extract_tables(html, source=Source(kind="wikipedia", uri=str(meta["url"])), selector="data")
    for t in data.tables:
        assert not any(v in ("Preceded by", "Succeeded by") for row in [*t.header, *t.rows] for v in row), t.id
