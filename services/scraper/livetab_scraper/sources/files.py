"""The `local_files` source (alias `local_csv`): tables from a file or a folder of files.

Formats by extension: CSV/TSV, XLSX, JSON (records or `{columns, data}`), HTML (through the page
extractor, `livetab_scraper.extract.extract_tables`), Markdown pipe tables and DOCX. Each file gives
one `Fetched` with its tables; whatever gives nothing — an unreadable file, an empty sheet, a DOCX
without tables, malformed JSON, an unsupported format — is a `Failure` with the reason.

Ids are deterministic: the URI is `file:` + the path relative to the configured location and the
revision is the sha256 of the file's bytes, so the same file gives the same table ids anywhere.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Iterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from livetab.tables import Table
from pydantic import Field

from livetab_scraper.filestructure import read_file_structure, shape_grid
from livetab_scraper.sources.base import Failure, Fetched, Item, SourceConfig, SourceMeta, register_source
from livetab_scraper.sources.cellgrid import FileReadError, ParsedFile, build_table
from livetab_scraper.sources.office import read_docx, read_xlsx
from livetab_scraper.sources.textfiles import decode_text, read_csv, read_json, read_markdown

__all__ = ["FORMATS", "LocalFilesConfig", "LocalFilesSource", "read_table_file"]

log = logging.getLogger(__name__)

FORMATS = {
    ".csv": "csv", ".tsv": "csv", ".tab": "csv", ".xlsx": "xlsx", ".xlsm": "xlsx", ".json": "json",
    ".html": "html", ".htm": "html", ".md": "markdown", ".markdown": "markdown", ".docx": "docx",
}
UNSUPPORTED_HINTS = {".xls": "old binary Excel; save it as .xlsx", ".doc": "old binary Word; save it as .docx",
                     ".ods": "OpenDocument; save it as .xlsx", ".pdf": "PDF tables are not supported"}


class LocalFilesConfig(SourceConfig):
    location: str
    language: str = "en"
    domain: Literal["sport", "politics", "culture", "other"] = "other"
    licence: str = ""
    attribution: str = ""
    recursive: bool = True
    encoding: str | None = None
    strict_utf8: bool = False
    delimiter: str | None = None
    escapechar: str | None = None
    header_rows: int | None = Field(None, ge=0)
    html_selector: str = "data"
    max_bytes: int = Field(50_000_000, ge=1)
    limit: int | None = Field(None, ge=1)


def _parse(path: Path, data: bytes, cfg: LocalFilesConfig) -> ParsedFile:
    kind = FORMATS[path.suffix.lower()]
    if kind == "csv":
        return read_csv(data, suffix=path.suffix.lower(), encoding=cfg.encoding, delimiter=cfg.delimiter,
                        escapechar=cfg.escapechar, header_rows=1 if cfg.header_rows is None else cfg.header_rows,
                        strict_utf8=cfg.strict_utf8)
    if kind == "xlsx":
        return read_xlsx(data, header_rows=cfg.header_rows)
    if kind == "json":
        return read_json(data, encoding=cfg.encoding)
    if kind == "markdown":
        return read_markdown(data, encoding=cfg.encoding)
    return read_docx(data, header_rows=cfg.header_rows)


def _extract_html(data: bytes, meta: SourceMeta,
                  cfg: LocalFilesConfig) -> tuple[list[Table], list[str], list[str], dict[str, str]]:
    """Tables, problems, notes and the encoding of an HTML file through the page extractor."""
    try:
        from livetab_scraper.extract import extract_tables
    except ImportError as e:
        raise FileReadError(f"the HTML extractor is not available ({e})") from None
    text, used, notes = decode_text(data, cfg.encoding, strict_utf8=cfg.strict_utf8)
    result = extract_tables(text, source=meta, language=cfg.language, selector=cfg.html_selector)
    tables = [replace(t, domain=cfg.domain) for t in result.tables]
    problems = list(result.errors) if not tables else []
    notes += list(result.warnings) + ([] if not tables else list(result.errors))
    return tables, problems, notes, {"encoding": used}


def read_structure_of(table: Table, header_rows: int) -> tuple[Table, list[str]]:
    """The table with the structure read from its content (header depth, units, sections, totals):
    `livetab_scraper.filestructure`; unchanged when the content shows none beyond the reader's default."""
    grid = [*table.header, *table.rows]
    if any(c.rowspan > 1 or c.colspan > 1 for c in table.cells if not c.header):
        return table, []  # merged body cells: the document's own structure, kept as read
    found = read_file_structure(grid, table.language, default_header=header_rows)
    if any(c.colspan > 1 for c in table.cells):
        found.spans = {}  # the document merged its header cells itself
    if (found.header_rows == header_rows and not found.unit_rows and not found.sections and not found.totals
            and not found.units and not found.spans):
        return table, []
    header, rows, cells, group, totals, units = shape_grid(grid, found, table.language)
    if not rows:
        return table, []
    return replace(table, header=header, rows=rows, cells=cells, group_column=group, total_rows=totals,
                   column_units=units), found.notes()


def read_table_file(path: Path, cfg: LocalFilesConfig, root: Path,
                    now: Callable[[], datetime] = lambda: datetime.now(UTC)) -> list[Item]:
    """One file: a `Fetched` with its tables (if any) and a `Failure` for each part that gave nothing."""
    where = str(path)
    suffix = path.suffix.lower()
    if suffix not in FORMATS:
        hint = UNSUPPORTED_HINTS.get(suffix, "supported: " + ", ".join(sorted(FORMATS)))
        return [Failure(where, f"unsupported file type {suffix or '(none)'}: {hint}", "local_files")]
    try:
        size = path.stat().st_size
        if size > cfg.max_bytes:
            return [Failure(where, f"file is {size} bytes, over max_bytes={cfg.max_bytes}", "local_files")]
        data = path.read_bytes()
        stat = path.stat()
    except OSError as e:
        return [Failure(where, f"cannot read the file: {e.strerror or e}", "local_files")]
    if not data:
        return [Failure(where, "the file is empty", "local_files")]
    try:
        rel = path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        rel = path.name
    meta = SourceMeta(kind="local_files", uri=f"file:{rel}", title=path.stem,
                      revision=hashlib.sha256(data).hexdigest()[:16],
                      created_at=datetime.fromtimestamp(stat.st_mtime, UTC).isoformat(timespec="seconds"),
                      retrieved_at=now().isoformat(timespec="seconds"), licence=cfg.licence,
                      attribution=cfg.attribution)
    try:
        if FORMATS[suffix] == "html":
            tables, problems, notes, extra = _extract_html(data, meta, cfg)
        else:
            parsed = _parse(path, data, cfg)
            problems, notes, extra = parsed.problems, parsed.notes, parsed.extra
            tables = []
            for i, pt in enumerate(parsed.tables):
                title = f"{path.stem} — {pt.name}" if FORMATS[suffix] == "xlsx" and pt.name else path.stem
                tmeta = replace(meta, table_index=i, title=title)
                table = build_table(pt.cells, pt.header_rows, meta=tmeta, language=cfg.language,
                                    domain=cfg.domain, caption=pt.caption, footnotes=pt.footnotes)
                if cfg.header_rows is None and FORMATS[suffix] != "markdown":
                    table, found = read_structure_of(table, pt.header_rows)
                    notes += found
                tables.append(table)
    except FileReadError as e:
        return [Failure(where, str(e), "local_files")]
    items: list[Item] = [Failure(where, p, "local_files") for p in problems]
    if tables:
        items.insert(0, Fetched(meta=meta, language=cfg.language, domain=cfg.domain, tables=tables,
                                format=FORMATS[suffix], notes=notes, extra=extra))
    elif not problems:
        items.append(Failure(where, "no tables found", "local_files"))
    return items


class LocalFilesSource:
    name = "local_files"

    def __init__(self, config: LocalFilesConfig) -> None:
        self.config = config

    def _paths(self, location: Path) -> list[Path]:
        walk = location.rglob("*") if self.config.recursive else location.glob("*")
        return sorted(p for p in walk if p.is_file()
                      and not any(part.startswith(".") for part in p.relative_to(location).parts))

    def fetch(self, limit: int | None = None) -> Iterator[Item]:
        limit = limit or self.config.limit
        location = Path(self.config.location)
        if location.is_dir():
            root, paths = location, self._paths(location)
        elif location.is_file():
            root, paths = location.parent, [location]
        else:
            yield Failure(str(location), "no such file or folder", self.name)
            return
        produced = 0
        for path in paths:
            if limit is not None and produced >= limit:
                return
            for item in read_table_file(path, self.config, root):
                produced += isinstance(item, Fetched)
                yield item


@register_source("local_files", "local_csv", config=LocalFilesConfig)
def _build(config: LocalFilesConfig) -> LocalFilesSource:
    return LocalFilesSource(config)
