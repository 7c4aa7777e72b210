"""A release's quality report, written for operators when the release is frozen: what went into it and what
was left out, as counts only (no question texts or gold answers), so an operator can judge the release before
it goes live.

`quality.json` and `quality.md` in the release's `private/` folder: the frozen question count and manifest
hash, the release's questions by family, skill, difficulty, language and scope, every generated question by
status (verified, review, rejected) and by the frozen set (members) or not, its tables by domain, source kind
and licence with their source dates, the review queue by status, the question lint's flag counts (header or
unit rows read as data, "column N" names, answers in the question, keys on amounts, degenerate distinct counts),
and the recorded failures of the scraper and qagen by stage and reason.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from livetab.question_lint import lint_counts
from livetab.store import schema
from livetab.tables import Table
from livetab.v1 import question_pb2, release_pb2, table_pb2

from livetab_reporter.export import release_questions

__all__ = ["quality_doc", "write_quality_report"]

MAX_REASONS = 50  # failure reasons listed (the most frequent first)


def _counts(values: Any) -> dict[str, int]:
    return dict(sorted(Counter(v or "unknown" for v in values).items()))


def quality_doc(store: Any, event: release_pb2.ReleaseEvent) -> dict[str, Any]:
    release = event.release
    members = release_questions(store, release)
    qs = [question_pb2.Question.FromString(r["payload"]) for r in members]
    generated = store.select(schema.questions, release=release)
    member_ids = {r["id"] for r in members}
    tables = [table_pb2.Table.FromString(r["payload"]) for r in store.select(schema.tables, release=release)]
    used = {q.table_id for q in qs}
    dates = sorted(t.source.created_at[:10] for t in tables if t.id in used and t.source.created_at)
    failures = Counter((f["stage"], f["reason"]) for f in store.select(schema.failures, release=release))
    review = store.count_by(schema.review_items, "status", release=release)
    return {
        "release": release, "status": release_pb2.ReleaseStatus.Name(event.status).lower(),
        "manifest_hash": event.manifest_hash, "frozen_questions": event.questions, "at": event.at,
        "questions": {"n": len(qs), "family": _counts(q.family for q in qs), "skill": _counts(q.skill for q in qs),
                      "difficulty": _counts(q.difficulty for q in qs), "language": _counts(q.language for q in qs),
                      "scope": _counts(q.scope for q in qs)},
        "generated": {"n": len(generated), "status": _counts(r["status"] for r in generated),
                      "in_release": sum(r["id"] in member_ids for r in generated),
                      "left_out": sum(r["id"] not in member_ids for r in generated)},
        "tables": {"n": len(used), "stored": len(tables),
                   "domain": _counts(t.domain for t in tables if t.id in used),
                   "source_kind": _counts(t.source.kind for t in tables if t.id in used),
                   "licence": _counts(t.source.licence for t in tables if t.id in used),
                   "source_dates": {"first": dates[0], "last": dates[-1]} if dates else {}},
        "review": dict(sorted(review.items())),
        "failures": [{"stage": stage, "reason": reason, "count": n}
                     for (stage, reason), n in failures.most_common(MAX_REASONS)],
        "failures_total": sum(failures.values()),
        "lint": _lint(qs, tables),
    }


def _lint(qs: list[Any], tables: list[Any]) -> dict[str, int]:
    """The question lint's counts over the release's questions (`livetab.question_lint`)."""
    by_id = {t.id: Table.from_proto(t) for t in tables}
    return lint_counts((q.text, q.gold.text, q.family, by_id[q.table_id]) for q in qs if q.table_id in by_id)


def _markdown(doc: dict[str, Any]) -> str:
    q, g, t = doc["questions"], doc["generated"], doc["tables"]
    lines = [f"# Quality report — release {doc['release']}", "",
             f"Status {doc['status']} at {doc['at'] or 'unknown'}; manifest sha256 `{doc['manifest_hash'] or '—'}`; "
             f"{doc['frozen_questions']} frozen question(s).", "",
             f"{q['n']} question(s) over {t['n']} table(s) ({t['stored']} stored); {g['n']} generated under this name, "
             f"{g['in_release']} in the release, {g['left_out']} left out."]
    sections = [(f"questions by {k}", q[k]) for k in ("family", "skill", "difficulty", "language", "scope")]
    sections += [("generated questions by status", g["status"])]
    sections += [(f"tables by {k.replace('_', ' ')}", t[k]) for k in ("domain", "source_kind", "licence")]
    sections += [("review queue by status", doc["review"])]
    sections += [("question lint flags (livetab.question_lint)", doc["lint"])]
    for title, counts in sections:
        lines += ["", f"| {title} | count |", "|---|---:|", *[f"| {k} | {v} |" for k, v in counts.items()]]
    dates = t["source_dates"]
    lines += ["", f"Source dates: {dates['first']} to {dates['last']}." if dates else "The sources carry no date."]
    lines += ["", f"## Recorded failures ({doc['failures_total']})", ""]
    if doc["failures"]:
        lines += ["| stage | reason | count |", "|---|---|---:|",
                  *[f"| {f['stage']} | {f['reason'].replace('|', '/')[:200]} | {f['count']} |" for f in doc["failures"]]]
    else:
        lines.append("None.")
    return "\n".join(lines) + "\n"


def write_quality_report(store: Any, event: release_pb2.ReleaseEvent, folder: Path) -> dict[str, Any]:
    """quality.json and quality.md into `folder` (the release's private folder); returns the document."""
    doc = quality_doc(store, event)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "quality.json").write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    (folder / "quality.md").write_text(_markdown(doc), encoding="utf-8")
    return doc
