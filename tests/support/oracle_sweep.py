"""A wide oracle / anti-oracle sweep without the pipeline, to find rule-judge and generator bugs on many real
tables (minutes; not part of `make test`, whose oracle runs are tests/integration/test_oracle_runs.py).

    .venv/bin/python -m tests.support.oracle_sweep [OUT_DIR]

Generates every family but insight over the 150 WikiTableQuestions pages in ../shared/data (wiki_html,
wiki_html_more), the 300 GSM8K problems and 60 Arabic TaTA tables, then judges every question in every
phrasing of the scripted model, oracle and anti-oracle, and prints each judgment that is not correct /
incorrect respectively, grouped by policy, phrasing, gold kind and the judge's rationale.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from pathlib import Path

import yaml
from livetab.models.scripted import PHRASINGS, scripted_answer
from livetab.paths import shared_data
from livetab.records import load_question, load_table
from livetab.rubric import judge_answer
from livetab.settings import load_settings
from livetab.store import open_store, schema
from livetab_cli.embedded import Pipeline

from tests.support.oracle import QAGEN_FAMILIES, arabic_tables


def main(out: Path) -> int:
    out.mkdir(parents=True, exist_ok=True)
    data = shared_data()
    cfg = {"out_dir": str(out / "out"), "store": {"url": f"sqlite:///{out / 'sweep.db'}"},
           "sources": [{"kind": "local_html", "location": str(data / "wiki_html" / "pages")},
                       {"kind": "local_html", "location": str(data / "wiki_html_more" / "pages")},
                       {"kind": "gsm8k", "location": str(data / "gsm8k" / "test_sample.jsonl")},
                       {"kind": "local_files", "location": str(arabic_tables(out / "arabic", 60)), "language": "ar"}],
           "qagen": {"families": QAGEN_FAMILIES, "per_table": 0}, "run": {"release": "sweep"}}
    path = out / "sweep.yaml"
    path.write_text(yaml.safe_dump(cfg))
    settings = load_settings(path, env={})
    t0 = time.perf_counter()
    if not (out / "sweep.db").exists():
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
    n = 0
    for q in questions:
        for phrasing in PHRASINGS:
            for policy, want in (("oracle", "correct"), ("anti_oracle", "incorrect")):
                answer = scripted_answer(q, tables.get(q.table_id), policy=policy, phrasing=phrasing)
                got = judge_answer(answer, q)
                n += 1
                if got.verdict != want:
                    why = got.rationale.split(" [")[0]
                    bad[(policy, phrasing, q.gold.kind, why)] += 1
                    if bad[(policy, phrasing, q.gold.kind, why)] == 1:
                        print(f"{policy} {phrasing} {q.family}/{q.language} | {q.text[:100]} | gold {q.gold.text[:60]!r}"
                              f" | answer {answer[:80]!r} | {got.verdict}: {got.rationale}")
    print(f"{n} judgments, {sum(bad.values())} not as expected")
    for k, c in bad.most_common():
        print(c, k)
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1] if len(sys.argv) > 1 else "out/oracle_sweep")))
