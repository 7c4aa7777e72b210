"""Published calibration: how far each automatic judge agrees with a reference, as figures every release
report carries (what is compared, the method, n, the data and its licence, the judge configuration, the
date). `livetab calibrate` computes them; this module holds their record, the file they live in
(`calibration.json` beside the leaderboard) and their rendering as Markdown, so the CLI, the reporter's
files and the release card show the same figures the same way.

A figure that was not computed (a model-based one when no model was run) says so, with the reason, and
carries no numbers.
"""

from __future__ import annotations

import json
import logging
import math
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

__all__ = [
    "CALIBRATION_FILE",
    "CALIBRATION_MD",
    "COMPUTED",
    "NOT_COMPUTED",
    "Figure",
    "calibration_doc",
    "calibration_markdown",
    "headline",
    "load_calibration",
    "now_utc",
    "write_calibration",
]

log = logging.getLogger(__name__)

CALIBRATION_FILE = "calibration.json"
CALIBRATION_MD = "calibration.md"
COMPUTED = "computed"
NOT_COMPUTED = "not computed"


def now_utc() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


@dataclass
class Figure:
    """One published agreement figure.

    `values` holds the measured numbers (kappa, agreement, accuracy, ...), `confusion` the counts they
    were computed from ("judge/reference" -> count), `by` the same figures per stratum (model, language).
    """

    key: str
    compares: str  # what is compared with what
    method: str  # how agreement is measured
    data: str  # the reference data set
    licence: str
    judge: str  # the judge configuration measured
    status: str = COMPUTED
    n: int = 0
    values: dict[str, float] = field(default_factory=dict)
    confusion: dict[str, int] = field(default_factory=dict)
    by: dict[str, dict[str, float]] = field(default_factory=dict)
    note: str = ""
    computed_at: str = field(default_factory=now_utc)
    seconds: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["values"] = {k: _finite(v) for k, v in self.values.items()}
        d["by"] = {k: {kk: _finite(vv) for kk, vv in v.items()} for k, v in self.by.items()}
        return d


def _finite(v: float) -> float | None:
    """JSON has no NaN: an undefined value (kappa over no items) is written as null."""
    return None if isinstance(v, float) and not math.isfinite(v) else v


def calibration_doc(figures: list[Figure], *, command: str) -> dict[str, Any]:
    return {"generated_at": now_utc(), "command": command, "figures": [f.as_dict() for f in figures]}


def write_calibration(doc: dict[str, Any], out_dir: Path) -> Path:
    """`calibration.json` and `calibration.md` in `out_dir`; returns the JSON file's path."""
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / CALIBRATION_FILE
    path.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    (out_dir / CALIBRATION_MD).write_text("\n".join(calibration_markdown(doc, level=1)) + "\n", encoding="utf-8")
    return path


def load_calibration(out_dir: Path) -> dict[str, Any] | None:
    """The calibration written into `out_dir`, or None when there is none (or it cannot be read)."""
    path = out_dir / CALIBRATION_FILE
    if not path.is_file():
        return None
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        log.warning("calibration file %s unreadable: %s", path, e)
        return None
    if not isinstance(doc, dict) or not isinstance(doc.get("figures"), list):
        log.warning("calibration file %s has no figures list", path)
        return None
    return doc


def _num(v: Any) -> str:
    return "undefined" if v is None else f"{v:.3f}"


def _count(v: Any) -> str:
    return "undefined" if v is None else str(int(v))


def headline(fig: dict[str, Any]) -> str:
    """The result of a figure in one line ("kappa 0.346, agreement 0.660"), or why it is missing."""
    if fig.get("status") != COMPUTED:
        return f"not computed: {fig.get('note', '')}".rstrip(": ")
    v = fig.get("values", {})
    parts = []
    counts = ("disagreements", "unparsed")
    for key, label in (("kappa", "Cohen's kappa"), ("agreement", "agreement"), ("accuracy", "accuracy"),
                       ("undecided_share", "undecided"), ("disagreements", "disagreements"),
                       ("unparsed", "unparsed replies"), ("kappa_parsed_only", "kappa over parsed replies")):
        if key in v:
            parts.append(f"{label} {_count(v[key])}" if key in counts else f"{label} {_num(v[key])}")
    return ", ".join(parts)


def calibration_markdown(doc: dict[str, Any] | None, *, level: int = 2) -> list[str]:
    """The figures as a Markdown section (a heading, one table row per figure, then the notes)."""
    h = "#" * level
    if not doc:
        return [f"{h} Judge calibration", "", "Not computed: no `calibration.json` was found "
                "(run `livetab calibrate`)."]
    lines = [f"{h} Judge calibration", "",
             f"Recomputed by `{doc.get('command', 'livetab calibrate')}` at {doc.get('generated_at', '?')}.", "",
             "| what is compared | method | n | result | data (licence) | judge configuration | date |",
             "|---|---|---:|---|---|---|---|"]
    for f in doc.get("figures", []):
        n = str(f.get("n", "")) if f.get("status") == COMPUTED else "—"
        cells = [f.get("compares", ""), f.get("method", ""), n, headline(f),
                 f"{f.get('data', '')} ({f.get('licence', '')})", f.get("judge", ""),
                 str(f.get("computed_at", ""))[:10]]
        lines.append("| " + " | ".join(str(c).replace("|", "/").replace("\n", " ") for c in cells) + " |")
    notes = [(f.get("key", ""), f.get("note", ""), f.get("confusion", {})) for f in doc.get("figures", [])
             if f.get("status") == COMPUTED]
    if notes:
        lines.append("")
        for key, note, confusion in notes:
            counts = ", ".join(f"{k} {v}" for k, v in sorted(confusion.items()))
            lines.append(f"- `{key}`: {note}" + (f" Counts (judge/reference): {counts}." if counts else ""))
    return lines
