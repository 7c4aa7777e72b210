"""Rule-judge throughput: verdicts per second per core on 100k answers, beside a plain normalised
exact-match baseline run on the same answers in the same process.

The answers cycle the 600 real verbose WTQ answers (GPT-4 and Llama-2-70B, with their gold lists,
questions and tables — the rule judge reads the asked column, as the judge service does) and AraTable's
rubric examples (English and Arabic, no table). CPU time is measured with
time.process_time (one process, one core). Writes out/bench/judge.json.

    .venv/bin/python -m bench.judge [--n 100000]      (or: .venv/bin/python -m bench judge)

Verdict stability across rubric changes (no timing): `--dump FILE` writes every answer's verdict,
extracted span and rationale as JSON lines; `--check FILE` judges the same answers again and reports
every line that differs (exit status 1 if any).

    .venv/bin/python -m bench.judge --dump out/bench/judge_verdicts.jsonl
    .venv/bin/python -m bench.judge --check out/bench/judge_verdicts.jsonl
"""

from __future__ import annotations

import argparse
import itertools
import json
import logging
import os
import re
import time
from collections import Counter
from pathlib import Path

from livetab.rubric import judge_text
from livetab.rubric.columns import TableView
from livetab.rubric.wtq_eval import load_cases, load_wtq_table

from bench.common import peak_rss_mb, write_result

log = logging.getLogger(__name__)

# (response, gold strings, question, language): AraTable's rubric examples and their counterparts.
RUBRIC_EXAMPLES: list[tuple[str, list[str], str, str]] = [
    ("around 40", ["40"], "", "en"), ("forty years", ["40"], "", "en"), ("40", ["40"], "", "en"),
    ("1.883", ["1.889"], "", "en"), ("25%", ["0.25"], "", "en"), ("38 ألف", ["38000"], "", "ar"),
    ("فندق أ و فندق ب", ["فندق ب", "فندق أ"], "", "ar"), ("بيان صحيح", ["صح"], "", "ar"),
    ("غير صحيح", ["خطأ"], "", "ar"), ("نعم", ["صح"], "", "ar"), ("The statement is true.", ["true"], "", "en"),
    ("King Saud University", ["جامعة الملك سعود"], "", "ar"), ("جامعه الملك سعود", ["جامعة الملك سعود"], "", "ar"),
    ("The answer is 41.", ["40"], "", "en"), ("<think>maybe 30</think>Answer: forty", ["40"], "", "en"),
    ("معلومات غير كافية", ["الرياض"], "", "ar"), ("٣٨٬٠٠٠", ["38000"], "", "ar"),
]

_PUNCT = re.compile(r"[\W_]+")


def baseline_normalise(text: str) -> str:
    """The plain normalised exact match: lower case, punctuation to spaces, whitespace collapsed."""
    return " ".join(_PUNCT.sub(" ", text.lower()).split())


Answer = tuple[str, list[str], str, str, TableView | None]


def build_answers(n: int) -> list[Answer]:
    real: list[Answer] = [(c.response, list(c.answers), c.question, "en",
                           load_wtq_table(c.table_csv) if c.table_csv else None) for c in load_cases()]
    pool = real + [(*example, None) for example in RUBRIC_EXAMPLES]
    return list(itertools.islice(itertools.cycle(pool), n))


GOAL = "rule judge >= 20,000 verdicts/s per core on 100k answers"
BASELINE = ("plain normalised exact match (lower case, punctuation stripped, whitespace collapsed; gold normalised "
            "once per question) on the same answers in the same process")


def run(n: int) -> tuple[float, dict[str, object]]:
    """(ratio of rule-judge to baseline throughput, figures)."""
    load = os.getloadavg()[0]  # the machine is shared: process time still rises under heavy load
    answers = build_answers(n)
    for response, gold, question, lang, table in answers[:1000]:  # warm the per-question gold caches
        judge_text(response, gold, question=question, language=lang, table=table)

    gold_keys: dict[tuple[str, ...], frozenset[str]] = {}  # the baseline also normalises each gold once
    start = time.process_time()
    base_correct = 0
    for response, gold, _question, _lang, _table in answers:
        gk = tuple(gold)
        keys = gold_keys.get(gk)
        if keys is None:
            keys = gold_keys[gk] = frozenset(baseline_normalise(g) for g in gold)
        base_correct += len(gold) == 1 and baseline_normalise(response) in keys
    base_s = time.process_time() - start

    verdicts: Counter[str] = Counter()
    start = time.process_time()
    for response, gold, question, lang, table in answers:
        verdicts[judge_text(response, gold, question=question, language=lang, table=table).verdict] += 1
    rule_s = time.process_time() - start

    rule_rate = n / rule_s
    base_rate = n / base_s
    return rule_rate / base_rate, {
        "answers": n,
        "distinct_answers": len({(a[0], tuple(a[1]), a[2]) for a in answers}),
        "rule_verdicts_per_s_per_core": round(rule_rate, 1),
        "baseline_verdicts_per_s_per_core": round(base_rate, 1),
        "rule_cpu_s": round(rule_s, 3),
        "baseline_cpu_s": round(base_s, 3),
        "rule_mean_us_per_verdict": round(1e6 * rule_s / n, 2),
        "goal_met": rule_rate >= 20_000,
        "peak_rss_mb": round(peak_rss_mb(), 1),
        "load_average_1min_at_start": round(load, 2),
        "cpu_count": os.cpu_count(),
        "rule_verdicts": dict(verdicts),
        "baseline_correct": base_correct,
    }


def verdict_lines(n: int) -> list[str]:
    """One JSON line per answer: [verdict, extracted span, rationale]."""
    lines = []
    for response, gold, question, lang, table in build_answers(n):
        v = judge_text(response, gold, question=question, language=lang, table=table)
        lines.append(json.dumps([v.verdict, v.extracted, v.rationale], ensure_ascii=False))
    return lines


def check_verdicts(path: Path, n: int) -> int:
    """Judge the answers again and compare with a dump; the number of lines that differ."""
    expected = path.read_text(encoding="utf-8").splitlines()
    got = verdict_lines(n)
    if len(expected) != len(got):
        log.error("dump has %d lines, %d answers judged", len(expected), len(got))
        return abs(len(expected) - len(got)) or 1
    answers = build_answers(n)
    diffs = [i for i, (a, b) in enumerate(zip(expected, got, strict=True)) if a != b]
    for i in diffs[:20]:
        log.error("answer %d (%r, gold %r): was %s, now %s", i, answers[i][0][-80:], answers[i][1], expected[i], got[i])
    return len(diffs)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="rule-judge throughput vs normalised exact match")
    parser.add_argument("--n", type=int, default=100_000, help="answers to judge")
    parser.add_argument("--dump", type=Path, help="write every verdict to this file (JSON lines) and stop")
    parser.add_argument("--check", type=Path, help="compare every verdict with a --dump file and stop")
    args = parser.parse_args(argv if argv is not None else [])
    if args.dump is not None:
        args.dump.parent.mkdir(parents=True, exist_ok=True)
        args.dump.write_text("\n".join(verdict_lines(args.n)) + "\n", encoding="utf-8")
        log.info("wrote %d verdicts to %s", args.n, args.dump)
        return
    if args.check is not None:
        differ = check_verdicts(args.check, args.n)
        print(f"{args.n} verdicts checked against {args.check}: {differ} differ")
        raise SystemExit(1 if differ else 0)
    ratio, figures = run(args.n)
    write_result("judge", ratio, GOAL, BASELINE, figures)


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
