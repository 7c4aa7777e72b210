"""Scores written with every judgment batch: accuracy and its Wilson interval, pass@1 over N samples,
cons@k by majority vote, unbiased pass@k (Chen et al. 2021), Cohen's kappa between two labellings,
the signed accuracy gap of each judge to a reference labelling per model (AraTable Table 10's layout),
FreshTab's two-proportion z-test, and McNemar's paired test (exact binomial, and chi-square with
continuity correction) for two models on the same items.

Everything here is plain Python over sequences; nothing imports a service.
"""

from __future__ import annotations

import logging
import math
from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field

__all__ = [
    "AccuracyGapRow",
    "KappaResult",
    "McNemar",
    "ZTest",
    "accuracy",
    "accuracy_gap_table",
    "cohen_kappa",
    "cohen_kappa_detail",
    "cons_at_k",
    "majority_vote",
    "mcnemar_test",
    "pass_at_1",
    "pass_at_k",
    "pass_at_k_mean",
    "score_summary",
    "two_proportion_z_test",
    "wilson_interval",
]

log = logging.getLogger(__name__)


def accuracy(correct: Sequence[bool]) -> float:
    """Share of True values; 0.0 for an empty sequence (nothing was answered correctly)."""
    if not correct:
        return 0.0
    return sum(1 for c in correct if c) / len(correct)


def wilson_interval(successes: int, n: int, *, z: float = 1.959963984540054) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (default 95 %). (0, 1) when n is 0."""
    if n < 0 or successes < 0 or successes > n:
        raise ValueError(f"wilson_interval needs 0 <= successes <= n, got {successes}/{n}")
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def pass_at_1(samples: Sequence[Sequence[bool]]) -> float:
    """TeleTables' pass@1: per question the mean correctness of its N samples, averaged over questions."""
    per_question = [accuracy(s) for s in samples if len(s) > 0]
    if not per_question:
        return 0.0
    return sum(per_question) / len(per_question)


def majority_vote(answers: Sequence[Hashable]) -> Hashable | None:
    """The most frequent answer; ties go to the answer that reached the top count first in order.

    None for an empty sequence. Callers pass normalised answers (e.g. the judge's extracted answer).
    """
    if not answers:
        return None
    counts = Counter(answers)
    top = max(counts.values())
    for a in answers:
        if counts[a] == top:
            return a
    return None  # pragma: no cover - unreachable


def cons_at_k(answers: Sequence[Sequence[Hashable]], correct: Sequence[Sequence[bool]]) -> float:
    """cons@k: a question counts as correct when its majority answer among its k samples is correct.

    `answers[i][j]` is the normalised answer of sample j of question i and `correct[i][j]` its verdict.
    """
    if len(answers) != len(correct):
        raise ValueError(f"cons_at_k: {len(answers)} answer lists but {len(correct)} verdict lists")
    hits = 0
    counted = 0
    for ans, cor in zip(answers, correct, strict=True):
        if len(ans) != len(cor):
            raise ValueError(f"cons_at_k: {len(ans)} answers but {len(cor)} verdicts for one question")
        if not ans:
            continue
        counted += 1
        winner = majority_vote(ans)
        idx = list(ans).index(winner)
        hits += 1 if cor[idx] else 0
    return hits / counted if counted else 0.0


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k of Chen et al. (2021): 1 - C(n-c, k) / C(n, k), as a stable product."""
    if not 0 <= c <= n or k < 1 or k > n:
        raise ValueError(f"pass_at_k needs 0 <= c <= n and 1 <= k <= n, got n={n} c={c} k={k}")
    if n - c < k:
        return 1.0
    prod = 1.0
    for i in range(n - c + 1, n + 1):
        prod *= 1.0 - k / i
    return 1.0 - prod


def pass_at_k_mean(samples: Sequence[Sequence[bool]], k: int) -> float:
    """pass@k averaged over questions, each with its own n samples (questions with n < k are skipped)."""
    vals = [pass_at_k(len(s), sum(1 for x in s if x), k) for s in samples if len(s) >= k]
    return sum(vals) / len(vals) if vals else 0.0


@dataclass(frozen=True)
class KappaResult:
    kappa: float
    observed_agreement: float
    expected_agreement: float
    n: int
    confusion: dict[tuple[str, str], int] = field(default_factory=dict)


def cohen_kappa_detail(a: Sequence[Hashable], b: Sequence[Hashable]) -> KappaResult:
    """Cohen's kappa between two labellings of the same items, with the confusion counts.

    When both raters use one and the same label throughout (expected agreement 1), kappa is 1.0 if
    they agree everywhere, else 0.0.
    """
    if len(a) != len(b):
        raise ValueError(f"cohen_kappa: labellings differ in length ({len(a)} vs {len(b)})")
    n = len(a)
    if n == 0:
        raise ValueError("cohen_kappa: no items")
    confusion: Counter[tuple[str, str]] = Counter((str(x), str(y)) for x, y in zip(a, b, strict=True))
    po = sum(v for (x, y), v in confusion.items() if x == y) / n
    ca = Counter(str(x) for x in a)
    cb = Counter(str(y) for y in b)
    pe = sum(ca[label] * cb.get(label, 0) for label in ca) / (n * n)
    if math.isclose(pe, 1.0):
        kappa = 1.0 if math.isclose(po, 1.0) else 0.0
    else:
        kappa = (po - pe) / (1.0 - pe)
    return KappaResult(kappa=kappa, observed_agreement=po, expected_agreement=pe, n=n, confusion=dict(confusion))


def cohen_kappa(a: Sequence[Hashable], b: Sequence[Hashable]) -> float:
    return cohen_kappa_detail(a, b).kappa


@dataclass(frozen=True)
class AccuracyGapRow:
    """One row of AraTable's Table 10: a model's accuracy by the reference (humans) and each judge's
    signed gap to it (judge accuracy minus reference accuracy; negative means the judge is stricter)."""

    model: str
    n: int
    reference_accuracy: float
    judge_accuracy: dict[str, float]
    gap: dict[str, float]


def accuracy_gap_table(reference: Mapping[str, Mapping[str, bool]],
                       judges: Mapping[str, Mapping[str, Mapping[str, bool]]]) -> list[AccuracyGapRow]:
    """Rows per model over the items both the reference and a judge labelled.

    `reference[model][item_id]` is the reference label (e.g. human); `judges[judge][model][item_id]`
    a judge's label. A judge's accuracy is taken over the reference's items it labelled; items it did
    not label are logged and left out of its column only.
    """
    rows: list[AccuracyGapRow] = []
    for model in sorted(reference):
        ref = reference[model]
        items = sorted(ref)
        ref_acc = accuracy([ref[i] for i in items])
        acc: dict[str, float] = {}
        gap: dict[str, float] = {}
        for judge in sorted(judges):
            labels = judges[judge].get(model, {})
            shared = [i for i in items if i in labels]
            if len(shared) < len(items):
                log.info("judge %s labelled %d of %d reference items of %s", judge, len(shared), len(items), model)
            if not shared:
                continue
            ref_on_shared = accuracy([ref[i] for i in shared])
            acc[judge] = accuracy([labels[i] for i in shared])
            gap[judge] = acc[judge] - ref_on_shared
        rows.append(AccuracyGapRow(model=model, n=len(items), reference_accuracy=ref_acc,
                                   judge_accuracy=acc, gap=gap))
    return rows


@dataclass(frozen=True)
class ZTest:
    z: float
    p_value: float
    p1: float
    p2: float


def two_proportion_z_test(x1: int, n1: int, x2: int, n2: int) -> ZTest:
    """Pooled two-proportion z-test, two-sided (FreshTab compares benchmarks with it at p <= 0.05)."""
    if n1 <= 0 or n2 <= 0 or not 0 <= x1 <= n1 or not 0 <= x2 <= n2:
        raise ValueError(f"two_proportion_z_test needs 0 <= x <= n and n > 0, got {x1}/{n1}, {x2}/{n2}")
    p1, p2 = x1 / n1, x2 / n2
    pooled = (x1 + x2) / (n1 + n2)
    se = math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    if se == 0.0:
        return ZTest(z=0.0, p_value=1.0, p1=p1, p2=p2)
    z = (p1 - p2) / se
    p = math.erfc(abs(z) / math.sqrt(2.0))
    return ZTest(z=z, p_value=p, p1=p1, p2=p2)


@dataclass(frozen=True)
class McNemar:
    """McNemar's test on paired verdicts: `b` items only the first got right, `c` only the second.
    `p_exact` is the two-sided exact binomial p-value (b ~ Binomial(b + c, 1/2)); `chi2` and `p_chi2`
    the chi-square statistic with Edwards' continuity correction, (|b - c| - 1)^2 / (b + c) (0 when b = c), and
    its p-value."""

    b: int
    c: int
    p_exact: float
    chi2: float
    p_chi2: float


def _binom_half_cdf(k: int, n: int) -> float:
    """P(X <= k) for X ~ Binomial(n, 1/2), summed exactly in integers."""
    return sum(math.comb(n, i) for i in range(k + 1)) / 2.0**n if n < 1000 else \
        math.fsum(math.exp(math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) - n * math.log(2.0))
                  for i in range(k + 1))


def mcnemar_test(b: int, c: int) -> McNemar:
    """McNemar's test from the two discordant counts (the concordant ones do not enter it)."""
    if b < 0 or c < 0:
        raise ValueError(f"mcnemar_test needs b, c >= 0, got {b}, {c}")
    n = b + c
    if n == 0:
        return McNemar(b=b, c=c, p_exact=1.0, chi2=0.0, p_chi2=1.0)
    p_exact = min(1.0, 2.0 * _binom_half_cdf(min(b, c), n))
    chi2 = max(abs(b - c) - 1, 0) ** 2 / n
    p_chi2 = math.erfc(math.sqrt(chi2 / 2.0))  # chi-square with 1 degree of freedom: P(Z^2 >= chi2)
    return McNemar(b=b, c=c, p_exact=p_exact, chi2=chi2, p_chi2=p_chi2)


def score_summary(samples: Mapping[str, Sequence[tuple[Hashable, bool]]], *,
                  ks: Sequence[int] = (1, 4, 16)) -> dict[str, float]:
    """The figures written with a judgment batch, from each question's samples (answer key, correct).

    accuracy and its Wilson interval over all samples; pass@1 (mean over each question's N samples);
    cons@N by majority vote over each question's samples; unbiased pass@k for each k in `ks` no larger
    than the smallest N (questions with fewer samples are skipped for that k).
    """
    flat = [ok for s in samples.values() for _, ok in s]
    lo, hi = wilson_interval(sum(flat), len(flat))
    per_q = [[ok for _, ok in s] for s in samples.values() if s]
    out: dict[str, float] = {
        "questions": float(len(per_q)),
        "samples": float(len(flat)),
        "accuracy": accuracy(flat),
        "accuracy_ci_low": lo,
        "accuracy_ci_high": hi,
        "pass@1": pass_at_1(per_q),
        "cons@n": cons_at_k([[a for a, _ in s] for s in samples.values() if s], per_q),
    }
    for k in ks:
        if per_q and k <= min(len(q) for q in per_q):
            out[f"pass@{k}"] = pass_at_k_mean(per_q, k)
    return out
