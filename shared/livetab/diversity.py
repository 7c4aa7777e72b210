"""Diversity of a model's insights (FreshTab): self-BLEU-4 (lower is more diverse), unique tokens per
insight, Shannon entropy of the token distribution, the share of empty outputs and the average length.

BLEU is computed here: modified n-gram precisions with clipping against several references, the
brevity penalty with the closest reference length, and epsilon smoothing of zero counts (Chen &
Cherry's method 1, as commonly used for self-BLEU). Self-BLEU scores each insight against all the
others of the same model as references and averages.

Shared (not in the judge service) because the reporter computes it over each model's insight responses.
"""

from __future__ import annotations

import bisect
import logging
import math
import re
import unicodedata
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass

__all__ = ["DiversityReport", "bleu", "diversity", "diversity_by_model", "self_bleu", "shannon_entropy", "tokenize"]

log = logging.getLogger(__name__)

_TOKEN = re.compile(r"\w+|[^\w\s]", re.UNICODE)


def tokenize(text: str) -> list[str]:
    """Lower-cased word and punctuation tokens (Unicode-aware, so Arabic and other scripts work)."""
    return _TOKEN.findall(unicodedata.normalize("NFKC", text).casefold())


def _ngrams(tokens: Sequence[str], n: int) -> Counter[tuple[str, ...]]:
    return Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))


def bleu(hypothesis: Sequence[str], references: Sequence[Sequence[str]], *, max_n: int = 4,
         epsilon: float = 0.1) -> float:
    """Sentence BLEU of tokenised `hypothesis` against tokenised `references`, uniform weights."""
    if not hypothesis or not references:
        return 0.0
    log_sum = 0.0
    for n in range(1, max_n + 1):
        hyp = _ngrams(hypothesis, n)
        total = sum(hyp.values())
        if total == 0:
            # hypothesis shorter than n: no n-grams to match, smoothed like a zero count
            log_sum += math.log(epsilon / 1.0)
            continue
        max_ref: Counter[tuple[str, ...]] = Counter()
        for ref in references:
            for g, c in _ngrams(ref, n).items():
                if c > max_ref[g]:
                    max_ref[g] = c
        clipped = sum(min(c, max_ref[g]) for g, c in hyp.items())
        p = (clipped if clipped > 0 else epsilon) / total
        log_sum += math.log(p)
    hyp_len = len(hypothesis)
    ref_len = min((len(r) for r in references), key=lambda r_len: (abs(r_len - hyp_len), r_len))
    bp = 1.0 if hyp_len > ref_len else math.exp(1.0 - ref_len / hyp_len)
    return bp * math.exp(log_sum / max_n)


def self_bleu(texts: Sequence[str], *, max_n: int = 4, epsilon: float = 0.1) -> float:
    """Mean BLEU-`max_n` of each non-empty text against all the other non-empty texts.

    The same figure as `bleu(t, others)` for each text, in time linear in the texts rather than quadratic:
    each n-gram's two largest counts over all texts (and which text holds the largest) give the clipping
    count against "every text but this one", and the sorted lengths the closest other reference length."""
    toks = [tokenize(t) for t in texts]
    toks = [t for t in toks if t]
    if len(toks) < 2:
        return 0.0
    grams = [[_ngrams(t, n) for n in range(1, max_n + 1)] for t in toks]
    # per n-gram: (largest count, the text holding it, second largest count)
    top: list[dict[tuple[str, ...], tuple[int, int, int]]] = [{} for _ in range(max_n)]
    for i, per_n in enumerate(grams):
        for k, counts in enumerate(per_n):
            best = top[k]
            for g, c in counts.items():
                first, owner, second = best.get(g, (0, -1, 0))
                if c > first:
                    best[g] = (c, i, first)
                elif c > second:
                    best[g] = (first, owner, c)
    lengths = sorted(len(t) for t in toks)
    scores = []
    for i, t in enumerate(toks):
        log_sum = 0.0
        for k, hyp in enumerate(grams[i]):
            total = sum(hyp.values())
            if total == 0:
                log_sum += math.log(epsilon / 1.0)
                continue
            clipped = 0
            for g, c in hyp.items():
                first, owner, second = top[k][g]
                clipped += min(c, second if owner == i else first)
            log_sum += math.log((clipped if clipped > 0 else epsilon) / total)
        hyp_len = len(t)
        lo, hi = bisect.bisect_left(lengths, hyp_len), bisect.bisect_right(lengths, hyp_len)
        if hi - lo > 1:  # another text of the same length
            ref_len = hyp_len
        else:  # the nearest other length, the shorter on a tie (as `bleu` picks)
            near = [lengths[j] for j in (lo - 1, hi) if 0 <= j < len(lengths)]
            ref_len = min(near, key=lambda r_len: (abs(r_len - hyp_len), r_len))
        bp = 1.0 if hyp_len > ref_len else math.exp(1.0 - ref_len / hyp_len)
        scores.append(bp * math.exp(log_sum / max_n))
    return sum(scores) / len(scores)


def shannon_entropy(tokens: Sequence[str]) -> float:
    """Entropy in bits of the unigram distribution."""
    counts = Counter(tokens)
    total = sum(counts.values())
    if total == 0:
        return 0.0
    return -sum((c / total) * math.log2(c / total) for c in counts.values())


@dataclass(frozen=True)
class DiversityReport:
    n_outputs: int
    self_bleu4: float
    unique_tokens_per_insight: float
    entropy_bits: float
    empty_rate: float
    avg_length_tokens: float

    def as_dict(self) -> dict[str, float]:
        return {k: float(v) for k, v in asdict(self).items()}


def diversity(outputs: Sequence[str]) -> DiversityReport:
    """FreshTab's diversity figures over one model's insights (empty outputs count only in empty_rate).

    unique tokens per insight = distinct tokens over all non-empty insights / number of those insights.
    """
    n = len(outputs)
    non_empty = [o for o in outputs if o and o.strip()]
    toks = [tokenize(o) for o in non_empty]
    all_tokens = [t for ts in toks for t in ts]
    k = len(non_empty)
    return DiversityReport(
        n_outputs=n,
        self_bleu4=self_bleu(non_empty),
        unique_tokens_per_insight=(len(set(all_tokens)) / k) if k else 0.0,
        entropy_bits=shannon_entropy(all_tokens),
        empty_rate=((n - k) / n) if n else 0.0,
        avg_length_tokens=(len(all_tokens) / k) if k else 0.0,
    )


def diversity_by_model(outputs: Mapping[str, Sequence[str]]) -> dict[str, DiversityReport]:
    """One report per model from its insights (each model's outputs are scored among themselves only)."""
    return {model: diversity(texts) for model, texts in sorted(outputs.items())}
