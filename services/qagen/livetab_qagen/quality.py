"""Quality controls over a set of generated questions: near-duplicates out, proportions in balance.

World-knowledge rejection is the dependence check in `verify` (a question whose answer does not move
when the cells it reads move is answerable without the table) and runs on every question there.
"""

from __future__ import annotations

import logging
import random
import re
import unicodedata
from collections import defaultdict
from collections.abc import Iterable

from livetab.numbers import normalise_digits
from livetab.questions import Question

__all__ = ["balance", "dedupe", "normalise_text"]

log = logging.getLogger(__name__)

_PUNCT = re.compile(r"[\W_]+", re.UNICODE)


def normalise_text(text: str) -> str:
    """Case-folded, digits in ASCII, Arabic diacritics and tatweel removed, punctuation as single spaces."""
    text = normalise_digits(unicodedata.normalize("NFKC", text)).casefold()
    text = "".join(ch for ch in text if unicodedata.category(ch) != "Mn" and ch != "ـ")
    return _PUNCT.sub(" ", text).strip()


def dedupe(questions: Iterable[Question]) -> tuple[list[Question], list[tuple[str, str]]]:
    """Keep the first of every group sharing (table, closed-book flag, normalised text, normalised answer)."""
    seen: dict[tuple[str, bool, str, str], str] = {}
    kept: list[Question] = []
    dropped: list[tuple[str, str]] = []
    for q in questions:
        key = (q.table_id, q.closed_book, normalise_text(q.text), normalise_text(q.gold.text))
        if key in seen:
            dropped.append(("near_duplicate", f"{q.id} repeats {seen[key]}"))
            continue
        seen[key] = q.id
        kept.append(q)
    return kept, dropped


def balance(questions: list[Question], proportions: dict[str, dict[str, float]], *, seed: int = 0,
            ) -> tuple[list[Question], list[tuple[str, str]]]:
    """Subsample so that, for each attribute named in `proportions` (family, skill, scope, ...), the
    shares of its values match the configured proportions as closely as the counts allow.

    For one attribute with target shares p_v, the largest total N with count_v >= p_v * N for every v
    is kept, floor(p_v * N) of each value, chosen with a seeded RNG. Values not named keep none.
    Attributes are balanced in the order given."""
    rng = random.Random(seed)
    kept = list(questions)
    dropped: list[tuple[str, str]] = []
    for attribute, shares in proportions.items():
        total_share = sum(shares.values())
        if total_share <= 0:
            raise ValueError(f"proportions for {attribute!r} must have a positive sum")
        groups: dict[str, list[Question]] = defaultdict(list)
        for q in kept:
            groups[str(getattr(q, attribute))].append(q)
        limits = [len(groups.get(v, [])) / (s / total_share) for v, s in shares.items() if s > 0]
        n_total = min(limits) if limits else 0.0
        chosen: set[str] = set()
        for value, share in shares.items():
            members = sorted(groups.get(value, []), key=lambda q: q.id)
            take = int(n_total * share / total_share + 1e-9)
            chosen.update(q.id for q in rng.sample(members, min(take, len(members))))
        for q in kept:
            if q.id not in chosen:
                dropped.append(("balance", f"{q.id} dropped to balance {attribute}={getattr(q, attribute)}"))
        kept = [q for q in kept if q.id in chosen]
    return kept, dropped
