"""HTML table extraction speed: livetab's extractor + cleaner against `pandas.read_html`, same pages, same run.

Pages: the 50 real Wikipedia pages in ../shared/data/wiki_html (10-440 KB each), read into memory.
livetab: `extract_tables` (every wikitable: spans expanded, header levels, footnote markers separated
and resolved, typed columns) then `clean_table` with FreshTab's thresholds on each table.
Baseline: `pandas.read_html(flavor="lxml")` on the same page (every table of the page into a
DataFrame, spans expanded; it does no footnote handling, typing or cleaning).
Rounds alternate the two so both see the same machine load; speed is pages per CPU second
(`time.process_time`), with wall-clock figures beside it. Peak memory is measured separately with
tracemalloc on the largest page (tracemalloc slows code down, so not during timing), plus peak RSS.

ratio = livetab pages/s / pandas pages/s (CPU time); goal 1.0.

    .venv/bin/python -m bench.scraper [--rounds 3]     (or: .venv/bin/python -m bench scraper)
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import time
import tracemalloc
import warnings
from collections.abc import Callable

import pandas as pd
from livetab.paths import shared_data
from livetab.tables import Source, Table
from livetab_scraper.clean import clean_table
from livetab_scraper.coltypes import value_type
from livetab_scraper.extract import extract_tables

from bench.common import peak_rss_mb, write_result


def load_pages() -> list[tuple[str, Source]]:
    pages = []
    for meta_path in sorted((shared_data() / "wiki_html" / "pages").glob("*.json")):
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        html = meta_path.with_suffix(".html").read_text(encoding="utf-8")
        pages.append((html, Source(kind="wikipedia", uri=meta["url"], revision=str(meta["revision"]))))
    return pages


def livetab_page(html: str, source: Source) -> int:
    kept = 0
    for table in extract_tables(html, source=source).tables:
        kept += isinstance(clean_table(table), Table)
    return kept


def pandas_page(html: str, source: Source) -> int:
    try:
        return len(pd.read_html(io.StringIO(html), flavor="lxml"))
    except ValueError:  # "No tables found"
        return 0


def timed(fn: Callable[[str, Source], int], pages: list[tuple[str, Source]]) -> tuple[float, float, int]:
    cpu0, wall0 = time.process_time(), time.perf_counter()
    n = sum(fn(html, src) for html, src in pages)
    return time.process_time() - cpu0, time.perf_counter() - wall0, n


def peak_traced_mb(fn: Callable[[str, Source], int], page: tuple[str, Source]) -> float:
    tracemalloc.start()
    fn(*page)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 1e6


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    pages = load_pages()
    total_bytes = sum(len(h.encode()) for h, _ in pages)
    livetab_page(*pages[0])  # warm-up (imports, regex compilation)
    pandas_page(*pages[0])
    lt_cpu = pd_cpu = lt_wall = pd_wall = 0.0
    lt_tables = pd_tables = 0
    for _ in range(args.rounds):
        value_type.cache_clear()  # every round starts cold: no help from having seen these pages before
        c, w, lt_tables = timed(livetab_page, pages)
        lt_cpu, lt_wall = lt_cpu + c, lt_wall + w
        c, w, pd_tables = timed(pandas_page, pages)
        pd_cpu, pd_wall = pd_cpu + c, pd_wall + w
    n = len(pages) * args.rounds
    lt_rate, pd_rate = n / lt_cpu, n / pd_cpu
    largest = max(pages, key=lambda p: len(p[0]))
    extracted = sum(len(extract_tables(h, source=s).tables) for h, s in pages)
    write_result(
        "scraper",
        ratio=lt_rate / pd_rate,
        goal=1.0,
        baseline="pandas.read_html(flavor='lxml') on the same 50 Wikipedia pages, rounds alternated in the same process",
        figures={
            "pages": len(pages),
            "rounds": args.rounds,
            "page_bytes_total": total_bytes,
            "livetab_pages_per_cpu_s": round(lt_rate, 2),
            "pandas_pages_per_cpu_s": round(pd_rate, 2),
            "livetab_pages_per_wall_s": round(n / lt_wall, 2),
            "pandas_pages_per_wall_s": round(n / pd_wall, 2),
            "livetab_wikitables_extracted": extracted,
            "livetab_tables_kept_after_cleaning": lt_tables,
            "pandas_tables_parsed_all_kinds": pd_tables,
            "largest_page_bytes": len(largest[0].encode()),
            "livetab_peak_traced_mb_largest_page": round(peak_traced_mb(livetab_page, largest), 1),
            "pandas_peak_traced_mb_largest_page": round(peak_traced_mb(pandas_page, largest), 1),
            "peak_rss_mb": round(peak_rss_mb(), 1),
        },
    )


if __name__ == "__main__":
    main(sys.argv[1:])
