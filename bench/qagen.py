"""Programmatic question generation: verified questions per second per core on the real tables.

livetab: `livetab_qagen.generate` on WTQ, TabFact and Arabic TaTA tables from ../shared/data — every
question's pandas derivation executed, recomputed independently in plain Python, and checked for
table dependence (cells perturbed and the derivation re-run). Baseline, run side by side in the same
process on the same questions: the independent plain-Python recomputation alone (what a generator
that trusts a single code path, with no execution of derivations and no dependence check, would pay).
ratio = livetab verified questions per CPU second / baseline recomputed questions per CPU second, so
it states the price of verification (well below 1 by design). CPU time via time.process_time.

    .venv/bin/python -m bench.qagen [--stride 3] [--per-family 5]     (or: .venv/bin/python -m bench qagen)
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import logging
import sys
import time
from collections import Counter
from types import ModuleType

from livetab.paths import repo_root
from livetab.tables import Table
from livetab_qagen import generate
from livetab_qagen.verify import recompute

from bench.common import peak_rss_mb, write_result

log = logging.getLogger(__name__)

GOAL = "verified questions of every family per second per core on the real tables, with their distribution"


def _loaders() -> ModuleType:
    """The real-table loaders the qagen tests use (services/qagen/tests/realtables.py)."""
    path = repo_root() / "services" / "qagen" / "tests" / "realtables.py"
    spec = importlib.util.spec_from_file_location("qagen_realtables", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stride", type=int, default=3, help="use every n-th table of each source (1 = all)")
    parser.add_argument("--per-family", type=int, default=5)
    args = parser.parse_args(argv)
    data = _loaders()
    sources: dict[str, list[Table]] = {
        "wtq": data.wtq_tables()[:: args.stride],
        "tabfact": data.tabfact_tables()[:: args.stride],
        "tata_ar": data.arabic_tables()[:: args.stride],
    }
    tables = [t for ts in sources.values() for t in ts]

    results = []
    start = time.process_time()
    for table in tables:
        results.append((table, generate(table, per_family=args.per_family, seed=0)))
    livetab_cpu = time.process_time() - start

    work: list[tuple[dict[str, object], Table]] = []
    for table, result in results:
        derived = {t.id: t for t in result.tables}
        for q in result.questions:
            work.append((json.loads(q.params["spec"]), derived.get(q.table_id, table)))
    start = time.process_time()
    for spec, table in work:
        recompute(spec, table)
    baseline_cpu = time.process_time() - start

    questions = [q for _, r in results for q in r.questions]
    n = len(questions)
    livetab_rate = n / livetab_cpu if livetab_cpu else 0.0
    baseline_rate = len(work) / baseline_cpu if baseline_cpu else 0.0
    figures = {
        "tables": len(tables),
        "tables_per_source": {k: len(v) for k, v in sources.items()},
        "per_family_quota": args.per_family,
        "verified_questions": n,
        "livetab_cpu_s": round(livetab_cpu, 3),
        "livetab_verified_questions_per_cpu_s": round(livetab_rate, 2),
        "livetab_tables_per_cpu_s": round(len(tables) / livetab_cpu, 3) if livetab_cpu else 0.0,
        "baseline_recomputed_questions": len(work),
        "baseline_cpu_s": round(baseline_cpu, 4),
        "baseline_recomputed_questions_per_cpu_s": round(baseline_rate, 2),
        "rejected_candidates_by_reason": dict(Counter(r for _, res in results for r, _ in res.rejected)),
        "questions_per_family": dict(Counter(q.family + ("+closed_book" if q.closed_book else "") for q in questions)),
        "questions_per_skill": dict(Counter(q.skill for q in questions)),
        "questions_per_scope": dict(Counter(q.scope for q in questions)),
        "questions_per_language": dict(Counter(q.language for q in questions)),
        "questions_per_gold_kind": dict(Counter(q.gold.kind for q in questions)),
        "imperfect_tables_emitted": sum(len(r.tables) for _, r in results),
        "peak_rss_mb": round(peak_rss_mb(), 1),
    }
    ratio = livetab_rate / baseline_rate if baseline_rate else 0.0
    write_result("qagen", ratio, GOAL, "the same verified questions recomputed by the independent plain-Python "
                 "evaluator only (no derivation execution, no dependence check), same process, side by side",
                 figures)


if __name__ == "__main__":
    main(sys.argv[1:])
