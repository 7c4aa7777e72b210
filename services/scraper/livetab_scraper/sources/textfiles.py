"""Readers for text table files: CSV/TSV (delimiter and encoding sniffed), JSON and Markdown pipe tables.

Encodings are tried in order — a UTF-8 or UTF-16 byte-order mark, UTF-8, cp1252, latin-1 — and the
one used is recorded; anything but clean UTF-8 adds a note saying where UTF-8 decoding failed. A file
with NUL bytes and no UTF-16 mark is refused as binary.
"""

from __future__ import annotations

import codecs
import csv
import io
import json
import re
from typing import Any

from livetab_scraper.sources.cellgrid import FileReadError, ParsedFile, ParsedTable, plain_cells

__all__ = ["decode_text", "read_csv", "read_json", "read_markdown"]

DELIMITERS = ",;\t|"


def decode_text(data: bytes, encoding: str | None = None, *, strict_utf8: bool = False) -> tuple[str, str, list[str]]:
    """Text, the encoding used, and notes. Raises FileReadError when it cannot be text."""
    if encoding:
        try:
            return data.decode(encoding), encoding, []
        except (UnicodeDecodeError, LookupError) as e:
            raise FileReadError(f"cannot decode as the configured encoding {encoding!r}: {e}") from None
    if data.startswith(codecs.BOM_UTF8):
        return data.decode("utf-8-sig", errors="strict"), "utf-8-sig", []
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        try:
            return data.decode("utf-16"), "utf-16", []
        except UnicodeDecodeError as e:
            raise FileReadError(f"has a UTF-16 byte-order mark but is not valid UTF-16: {e.reason}") from None
    try:
        return data.decode("utf-8"), "utf-8", []
    except UnicodeDecodeError as e:
        bad = f"invalid byte 0x{data[e.start]:02x} at offset {e.start}"
        if b"\x00" in data[:65536]:
            raise FileReadError(f"looks like a binary file, not text (NUL bytes; not UTF-8: {bad})") from None
        if strict_utf8:
            raise FileReadError(f"is not UTF-8 ({bad}) and strict_utf8 is set") from None
        note = f"not UTF-8 ({bad})"
    try:
        return data.decode("cp1252"), "cp1252", [f"{note}; decoded as cp1252"]
    except UnicodeDecodeError:
        return data.decode("latin-1"), "latin-1", [f"{note} nor cp1252; decoded as latin-1"]


def _sniff_delimiter(text: str, suffix: str) -> tuple[str, str]:
    if suffix in (".tsv", ".tab"):
        return "\t", "file extension"
    sample = text[:65536]
    try:
        return csv.Sniffer().sniff(sample, delimiters=DELIMITERS).delimiter, "sniffed"
    except csv.Error:
        first = next((ln for ln in sample.splitlines() if ln.strip()), "")
        counts = {d: first.count(d) for d in DELIMITERS}
        best = max(counts, key=lambda d: counts[d])
        return (best, "most frequent in the first line") if counts[best] else (",", "default")


def read_csv(data: bytes, *, suffix: str = ".csv", encoding: str | None = None, delimiter: str | None = None,
             escapechar: str | None = None, header_rows: int = 1, strict_utf8: bool = False) -> ParsedFile:
    text, used, notes = decode_text(data, encoding, strict_utf8=strict_utf8)
    if not text.strip():
        raise FileReadError("the file is empty")
    how = "configured"
    if not delimiter:
        delimiter, how = _sniff_delimiter(text, suffix)
    try:
        rows = [row for row in csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, escapechar=escapechar)
                if any(v.strip() for v in row)]
    except csv.Error as e:
        raise FileReadError(f"is not valid delimited text ({e})") from None
    out = ParsedFile(notes=notes, extra={"encoding": used, "delimiter": delimiter, "delimiter_from": how})
    _add_rows(out, rows, header_rows, name="")
    return out


def _add_rows(out: ParsedFile, rows: list[list[str]], header_rows: int, name: str, caption: str = "") -> None:
    label = f"table {name!r}: " if name else ""
    if len(rows) <= header_rows:
        out.problems.append(f"{label}has a header but no data rows" if rows else f"{label}has no rows")
        return
    width = max(len(r) for r in rows)
    ragged = sum(1 for r in rows if len(r) != width)
    if ragged:
        out.notes.append(f"{label}{ragged} of {len(rows)} rows had fewer than {width} values and were padded")
    grid = [[v.strip() for v in r] + [""] * (width - len(r)) for r in rows]
    out.tables.append(ParsedTable(plain_cells(grid), header_rows, name=name, caption=caption))


def _cell_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def read_json(data: bytes, *, encoding: str | None = None) -> ParsedFile:
    """Records (`[{col: value}, …]`, also under `"data"`/`"records"`) or `{"columns": […], "data": [[…]]}`."""
    text, used, notes = decode_text(data, encoding)
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise FileReadError(f"is not valid JSON: {e.msg} at line {e.lineno} column {e.colno}") from None
    out = ParsedFile(notes=notes, extra={"encoding": used})
    if isinstance(doc, dict) and "columns" in doc and "data" in doc:
        columns, body = doc["columns"], doc["data"]
        if not isinstance(columns, list) or not isinstance(body, list) or not all(isinstance(r, list) for r in body):
            raise FileReadError("has 'columns' and 'data' but they are not a list and a list of lists")
        long = sum(1 for r in body if len(r) > len(columns))
        if long:
            raise FileReadError(f"{long} rows of 'data' have more values than the {len(columns)} 'columns'")
        out.extra["shape"] = "columns+data"
        _add_rows(out, [[_cell_text(c) for c in columns]] + [[_cell_text(v) for v in r] for r in body], 1, "")
        return out
    records = doc.get("data", doc.get("records")) if isinstance(doc, dict) else doc
    if not isinstance(records, list):
        raise FileReadError(f"holds a JSON {type(doc).__name__}, not records or {{columns, data}}")
    if not records:
        raise FileReadError("holds no records")
    if all(isinstance(r, list) for r in records):
        out.extra["shape"] = "rows"
        _add_rows(out, [[_cell_text(v) for v in r] for r in records], 1, "")
        return out
    if not all(isinstance(r, dict) for r in records):
        kinds = sorted({type(r).__name__ for r in records})
        raise FileReadError(f"records must all be objects, found {', '.join(kinds)}")
    keys: list[str] = list(dict.fromkeys(str(k) for r in records for k in r))
    out.extra["shape"] = "records"
    missing = sum(1 for r in records for c in keys if c not in r)
    if missing:
        out.notes.append(f"{missing} values were missing from records and left empty")
    _add_rows(out, [keys] + [[_cell_text(r.get(c)) for c in keys] for r in records], 1, "")
    return out


_SEPARATOR = re.compile(r"^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")


def _split_row(line: str) -> list[str]:
    s = line.strip()
    if s.startswith("|"):
        s = s[1:]
    if s.endswith("|") and not s.endswith("\\|"):
        s = s[:-1]
    cells, cur, i = [], [], 0
    while i < len(s):
        ch = s[i]
        if ch == "\\" and i + 1 < len(s) and s[i + 1] == "|":
            cur.append("|")
            i += 2
            continue
        if ch == "|":
            cells.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
        i += 1
    cells.append("".join(cur).strip())
    return cells


def read_markdown(data: bytes, *, encoding: str | None = None) -> ParsedFile:
    """Every pipe table (header line, `|---|` separator, body lines); the nearest heading is its caption."""
    text, used, notes = decode_text(data, encoding)
    lines = text.splitlines()
    out = ParsedFile(notes=notes, extra={"encoding": used})
    heading = ""
    i = 0
    while i < len(lines):
        line = lines[i]
        m = _HEADING.match(line)
        if m:
            heading = m.group(1)
        if "|" in line and i + 1 < len(lines) and _SEPARATOR.match(lines[i + 1]) and "-" in lines[i + 1]:
            header = _split_row(line)
            rows = [header]
            i += 2
            extra = 0
            while i < len(lines) and "|" in lines[i] and lines[i].strip():
                row = _split_row(lines[i])
                if len(row) > len(header):
                    extra += 1
                    row = row[:len(header)]
                rows.append(row)
                i += 1
            name = str(len(out.tables) + len(out.problems) + 1)
            if extra:
                out.notes.append(f"table {name!r}: {extra} rows had more cells than the header; extra cells dropped")
            _add_rows(out, rows, 1, name, caption=heading)
            continue
        i += 1
    if not out.tables and not out.problems:
        raise FileReadError("has no Markdown pipe tables")
    return out
