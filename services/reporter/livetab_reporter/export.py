"""A release as files: questions, tables and results in JSONL and Parquet, and a dataset card in the Hugging
Face format (YAML header: licence, languages, size category, task categories, configs).

`full=True` (a retired release, or the operator's private copy of a live one) writes everything:

- `questions.jsonl` / `.parquet`: one question per row with its gold answer, derivation, verification, and
  its table's provenance (`licence`, `source_uri`, `source_title`, `attribution`);
- `tables.jsonl` / `.parquet`: every table with its cells, source, revision, licence and attribution;
- `results.jsonl` / `.parquet`: one row per judged answer of the given runs (question id, response, verdict,
  the judge's reason, tokens, latency);
- `README.md`: the card — counts, sources, licences, the freshness cutoff, generation settings and the judges'
  calibration.

`full=False` (the public copy of a live release) writes the card with the counts and the results without the
fields that disclose questions (`answers.SECRET`): no question texts, gold answers, tables or responses.

Each file loads with `datasets.load_dataset("json"|"parquet", data_files=...)` and with pandas; maps
(`params`, `column_types`, `column_units`) are stored as JSON strings so every row has the same columns. `question_from_row`
and `table_from_row` turn a row back into the stored protobuf message.

A frozen release's questions are its frozen members (`release_members`), never questions generated later;
a release not frozen yet exports the questions stored under its name. `export_release_files` is the export
with what the settings say (which copy goes where, the generation settings, domain balancing): the reporter
service calls it when a release is frozen, retired or reported, and `livetab release` calls it too."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from google.protobuf.json_format import MessageToDict
from livetab.calibration import calibration_markdown
from livetab.export_rows import plain as _plain
from livetab.export_rows import question_from_row, table_from_row
from livetab.ids import judge_name
from livetab.settings import Settings
from livetab.store import schema
from livetab.v1 import question_pb2, table_pb2

from livetab_reporter.answers import COLUMNS, SECRET, iter_answer_records, redacted

__all__ = ["Exported", "RowsWriter", "export_copies", "export_release", "export_release_files", "question_from_row",
           "read_rows", "release_questions", "table_from_row", "write_rows"]

HF_LICENCES = {"cc by-sa 4.0": "cc-by-sa-4.0", "cc-by-sa-4.0": "cc-by-sa-4.0", "cc by 4.0": "cc-by-4.0",
               "mit": "mit", "apache-2.0": "apache-2.0", "cc0": "cc0-1.0", "cc0 1.0": "cc0-1.0"}


@dataclass
class Exported:
    folder: Path
    full: bool
    families: dict[str, int] = field(default_factory=dict)  # questions per task family
    files: list[str] = field(default_factory=list)


def _dict(message: Any) -> dict[str, Any]:
    doc: dict[str, Any] = MessageToDict(message, preserving_proto_field_name=True,
                                        always_print_fields_with_no_presence=True)
    return doc


def question_row(q: question_pb2.Question, table: table_pb2.Table | None) -> dict[str, Any]:
    row = _dict(q)
    row["params"] = json.dumps(row.get("params", {}), ensure_ascii=False, sort_keys=True)
    src = table.source if table is not None else table_pb2.Source()
    row.update(licence=src.licence, source_uri=src.uri, source_title=src.title, source_kind=src.kind,
               attribution=src.attribution)
    return row


def table_row(t: table_pb2.Table) -> dict[str, Any]:
    row = _dict(t)
    row["column_types"] = json.dumps(row.get("column_types", {}), ensure_ascii=False, sort_keys=True)
    row["column_units"] = json.dumps(row.get("column_units", {}), ensure_ascii=False, sort_keys=True)
    return row


PARQUET_BATCH = 5000  # rows converted to Arrow at a time (`write_rows`): what an export holds at once


class RowsWriter:
    """`name`.jsonl and `name`.parquet in `folder`, written as rows are added (`add`), `batch` rows converted to
    Arrow at a time, each batch a row group with the first batch's schema: what this holds at once is a batch, so
    the rows must keep their types (a later batch that cannot take the first's schema raises pyarrow's error).
    `columns` fixes the schema when no row comes. `close` ends both files and gives their names."""

    def __init__(self, folder: Path, name: str, columns: tuple[str, ...] = (), batch: int = PARQUET_BATCH) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.folder, self.name, self.columns, self.batch = folder, name, columns, max(1, batch)
        self._jsonl = (folder / f"{name}.jsonl").open("w", encoding="utf-8")
        self._rows: list[dict[str, Any]] = []
        self._parquet: Any = None  # pyarrow.parquet.ParquetWriter, opened with the first batch

    def add(self, row: dict[str, Any]) -> None:
        self._jsonl.write(json.dumps(row, ensure_ascii=False) + "\n")
        self._rows.append(row)
        if len(self._rows) >= self.batch:
            self._flush()

    def _flush(self) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        table = pa.Table.from_pylist(self._rows, schema=self._parquet.schema if self._parquet is not None else None)
        if self._parquet is None:
            self._parquet = pq.ParquetWriter(self.folder / f"{self.name}.parquet", table.schema)
        self._parquet.write_table(table)
        self._rows.clear()

    def close(self) -> list[str]:
        import pyarrow as pa
        import pyarrow.parquet as pq

        try:
            self._jsonl.close()
            if self._rows:
                self._flush()
        finally:
            if self._parquet is not None:
                self._parquet.close()
        if self._parquet is None:
            pq.write_table(pa.table({c: pa.array([], pa.string()) for c in self.columns}),
                           self.folder / f"{self.name}.parquet")
        return [f"{self.name}.jsonl", f"{self.name}.parquet"]


def write_rows(folder: Path, name: str, rows: Iterable[dict[str, Any]], columns: tuple[str, ...] = ()) -> list[str]:
    """`name`.jsonl and `name`.parquet; `columns` fixes the schema when there may be no rows. A list is written as
    one table, its schema inferred from every row; any other iterable as its rows go by (`RowsWriter`)."""
    writer = RowsWriter(folder, name, columns, batch=len(rows) if isinstance(rows, list) else PARQUET_BATCH)
    try:
        for r in rows:
            writer.add(r)
    finally:
        names = writer.close()
    return names


def read_rows(path: Path) -> list[dict[str, Any]]:
    """Rows of a .jsonl or .parquet export, as plain Python."""
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq

        return [_plain(r) for r in pq.read_table(path).to_pylist()]
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _size_category(n: int) -> str:
    for limit, name in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M")):
        if n < limit:
            return name
    return "1M<n<10M"


def _yaml_list(items: list[str]) -> list[str]:
    return [f"- {json.dumps(i, ensure_ascii=False)}" for i in items] or ["[]"]


def _card(release: str, qs: list[question_pb2.Question], ts: list[table_pb2.Table], *, full: bool, files: list[str],
          calibration: dict[str, Any] | None, generation: dict[str, Any] | None, note: str, runs: int) -> str:
    licences = Counter(t.source.licence or "unknown" for t in ts)
    hf = sorted({HF_LICENCES.get(k.lower(), "other") for k in licences})
    languages = sorted({q.language for q in qs if q.language} | {t.language for t in ts if t.language}) or ["en"]
    created = sorted(t.source.created_at for t in ts if t.source.created_at)
    header = ["---", "license:", *_yaml_list(hf), "language:", *_yaml_list(languages),
              "size_categories:", *_yaml_list([_size_category(len(qs))]),
              "task_categories:", *_yaml_list(["table-question-answering", "question-answering"]),
              f"pretty_name: {json.dumps(f'livetab release {release}')}", "tags:", *_yaml_list(["tables", "livetab"])]
    configs = [(n.split(".")[0], n) for n in files if n.endswith(".parquet")]
    if configs:
        header += ["configs:"] + [line for name, path in configs
                                  for line in (f"- config_name: {name}", "  data_files:", f"  - {path}")]
    header.append("---")

    def counts(title: str, c: Counter[str]) -> list[str]:
        return ["", f"| {title} | count |", "|---|---:|", *[f"| {k or 'unknown'} | {v} |" for k, v in sorted(c.items())]]

    body = ["", f"# livetab release {release}", "",
            f"{len(qs)} questions over {len(ts)} tables" + (f"; results of {runs} run(s)" if runs else "") + "."]
    if full:
        body += ["", "Files: " + ", ".join(f"`{f}`" for f in files) + ". Load them with "
                 "`datasets.load_dataset(\"parquet\", data_files=\"questions.parquet\")` (or `\"json\"` and the "
                 ".jsonl file) or with pandas."]
    else:
        body += ["", "**Live release.** Models are still being evaluated on it, so its questions, gold answers, tables "
                 "and the models' responses are not published here: this card gives counts only, and "
                 "`results.*` gives each answer's ids, verdict, tokens and latency. The full files are published "
                 "when the release is retired."]
    if note:
        body += ["", note]
    body += counts("family", Counter(q.family for q in qs)) + counts("skill", Counter(q.skill for q in qs))
    body += counts("language", Counter(q.language for q in qs)) + counts("table domain", Counter(t.domain for t in ts))
    body += ["", "## Sources", *counts("source kind", Counter(t.source.kind for t in ts)), *counts("licence", licences)]
    if full:
        body += ["", "Every table keeps its source URI, revision, licence and attribution (`tables.*`); each question "
                 "carries its table's licence and source (`questions.*`)."]
    body += ["", "## Freshness cutoff", "",
             (f"Sources created from {created[0][:10]} to {created[-1][:10]}." if created else
              "The sources carry no creation date.")]
    body += ["", "## Generation", "", "Every gold answer was computed by executing the derivation stored with its "
             "question, and verified before release."]
    if generation:
        body += ["", "```yaml", *[f"{k}: {json.dumps(v, ensure_ascii=False)}" for k, v in generation.items()], "```"]
    return "\n".join(header + body + ["", *calibration_markdown(calibration, level=2), ""])


def release_questions(store: Any, release: str) -> list[dict[str, Any]]:
    """The release's question rows in id order: its frozen members once it is frozen, else every question
    stored under its name."""
    from livetab.releases import frozen_questions

    members = frozen_questions(store, release)
    if members:
        return sorted(store.get_many(schema.questions, members).values(), key=lambda r: r["id"])
    return sorted(store.select(schema.questions, release=release), key=lambda r: r["id"])


def export_release(store: Any, release: str, folder: Path, *, full: bool, run_ids: list[str] | None = None,
                   judge: str = "", only_tables: set[str] | None = None, note: str = "",
                   calibration: dict[str, Any] | None = None, generation: dict[str, Any] | None = None,
                   observe: Callable[[dict[str, Any]], None] | None = None) -> Exported:
    """Write the release into `folder` (see the module docstring); `only_tables` keeps those tables and their
    questions (domain balancing), `note` goes into the card, `run_ids` (judged by `judge`) give results.*."""
    (done,) = export_copies(store, release, [(folder, full)], run_ids=run_ids, judge=judge, only_tables=only_tables,
                            note=note, calibration=calibration, generation=generation, observe=observe)
    return done


def export_copies(store: Any, release: str, copies: list[tuple[Path, bool]], *, run_ids: list[str] | None = None,
                  judge: str = "", only_tables: set[str] | None = None, note: str = "",
                  calibration: dict[str, Any] | None = None, generation: dict[str, Any] | None = None,
                  observe: Callable[[dict[str, Any]], None] | None = None) -> list[Exported]:
    """`export_release` into each (folder, full) of `copies` (a live release's public copy and the operator's full
    one), reading the release once: the results of every copy are written in one pass over the answers
    (`iter_answer_records`), each answer redacted for a copy that is not full, and handed whole to `observe`."""
    qrows = release_questions(store, release)
    trows = sorted(store.select(schema.tables, release=release), key=lambda r: r["id"])
    if only_tables is not None:
        qrows = [r for r in qrows if r["table_id"] in only_tables]
        trows = [r for r in trows if r["id"] in only_tables]
    qs = [question_pb2.Question.FromString(r["payload"]) for r in qrows]
    ts = [table_pb2.Table.FromString(r["payload"]) for r in trows]
    by_id = {t.id: t for t in ts}
    families = dict(sorted(Counter(q.family for q in qs).items()))
    outs = [Exported(folder, full, families=dict(families)) for folder, full in copies]
    for out in outs:
        out.folder.mkdir(parents=True, exist_ok=True)
        for stale in ("questions", "tables", "results"):  # a live export must not keep an earlier full one's files
            for ext in ("jsonl", "parquet"):
                (out.folder / f"{stale}.{ext}").unlink(missing_ok=True)
        if out.full:
            out.files += write_rows(out.folder, "questions", [question_row(q, by_id.get(q.table_id)) for q in qs])
            out.files += write_rows(out.folder, "tables", [table_row(t) for t in ts])
    if run_ids:
        writers = [RowsWriter(out.folder, "results", COLUMNS if out.full else tuple(c for c in COLUMNS if c not in SECRET))
                   for out in outs]
        try:
            for a in iter_answer_records(store, sorted(run_ids), judge=judge):
                if observe is not None:
                    observe(a)
                public = None
                for out, writer in zip(outs, writers, strict=True):
                    if out.full:
                        writer.add(a)
                    else:
                        public = redacted(a) if public is None else public
                        writer.add(public)
        finally:
            for out, writer in zip(outs, writers, strict=True):
                out.files += writer.close()
    for out in outs:
        card = _card(release, qs, ts, full=out.full, files=out.files, calibration=calibration, generation=generation,
                     note=note, runs=len(run_ids or []))
        (out.folder / "README.md").write_text(card, encoding="utf-8")
        out.files.append("README.md")
    return outs


def export_release_files(store: Any, settings: Settings, folder: Path, *, release: str, public: bool | None = None,
                         balance: str | None = None, calibration: dict[str, Any] | None = None,
                         run_ids: list[str] | None = None, private_only: bool = False,
                         observe: Callable[[dict[str, Any]], None] | None = None) -> dict[str, int]:
    """The release as files: in full into `folder` when the release is public (retired: `public`, default
    `files.release_public`); for a live release, counts and redacted results into `folder` and the full files
    into the operator's `private/release` beside it (`private_only`: only those). `balance` ("diverse", "lot")
    keeps only tables, and their questions, in that domain distribution. `run_ids` (the configured judge's
    verdicts) give results.*; `observe` is handed each of their answers as it is written. Returns the number of
    questions per task family."""
    from livetab.balance import balance_domains
    from livetab.records import load_table

    from livetab_reporter.files import PRIVATE_DIR, release_public, report_dir

    only: set[str] | None = None
    note = ""
    if balance:
        asked = {r["table_id"] for r in release_questions(store, release)}
        tables = [t for t in (load_table(r) for r in store.select(schema.tables, release=release) if r["id"] in asked)
                  if t is not None]
        kept = balance_domains(tables, balance)
        only = {t.id for t in kept.kept}
        note = f"Domain-balanced ({balance}): " + ", ".join(f"{k} {v}" for k, v in kept.counts.items())
    q, r = settings.qagen, settings.run
    generation = {"families": q.families, "per_table": q.per_table, "seed": q.seed, "formats": r.formats,
                  "settings": r.settings, "samples": r.samples, "temperature": r.temperature,
                  "max_tokens": r.max_tokens, "max_rows": r.max_rows}
    full = release_public(store, settings, release) if public is None else public
    kw: dict[str, Any] = {"run_ids": run_ids, "judge": judge_name(settings.judge), "only_tables": only, "note": note,
                          "calibration": calibration, "generation": generation, "observe": observe}
    private = report_dir(settings, release) / PRIVATE_DIR / "release"
    if private_only:
        return export_release(store, release, private, full=True, **kw).families
    if full:
        shutil.rmtree(private, ignore_errors=True)  # nothing to keep apart once the release is public
    done, *_ = export_copies(store, release, [(folder, full)] + ([] if full else [(private, True)]), **kw)
    return done.families
