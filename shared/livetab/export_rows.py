"""A release export's rows read back as messages: the one reader shared by the reporter (which writes the
exports, `livetab_reporter.export`) and `livetab.evaluate` (which evaluates a retired release's export folder).

Rows are flat: map fields (`params`, `column_types`, `column_units`) are JSON strings and each question row carries its table's
provenance columns (`PROVENANCE`), which are not part of the Question message."""

from __future__ import annotations

import json
from typing import Any

from google.protobuf.json_format import ParseDict

from livetab.v1 import question_pb2, table_pb2

__all__ = ["PROVENANCE", "plain", "question_from_row", "table_from_row"]

PROVENANCE = ("licence", "source_uri", "source_title", "source_kind", "attribution")


def plain(v: Any) -> Any:
    """A value read back by pandas, pyarrow or datasets as plain Python (arrays -> lists)."""
    if hasattr(v, "tolist"):
        v = v.tolist()
    if isinstance(v, dict):
        return {k: plain(x) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [plain(x) for x in v]
    return v


def question_from_row(row: dict[str, Any]) -> question_pb2.Question:
    doc = {k: v for k, v in row.items() if k not in PROVENANCE}
    doc["params"] = json.loads(doc.get("params") or "{}")
    q = question_pb2.Question()
    ParseDict(plain(doc), q)
    return q


def table_from_row(row: dict[str, Any]) -> table_pb2.Table:
    doc = dict(row)
    doc["column_types"] = json.loads(doc.get("column_types") or "{}")
    doc["column_units"] = json.loads(doc.get("column_units") or "{}")
    t = table_pb2.Table()
    ParseDict(plain(doc), t)
    return t
