"""The release an evaluation runs on, made present in the evaluation's store.

`--release` names one of:

- a release already in the store (its questions are used as they are);
- a folder holding a retired release's export (`questions.jsonl` or `.parquet` and `tables.*`, as
  `livetab release` writes them): its tables and questions are loaded into the store;
- `demo`, the bundled sample (the default): the sources and question families of `deploy/demo.yaml`
  (real Wikipedia tables, GSM8K problems and FreshTab tables shipped in `deploy/sample`), turned into verified
  questions by the scraper and qagen services the first time it is used and kept in a cache store
  (`$LIVETAB_CACHE/releases`, default ~/.cache/livetab/releases) keyed by the livetab version, the sample
  files' contents and the source of the packages that generate questions (shared, scraper, qagen); later
  evaluations copy its tables and questions from there (a second or so).

`load_release(ref)` gives the questions and tables of any of these without running anything else.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from livetab.export_rows import plain, question_from_row, table_from_row
from livetab.ids import content_id
from livetab.records import question_row, table_row
from livetab.settings import QagenSettings, Settings, SourceSettings, StoreSettings
from livetab.store import Store, open_store, schema
from livetab.v1 import question_pb2, table_pb2

__all__ = ["BUNDLED_RELEASE", "LoadedRelease", "bundled_cache", "load_export", "load_release",
           "read_export_rows"]

BUNDLED_RELEASE = "demo"
# columns of an exported question row that are its table's provenance, not fields of the Question message


@dataclass
class LoadedRelease:
    name: str
    questions: list[question_pb2.Question]
    tables: list[table_pb2.Table]
    origin: str  # where they came from: the store, an export folder, the bundled sample


# -- an export folder ------------------------------------------------------------------------------------------


def read_export_rows(folder: Path, name: str) -> list[dict[str, Any]] | None:
    """Rows of `name`.jsonl (or `name`.parquet) in an export folder; None when neither is there."""
    path = folder / f"{name}.jsonl"
    if path.is_file():
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    path = folder / f"{name}.parquet"
    if path.is_file():
        import pyarrow.parquet as pq

        return [plain(r) for r in pq.read_table(path).to_pylist()]
    return None


def load_export(folder: Path) -> LoadedRelease:
    """A release export folder's questions and tables; ValueError (one line) when it holds none."""
    qrows, trows = read_export_rows(folder, "questions"), read_export_rows(folder, "tables")
    if qrows is None or trows is None:
        raise ValueError(f"{folder} has no questions.jsonl/.parquet and tables.jsonl/.parquet: a live release's export "
                         "holds counts only; export a retired release (`livetab release`) or use its private copy")
    questions = [question_from_row(r) for r in qrows]
    names = sorted({q.release for q in questions})
    if len(names) != 1:
        raise ValueError(f"{folder}: the questions name {len(names)} releases ({', '.join(names[:5])}), not one")
    return LoadedRelease(names[0], questions, [table_from_row(r) for r in trows], f"export folder {folder}")


# -- the bundled sample ----------------------------------------------------------------------------------------

def deploy_dir() -> Path:
    """deploy/ of the checkout, or where an installed wheel put its copy (<prefix>/share/livetab/deploy)."""
    from livetab.paths import repo_root

    here = repo_root() / "deploy"
    if (here / "demo.yaml").is_file():
        return here
    installed = Path(sys.prefix) / "share" / "livetab" / "deploy"
    if (installed / "demo.yaml").is_file():
        return installed
    raise ValueError(f"the bundled sample is not installed (no demo.yaml in {here} or {installed})")


def _demo_sections() -> tuple[list[SourceSettings], QagenSettings]:
    """The bundled sample's sources and question families: deploy/demo.yaml's, with paths made absolute
    (relative ones name files under deploy/'s parent, as in the checkout)."""
    import yaml

    deploy = deploy_dir()
    doc = yaml.safe_load((deploy / "demo.yaml").read_text(encoding="utf-8"))
    sources = []
    for s in doc.get("sources", []):
        loc = Path(s.get("location", ""))
        sources.append(SourceSettings(**{**s, "location": str(loc if loc.is_absolute() else deploy.parent / loc)}))
    return sources, QagenSettings(**doc.get("qagen", {}))


# the packages whose code turns the sample into questions (found, not imported: shared/ imports no service)
_GENERATING_CODE = ("livetab", "livetab_scraper", "livetab_qagen")


def _cache_key(sources: list[SourceSettings], qagen: QagenSettings) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        v = version("livetab")
    except PackageNotFoundError:
        v = "0"
    h = hashlib.sha256(json.dumps([v, [s.model_dump() for s in sources], qagen.model_dump()], sort_keys=True,
                                  default=str).encode())
    for package in _GENERATING_CODE:  # a change to the code that makes questions makes a new cache entry
        spec = importlib.util.find_spec(package)
        for folder in (spec.submodule_search_locations or []) if spec else []:
            for f in sorted(Path(folder).rglob("*.py")):
                if "tests" not in f.parts and "__pycache__" not in f.parts:
                    h.update(f.name.encode() + b"\0" + f.read_bytes())
    for s in sources:
        root = Path(s.location)
        for f in sorted([root] if root.is_file() else (p for p in root.rglob("*") if p.is_file() and
                                                         "__pycache__" not in p.parts)):
            h.update(str(f.relative_to(root.parent)).encode() + b"\0" + f.read_bytes())
    return h.hexdigest()[:16]


def bundled_cache() -> Path:
    """The folder of cached bundled-sample stores."""
    base = os.environ.get("LIVETAB_CACHE") or str(Path.home() / ".cache" / "livetab")
    return Path(base) / "releases"


def _generate_bundled(settings: Settings) -> Store:
    """The bundled sample's cache store, generated by the scraper and qagen services when missing."""
    from livetab import topics
    from livetab.runtime.embedded import Embedded
    from livetab.v1 import table_pb2 as tpb

    sources, qagen = _demo_sections()
    path = bundled_cache() / f"{BUNDLED_RELEASE}-{_cache_key(sources, qagen)}.db"
    if path.is_file():
        store = open_store(f"sqlite:///{path}")
        if store.count(schema.questions, release=BUNDLED_RELEASE):
            return store
        store.close()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.partial")
    tmp.unlink(missing_ok=True)
    gen = settings.model_copy(update={"sources": sources, "qagen": qagen, "store": StoreSettings(url=f"sqlite:///{tmp}"),
                                      "run": settings.run.model_copy(update={"release": BUNDLED_RELEASE})})
    services = Embedded(gen, services=("scraper", "qagen"))
    try:
        for s in sources:
            cmd = tpb.ScrapeCommand(id=content_id("scrape", s.kind, s.location, BUNDLED_RELEASE, s.language),
                                    source=s.kind, location=s.location, release=BUNDLED_RELEASE, language=s.language,
                                    options=s.options)
            services.publish(topics.SCRAPES, cmd, key=cmd.id, message_id=cmd.id)
        services.drive()
    finally:
        services.close()
    os.replace(tmp, path)
    return open_store(f"sqlite:///{path}")


def _copy_release(src: Store, dst: Store, release: str) -> None:
    for table in (schema.tables, schema.questions):
        rows = [{k: v for k, v in r.items() if k != "created_at"} for r in src.select(table, release=release)]
        dst.upsert(table, rows)


# -- into the evaluation's store -------------------------------------------------------------------------------

def ensure_release(ref: str, store: Store, settings: Settings) -> tuple[str, str]:
    """Make release `ref` present in `store`; (its name, where it came from). ValueError (one line) when it
    cannot be found."""
    folder = Path(ref).expanduser()
    if ref and (folder.is_dir() or "/" in ref):
        if not folder.is_dir():
            raise ValueError(f"no release export folder at {folder}")
        loaded = load_export(folder.resolve())
        store.upsert(schema.tables, [table_row(t) for t in loaded.tables])
        store.upsert(schema.questions, [question_row(q) for q in loaded.questions])
        return loaded.name, loaded.origin
    name = ref or BUNDLED_RELEASE
    if store.count(schema.questions, release=name):
        return name, "the store"
    if name == BUNDLED_RELEASE:
        cache = _generate_bundled(settings)
        try:
            _copy_release(cache, store, name)
        finally:
            cache.close()
        return name, "the bundled sample (deploy/sample)"
    known = sorted(store.count_by(schema.questions, "release"))
    raise ValueError(f"no release {name!r} in the store ({', '.join(known) or 'it has none'}), and no export folder "
                     f"of that name; the bundled sample is {BUNDLED_RELEASE!r}")


def load_release(ref: str = BUNDLED_RELEASE, *, store_url: str = "") -> LoadedRelease:
    """The questions (verified ones, in id order) and tables of a release: an export folder, a release in the
    store at `store_url`, or the bundled sample (generated once, see the module docstring)."""
    folder = Path(ref).expanduser()
    if folder.is_dir():
        return load_export(folder.resolve())
    if store_url:
        store = open_store(store_url)
    elif ref == BUNDLED_RELEASE:
        store = _generate_bundled(Settings())
    else:
        raise ValueError(f"release {ref!r}: give an export folder, the bundled {BUNDLED_RELEASE!r}, or a store_url")
    try:
        origin = "the store" if store_url else "the bundled sample (deploy/sample)"
        if store_url and not store.count(schema.questions, release=ref):
            raise ValueError(f"no release {ref!r} in the store at {store_url}")
        qs = sorted((question_pb2.Question.FromString(r["payload"]) for r in store.select(schema.questions, release=ref)),
                    key=lambda q: q.id)
        ts = sorted((table_pb2.Table.FromString(r["payload"]) for r in store.select(schema.tables, release=ref)),
                    key=lambda t: t.id)
        return LoadedRelease(ref, [q for q in qs if q.status == "verified"], ts, origin)
    finally:
        store.close()
