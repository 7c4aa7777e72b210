"""Multiple-choice options the rule judge can read, on the real FreshTab table where the oracle sweep found one
it could not: a Russian election table whose "Мест ±" column writes "no change" as "▬"."""

from __future__ import annotations

from livetab.paths import shared_data
from livetab.rubric.mcq import option_key
from livetab_qagen import generate
from livetab_scraper.sources import Fetched
from livetab_scraper.sources.freshtab import iter_freshtab


def test_no_option_is_made_of_symbols_only() -> None:
    tables = [t for item in iter_freshtab(shared_data() / "freshtab" / "FT2-5_25_ru.jsonl") if isinstance(item, Fetched)
              for t in item.tables if any(c.strip() == "▬" for row in t.rows for c in row)]
    assert tables, "the Russian FreshTab release has a table with '▬' cells"
    n = 0
    for seed in range(6):
        for t in tables:
            for q in generate(t, families=["mcq"], per_family=40, seed=seed).questions:
                n += 1
                assert all(option_key(o) for o in q.options), (q.text, q.options)
    assert n > 20
