"""Domain balancing of a release (FreshTab): keep tables so the domains match a target distribution.

`diverse` is FreshTab's even split over sport, politics, culture and other; `lot` mirrors LoTNLG's
73 / 13 / 11 / 3 (sport / other / culture / politics). Which tables are kept is deterministic: within a
domain, tables are taken in order of their id.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from livetab.tables import Table

__all__ = ["PRESETS", "Balanced", "balance_domains"]

DOMAINS = ("sport", "politics", "culture", "other")
PRESETS: dict[str, dict[str, float]] = {
    "diverse": {"sport": 0.25, "politics": 0.25, "culture": 0.25, "other": 0.25},
    "lot": {"sport": 0.73, "other": 0.13, "culture": 0.11, "politics": 0.03},
}


@dataclass
class Balanced:
    kept: list[Table]
    dropped: list[tuple[str, str]]  # (table id, reason)
    counts: dict[str, int]


def balance_domains(tables: Sequence[Table], target: str | Mapping[str, float], *, total: int | None = None
                    ) -> Balanced:
    """The largest release (or `total` tables) whose domain shares follow `target`."""
    shares = dict(PRESETS[target]) if isinstance(target, str) else dict(target)
    unknown = set(shares) - set(DOMAINS)
    if unknown or not shares or any(v < 0 for v in shares.values()) or sum(shares.values()) <= 0:
        raise ValueError(f"domain shares must be non-negative weights over {DOMAINS}, got {shares}")
    norm = sum(shares.values())
    shares = {d: v / norm for d, v in shares.items() if v > 0}
    by_domain: dict[str, list[Table]] = {d: [] for d in DOMAINS}
    for t in sorted(tables, key=lambda t: t.id):
        by_domain.setdefault(t.domain if t.domain in DOMAINS else "other", []).append(t)
    # the most tables the scarcest domain allows, capped by `total`
    size = min(math.floor(len(by_domain[d]) / s) for d, s in shares.items())
    if total is not None:
        size = min(size, total)
    quota = {d: math.floor(size * s) for d, s in shares.items()}
    # hand out what rounding left over to the domains with the largest remainders that still have tables
    left = size - sum(quota.values())
    for d in sorted(shares, key=lambda d: size * shares[d] - quota[d], reverse=True):
        if left <= 0:
            break
        if quota[d] < len(by_domain[d]):
            quota[d] += 1
            left -= 1
    kept: list[Table] = []
    dropped: list[tuple[str, str]] = []
    for d, ts in by_domain.items():
        q = quota.get(d, 0)
        kept.extend(ts[:q])
        dropped.extend((t.id, f"domain balance: {d} is over its share {shares.get(d, 0):.2f}") for t in ts[q:])
    return Balanced(kept, dropped, {d: quota.get(d, 0) for d in DOMAINS})
