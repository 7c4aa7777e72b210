"""The table model every service shares: a faithful grid plus the cells it came from.

A `Table` keeps the header levels and body rows with spans already expanded (so every row has
`n_cols` values), and the original cells with their spans so renderings can show merged cells.
Structure found in the source is kept, not flattened away: title rows in `caption`, section rows
as a row-group column named by `group_column` (one merged cell per group in `cells`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from livetab.v1 import table_pb2

__all__ = ["Cell", "Profile", "Source", "Table", "flatten_header"]


@dataclass(frozen=True)
class Cell:
    row: int
    col: int
    text: str
    rowspan: int = 1
    colspan: int = 1
    header: bool = False


@dataclass
class Source:
    kind: str
    uri: str = ""
    title: str = ""
    revision: str = ""
    table_index: int = 0
    created_at: str = ""
    retrieved_at: str = ""
    licence: str = ""
    attribution: str = ""


@dataclass
class Profile:
    size_class: str = ""
    multi_level_header: bool = False
    grouped_rows: bool = False
    footnotes: bool = False
    content_types: list[str] = field(default_factory=list)
    n_rows: int = 0
    n_cols: int = 0


def flatten_header(levels: list[list[str]]) -> list[str]:
    """One name per column: the distinct non-empty labels of its header levels, top to bottom."""
    if not levels:
        return []
    n = max(len(level) for level in levels)
    names: list[str] = []
    for c in range(n):
        parts: list[str] = []
        for level in levels:
            label = level[c].strip() if c < len(level) else ""
            if label and (not parts or parts[-1] != label):
                parts.append(label)
        names.append(" - ".join(parts) if parts else f"column {c + 1}")
    return names


@dataclass
class Table:
    id: str
    source: Source
    header: list[list[str]]
    rows: list[list[str]]
    language: str = "en"
    domain: str = "other"
    caption: str = ""
    cells: list[Cell] = field(default_factory=list)
    footnotes: list[str] = field(default_factory=list)
    profile: Profile = field(default_factory=Profile)
    column_types: dict[str, str] = field(default_factory=dict)
    release: str = ""
    group_column: str = ""  # the column of row groups read from section rows ("" when none)
    total_rows: list[int] = field(default_factory=list)  # body rows that total the rows above them
    column_units: dict[str, str] = field(default_factory=dict)  # column name -> unit ("$m", "%", "in thousands")

    @property
    def columns(self) -> list[str]:
        return flatten_header(self.header) if self.header else [f"column {i + 1}" for i in range(self.n_cols)]

    @property
    def n_rows(self) -> int:
        return len(self.rows)

    @property
    def n_cols(self) -> int:
        widths = [len(r) for r in self.header] + [len(r) for r in self.rows]
        return max(widths, default=0)

    def to_proto(self) -> table_pb2.Table:
        s = self.source
        p = self.profile
        return table_pb2.Table(
            id=self.id,
            source=table_pb2.Source(
                kind=s.kind, uri=s.uri, title=s.title, revision=s.revision, table_index=s.table_index,
                created_at=s.created_at, retrieved_at=s.retrieved_at, licence=s.licence,
                attribution=s.attribution,
            ),
            language=self.language,
            domain=self.domain,
            caption=self.caption,
            header=[table_pb2.HeaderRow(values=h) for h in self.header],
            rows=[table_pb2.Row(values=r) for r in self.rows],
            cells=[
                table_pb2.Cell(row=c.row, col=c.col, rowspan=c.rowspan, colspan=c.colspan, text=c.text,
                               header=c.header)
                for c in self.cells
            ],
            footnotes=self.footnotes,
            profile=table_pb2.StructureProfile(
                size_class=p.size_class, multi_level_header=p.multi_level_header, grouped_rows=p.grouped_rows,
                footnotes=p.footnotes, content_types=p.content_types, n_rows=p.n_rows, n_cols=p.n_cols,
            ),
            column_types=self.column_types,
            release=self.release,
            group_column=self.group_column,
            total_rows=self.total_rows,
            column_units=self.column_units,
        )

    @classmethod
    def from_proto(cls, m: table_pb2.Table) -> Table:
        s = m.source
        p = m.profile
        return cls(
            id=m.id,
            source=Source(kind=s.kind, uri=s.uri, title=s.title, revision=s.revision, table_index=s.table_index,
                          created_at=s.created_at, retrieved_at=s.retrieved_at, licence=s.licence,
                          attribution=s.attribution),
            header=[list(h.values) for h in m.header],
            rows=[list(r.values) for r in m.rows],
            language=m.language,
            domain=m.domain,
            caption=m.caption,
            cells=[Cell(row=c.row, col=c.col, text=c.text, rowspan=c.rowspan or 1, colspan=c.colspan or 1,
                        header=c.header) for c in m.cells],
            footnotes=list(m.footnotes),
            profile=Profile(size_class=p.size_class, multi_level_header=p.multi_level_header,
                            grouped_rows=p.grouped_rows, footnotes=p.footnotes,
                            content_types=list(p.content_types), n_rows=p.n_rows, n_cols=p.n_cols),
            column_types=dict(m.column_types),
            release=m.release,
            group_column=m.group_column,
            total_rows=list(m.total_rows),
            column_units=dict(m.column_units),
        )
