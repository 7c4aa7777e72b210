"""A wide oracle / anti-oracle sweep without the pipeline, to find rule-judge and generator bugs on many real
tables (minutes; not part of `make test`, whose oracle runs are tests/integration/test_oracle_runs.py and
tests/integration/test_oracle_languages.py).

    .venv/bin/python -m tests.support.oracle_sweep [OUT_DIR] [--sources wtq,gsm8k,arabic,freshtab] [--freshtab N]

Generates every family over the 150 WikiTableQuestions pages in ../shared/data (wiki_html,
wiki_html_more), the 300 GSM8K problems, 60 Arabic TaTA tables and the first N FreshTab tables of every
language (de, es, fr, nl, ru, sv and English; N = 25 by default), then judges every question in every
phrasing of the scripted model, oracle and anti-oracle (insight answers by their claims, as the judge does
without an LLM insight judge), and prints each judgment that is not correct / incorrect respectively,
grouped by policy, phrasing, gold kind and the judge's rationale, and the counts per language. `--sources` picks a subset (a faster loop while fixing); each subset has its own database
under OUT_DIR, kept between runs (delete it to regenerate).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import yaml
from livetab.models.scripted import PHRASINGS, scripted_answer
from livetab.paths import shared_data
from livetab.records import load_question, load_table
from livetab.rubric import judge_answer
from livetab.settings import load_settings
from livetab.store import open_store, schema
from livetab_cli.embedded import Pipeline

from tests.support.oracle import INSIGHT, QAGEN_FAMILIES, arabic_tables, freshtab_sources, judge_insight

ALL_SOURCES = ("wtq", "gsm8k", "arabic", "freshtab")


def _sources(names: list[str], out: Path, n_fresh: int) -> list[dict[str, Any]]:
    data = shared_data()
    chosen: list[dict[str, Any]] = []
    if "wtq" in names:
        chosen += [{"kind": "local_html", "location": str(data / "wiki_html" / "pages")},
                   {"kind": "local_html", "location": str(data / "wiki_html_more" / "pages")}]
    if "gsm8k" in names:
        chosen.append({"kind": "gsm8k", "location": str(data / "gsm8k" / "test_sample.jsonl")})
    if "arabic" in names:
        chosen.append({"kind": "local_files", "location": str(arabic_tables(out / "arabic", 60)), "language": "ar"})
    if "freshtab" in names:
        chosen += freshtab_sources(n_fresh)
    return chosen


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", nargs="?", default="out/oracle_sweep")
    ap.add_argument("--sources", default=",".join(ALL_SOURCES))
    ap.add_argument("--freshtab", type=int, default=25, help="tables per FreshTab language")
    args = ap.parse_args(argv)
    names = [s for s in args.sources.split(",") if s]
    if unknown := set(names) - set(ALL_SOURCES):
        ap.error(f"unknown sources {sorted(unknown)}; choose from {ALL_SOURCES}")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    tag = "sweep-" + "-".join(sorted(names)) + (f"-{args.freshtab}" if "freshtab" in names else "")
    db = out / f"{tag}.db"
    cfg = {"out_dir": str(out / "out"), "store": {"url": f"sqlite:///{db}"},
           "sources": _sources(names, out, args.freshtab),
           "qagen": {"families": QAGEN_FAMILIES, "per_table": 0}, "run": {"release": "sweep"}}
    path = out / f"{tag}.yaml"
    path.write_text(yaml.safe_dump(cfg))
    settings = load_settings(path, env={})
    t0 = time.perf_counter()
    if not db.exists():
        p = Pipeline(settings)
        p.generate()
        p.close()
    store = open_store(settings.store.url)
    questions = [q for q in (load_question(r) for r in store.select(schema.questions)) if q is not None]
    tables = {r["id"]: load_table(r) for r in store.select(schema.tables)}
    store.close()
    print(f"{len(questions)} questions generated in {time.perf_counter() - t0:.0f} s:",
          dict(Counter(f"{q.family}/{q.language}" for q in questions)))
    bad: Counter[tuple[str, str, str, str]] = Counter()
    per_lang: Counter[tuple[str, bool]] = Counter()
    n = 0
    for q in questions:
        for phrasing in PHRASINGS:
            for policy, want in (("oracle", "correct"), ("anti_oracle", "incorrect")):
                answer = scripted_answer(q, tables.get(q.table_id), policy=policy, phrasing=phrasing)
                if q.family == INSIGHT:
                    verdict, labels = judge_insight(answer, q, tables.get(q.table_id))
                    rationale = f"insight labels {sorted(set(labels))}"
                else:
                    got = judge_answer(answer, q)
                    verdict, rationale = got.verdict, got.rationale
                n += 1
                per_lang[(q.language, verdict == want)] += 1
                if verdict != want:
                    why = rationale.split(" [")[0]
                    bad[(policy, phrasing, q.gold.kind, why)] += 1
                    if bad[(policy, phrasing, q.gold.kind, why)] == 1:
                        print(f"{policy} {phrasing} {q.family}/{q.language} | {q.text[:100]} | gold {q.gold.text[:60]!r}"
                              f" | answer {answer[:80]!r} | {verdict}: {rationale}")
    print(f"{n} judgments, {sum(bad.values())} not as expected")
    for lang in sorted({k[0] for k in per_lang}):
        print(f"  {lang}: {per_lang[(lang, True)] + per_lang[(lang, False)]} judgments, "
              f"{per_lang[(lang, False)]} not as expected")
    for k, c in bad.most_common():
        print(c, k)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
