"""The leaderboard computation: every breakdown of every run from `Facts`, in vectorised passes.

Per run (one model on one release), overall and per stratum of each key in `STRATA` — the question's
labels (family, skill, scope, logical operation, difficulty, language), its table's (domain, source kind,
rows, columns and cells binned, header depth, grouped rows, footnotes), the request's format and setting,
and the prompt's length in tokens (binned):

- n answers, correct, accuracy with its 95 % Wilson interval, errors (failed model calls, counted wrong);
- over the N samples of each (question, format, setting): pass@1 (TeleTables: mean over questions of the
  share of right samples), cons@N (the majority answer is right; ties go to the earliest sample), and the
  unbiased pass@k of Chen et al. (2021) for k = 1, 2, 4, ... and N, over questions with at least k samples;
- mean prompt and completion tokens and mean latency per answer (over answers whose usage was recorded).

The same figures for every run of the release pooled (how hard each stratum was for all models together).
And per run: the freshness cut (items whose source is newer than the model's declared knowledge cutoff,
beside all items), the contamination view (fresh vs older tables split at a date, FreshTab's two-proportion
z-test), format robustness (questions asked in several formats: share answered consistently, spread of
accuracy across formats), the imperfect-data view (well-posed accuracy beside the rate of correctly flagged
missing/contradictory tables, TabularMath), the judge panel's agreement before and after deliberation when
LLM judges deliberated; across runs, McNemar's test between adjacent runs of the ranking on shared items.

Answers are summed once per sample group (`numpy.bincount` over the group of each answer); every key's strata
are then bincounts over the groups. Nothing here loops over answers in Python.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise
from typing import Any

import numpy as np
from livetab.metrics import mcnemar_test, pass_at_k, two_proportion_z_test

from livetab_reporter.facts import QUESTION_KEYS, Facts, prompt_token_bin

__all__ = ["ALPHA", "STRATA", "Aggregate", "aggregate", "rank_significance", "wilson_arrays"]

ALPHA = 0.05  # significance level of the contamination z-test and of the rank test
Z95 = 1.959963984540054
STRATA = (*QUESTION_KEYS, "format", "setting", "prompt_tokens")
IMPERFECT = "imperfect"


def wilson_arrays(correct: np.ndarray, n: np.ndarray, z: float = Z95) -> tuple[np.ndarray, np.ndarray]:
    """`livetab.metrics.wilson_interval` over arrays; (0, 1) where n is 0."""
    n_f = n.astype(np.float64)
    safe = np.where(n_f > 0, n_f, 1.0)
    p = correct / safe
    z2 = z * z
    denom = 1.0 + z2 / safe
    centre = (p + z2 / (2 * safe)) / denom
    half = z * np.sqrt(np.maximum(p * (1 - p) / safe + z2 / (4 * safe * safe), 0.0)) / denom
    lo = np.where(n_f > 0, np.maximum(0.0, centre - half), 0.0)
    hi = np.where(n_f > 0, np.minimum(1.0, centre + half), 1.0)
    return lo, hi


def _r(x: float) -> float:
    """Figures stay unrounded here; the document rounds them (`document.rounded`)."""
    return float(x)


def _proportion(correct: int, n: int) -> dict[str, Any]:
    lo, hi = wilson_arrays(np.asarray([correct]), np.asarray([n]))
    return {"n": int(n), "correct": int(correct), "accuracy": _r(correct / n) if n else 0.0,
            "ci_low": _r(lo[0]), "ci_high": _r(hi[0])}


@dataclass
class _Groups:
    """The (run, question, format, setting) groups of samples."""

    of_row: np.ndarray  # group index per row
    first: np.ndarray  # the first row of each group
    n: np.ndarray  # samples per group
    c: np.ndarray  # right samples per group
    cons: np.ndarray  # 1.0 where the group's majority answer is right
    ks: list[int]
    pass_k: dict[int, np.ndarray]  # k -> unbiased pass@k per group (0 where n < k)
    has_k: dict[int, np.ndarray]  # k -> 1.0 where n >= k


def _groups(f: Facts, ok: np.ndarray) -> _Groups:
    q_n, f_n, s_n = len(f.question_ids), max(len(f.formats), 1), max(len(f.settings), 1)
    key = ((f.run.astype(np.int64) * q_n + f.question) * f_n + f.fmt) * s_n + f.setting
    _, first, of_row = np.unique(key, return_index=True, return_inverse=True)
    n_groups = first.shape[0]
    n = np.bincount(of_row, minlength=n_groups)
    c = np.bincount(of_row, weights=ok, minlength=n_groups)
    cons = _majority_right(f, of_row, n_groups, ok) if n_groups and n.max() > 1 else ok[first].astype(np.float64)
    big = int(n.max()) if n_groups else 1
    ks = sorted({k for k in (1, 2, 4, 8, 16, 32, 64) if k <= big} | {big})
    pass_k, has_k = {}, {}
    ci = c.astype(np.int64)
    for k in ks:
        table = np.zeros((big + 1, big + 1))
        for nn in range(k, big + 1):
            for cc in range(nn + 1):
                table[nn, cc] = pass_at_k(nn, cc, k)
        pass_k[k] = table[n, ci]
        has_k[k] = (n >= k).astype(np.float64)
    return _Groups(of_row, first, n, c, cons, ks, pass_k, has_k)


def _majority_right(f: Facts, of_row: np.ndarray, n_groups: int, ok: np.ndarray) -> np.ndarray:
    """Per group: is its most frequent answer right? Ties go to the answer given by the earliest sample, and
    the answer's verdict is that of its earliest sample (as `livetab.metrics.cons_at_k`)."""
    shift = int(f.sample.max()) + 1 if len(f) else 1
    ans = f.answer.astype(np.int64) + shift  # answers without text (-1 - sample) become 0..shift-1
    width = int(ans.max()) + 1
    _, pair = np.unique(of_row.astype(np.int64) * width + ans, return_inverse=True)
    n_pairs = int(pair.max()) + 1
    count = np.bincount(pair, minlength=n_pairs)
    order = np.lexsort((f.sample, pair))  # rows by (pair, sample)
    starts = np.flatnonzero(np.r_[True, pair[order][1:] != pair[order][:-1]])
    head = order[starts]  # the earliest sample of each pair
    pair_group, pair_first, pair_ok = of_row[head], f.sample[head], ok[head]
    best = np.lexsort((pair_first, -count, pair_group))  # per group: highest count, then earliest sample
    first_of_group = best[np.flatnonzero(np.r_[True, pair_group[best][1:] != pair_group[best][:-1]])]
    out = np.zeros(n_groups)
    out[pair_group[first_of_group]] = pair_ok[first_of_group]
    return out


@dataclass
class Aggregate:
    """Per run (index into `Facts.run_ids`): its overall entry and its strata."""

    facts: Facts
    overall: list[dict[str, Any]]
    strata: list[dict[str, dict[str, dict[str, Any]]]]  # run -> key -> value -> figures
    views: list[dict[str, Any]]  # run -> freshness, contamination, format_robustness, imperfect, judge_panel
    release: dict[str, Any] | None = None  # every run pooled: overall figures and "strata" (two runs or more)


def _group_values(f: Facts, g: _Groups, key: str) -> tuple[np.ndarray, list[str]]:
    """Each sample group's value of `key` as a code, and the codes' names. Every key is constant within a
    group (question, format, setting), so a group's answers, pass@k and cons@N fall in one stratum."""
    first = g.first
    if key == "format":
        return f.fmt[first], f.formats
    if key == "setting":
        return f.setting[first], f.settings
    if key == "prompt_tokens":  # the item's prompt: the largest count among its samples (a failed call has 0)
        tokens = np.zeros(g.n.shape[0], dtype=np.int64)
        np.maximum.at(tokens, g.of_row, f.prompt_tokens)
        bins = np.asarray([0, 256, 512, 1024, 2048, 4096])
        codes = np.searchsorted(bins, tokens, side="right").astype(np.int32)
        codes[tokens <= 0] = 0  # "unknown"
        return codes, ["unknown", *(prompt_token_bin(int(b)) for b in bins[1:] - 1), prompt_token_bin(4096)]
    return f.qlabels[key][f.question[first]], f.qnames[key]


class _Tally:
    """The figures of one key's strata for every entity (run, or the pooled release) at once, counted over
    the sample groups (whose sums over their answers are taken once, in `aggregate`)."""

    def __init__(self, entity: np.ndarray, n_entities: int, g: _Groups, values: np.ndarray, n_values: int,
                 sums: dict[str, np.ndarray]) -> None:
        size = n_entities * n_values
        idx = entity * n_values + values
        self.n_values = n_values
        self.sums = {k: np.bincount(idx, weights=v, minlength=size) for k, v in sums.items()}
        self.n = np.rint(self.sums["n"]).astype(np.int64)
        self.groups = np.bincount(idx, minlength=size)
        self.p1 = np.bincount(idx, weights=g.c / g.n, minlength=size)
        self.cons = np.bincount(idx, weights=g.cons, minlength=size)
        self.pk = {k: (np.bincount(idx, weights=g.pass_k[k], minlength=size),
                       np.bincount(idx, weights=g.has_k[k], minlength=size)) for k in g.ks}
        self.lo, self.hi = wilson_arrays(np.rint(self.sums["correct"]), self.n)

    def entry(self, run: int, value: int, k_max: int) -> dict[str, Any] | None:
        i = run * self.n_values + value
        n = int(self.n[i])
        if not n:
            return None
        s = self.sums
        correct, rec = round(float(s["correct"][i])), s["recorded"][i]
        groups = self.groups[i]
        out: dict[str, Any] = {
            "n": n, "correct": correct, "accuracy": _r(correct / n), "ci_low": _r(self.lo[i]),
            "ci_high": _r(self.hi[i]), "errors": round(float(s["error"][i])), "items": int(groups),
            "pass_at_1": _r(self.p1[i] / groups), f"cons_at_{k_max}": _r(self.cons[i] / groups),
            "pass_at_k": {str(k): _r(tot[i] / cnt[i]) for k, (tot, cnt) in self.pk.items() if cnt[i]},
            "mean_prompt_tokens": float(s["pt"][i] / rec) if rec else None,
            "mean_completion_tokens": float(s["ct"][i] / rec) if rec else None,
            "mean_latency_ms": float(s["lat"][i] / rec) if rec else None,
        }
        return out


def aggregate(f: Facts, *, split_date: str = "") -> Aggregate:
    """Every run's overall figures, strata and views (`split_date`: the contamination view's split, ISO date;
    "" splits at the model's knowledge cutoff, or else at the median source date of the run's items)."""
    ok = f.correct.astype(np.float64)
    recorded = (f.prompt_tokens > 0) | (f.completion_tokens > 0) | (f.latency_ms > 0)
    g = _groups(f, ok)
    n_groups = g.n.shape[0]
    cols = {"correct": ok, "error": f.error, "recorded": recorded,
            "pt": np.where(recorded, f.prompt_tokens, 0), "ct": np.where(recorded, f.completion_tokens, 0),
            "lat": np.where(recorded, f.latency_ms, 0.0)}
    sums = {k: np.bincount(g.of_row, weights=v.astype(np.float64), minlength=n_groups) for k, v in cols.items()}
    sums["n"] = g.n.astype(np.float64)
    runs = len(f.run_ids)
    run = f.run[g.first].astype(np.int64)  # per group
    k_by_run = np.zeros(runs, dtype=np.int64)
    if n_groups:
        np.maximum.at(k_by_run, run, g.n)
    pooled = np.zeros(n_groups, dtype=np.int64)  # every run of the release as one entity
    everything = _Tally(run, runs, g, pooled, 1, sums)
    overall = []
    for r in range(runs):
        k = int(k_by_run[r]) or 1
        e = everything.entry(r, 0, k) or {**_proportion(0, 0), "errors": 0, "items": 0, "pass_at_1": 0.0,
                                          f"cons_at_{k}": 0.0, "pass_at_k": {}}
        overall.append({**e, "samples_per_question": k, "cons_at_k": e[f"cons_at_{k}"]})
    k_all = max([o["samples_per_question"] for o in overall], default=1)
    release: dict[str, Any] = {**(_Tally(pooled, 1, g, pooled, 1, sums).entry(0, 0, k_all) or {}), "strata": {}}
    strata: list[dict[str, dict[str, dict[str, Any]]]] = [{} for _ in range(runs)]
    for key in STRATA:
        values, names = _group_values(f, g, key)
        codes = values.astype(np.int64)
        t = _Tally(run, runs, g, codes, len(names), sums)
        for r in range(runs):
            k = overall[r]["samples_per_question"]
            got = {names[v]: x for v in range(len(names)) if (x := t.entry(r, v, k)) is not None}
            if got:
                strata[r][key] = dict(sorted(got.items()))
        if runs > 1:
            t = _Tally(pooled, 1, g, codes, len(names), sums)
            release["strata"][key] = dict(sorted(
                (names[v], x) for v in range(len(names)) if (x := t.entry(0, v, k_all)) is not None))
    dates = np.asarray(f.qdate, dtype="U10")[f.question] if len(f) else np.asarray([], dtype="U10")
    views = [_views(f, r, ok, dates, split_date) for r in range(runs)]
    return Aggregate(f, overall, strata, views, release if runs > 1 else None)


def _views(f: Facts, r: int, ok: np.ndarray, dates: np.ndarray, split_date: str) -> dict[str, Any]:
    mine = f.run == r
    out: dict[str, Any] = {"freshness": _freshness(f.cutoffs[r], mine, ok, dates),
                           "contamination": _contamination(f.cutoffs[r], split_date, mine, ok, dates),
                           "format_robustness": _format_robustness(f, mine, ok),
                           "imperfect": _imperfect(f, mine, ok),
                           "judge_panel": _judge_panel([d for rc, d in f.deliberation if rc == r])}
    return out


def _count(mask: np.ndarray, ok: np.ndarray) -> dict[str, Any]:
    return _proportion(int(ok[mask].sum()), int(mask.sum()))


def _freshness(cutoff: str, mine: np.ndarray, ok: np.ndarray, dates: np.ndarray) -> dict[str, Any] | None:
    """Items whose source was created after the declared knowledge cutoff, beside all items; None without one."""
    if not cutoff:
        return None
    known = mine & (dates != "")
    return {"knowledge_cutoff": cutoff, "after_cutoff": _count(known & (dates > cutoff[:10]), ok),
            "all": _count(mine, ok), "unknown_date": int((mine & (dates == "")).sum())}


def _contamination(cutoff: str, split_date: str, mine: np.ndarray, ok: np.ndarray, dates: np.ndarray
                   ) -> dict[str, Any] | None:
    known = mine & (dates != "")
    if not known.any():
        return None
    if split_date:
        split, by = split_date[:10], "configured"
    elif cutoff:
        split, by = cutoff[:10], "knowledge_cutoff"
    else:
        ordered = np.sort(dates[known])
        split, by = str(ordered[len(ordered) // 2]), "median"
    fresh, older = known & (dates > split), known & (dates <= split)
    out: dict[str, Any] = {"split_date": split, "split_by": by, "fresh": _count(fresh, ok),
                           "older": _count(older, ok), "z": None, "p_value": None, "significant": None}
    if fresh.any() and older.any():
        zt = two_proportion_z_test(int(ok[fresh].sum()), int(fresh.sum()), int(ok[older].sum()), int(older.sum()))
        out.update(z=_r(zt.z), p_value=zt.p_value, significant=bool(zt.p_value <= ALPHA))
    return out


def _format_robustness(f: Facts, mine: np.ndarray, ok: np.ndarray) -> dict[str, Any] | None:
    """Over the (question, setting, sample) asked in two formats or more: the share answered consistently
    (right in every format or wrong in every one) and per-format accuracy with its spread (max - min)."""
    rows = np.flatnonzero(mine)
    if not rows.size:
        return None
    s_n = max(len(f.settings), 1)
    width = int(f.sample.max()) + 1
    key = (f.question[rows].astype(np.int64) * s_n + f.setting[rows]) * width + f.sample[rows]
    _, inv = np.unique(key, return_inverse=True)
    n = np.bincount(inv)
    c = np.bincount(inv, weights=ok[rows])
    multi = n >= 2
    if not multi.any():
        return None
    consistent = multi & ((c == 0) | (c == n))
    in_multi = multi[inv]
    fmt = f.fmt[rows][in_multi]
    right = ok[rows][in_multi]
    per_format = {}
    for code in np.unique(fmt):
        sel = fmt == code
        per_format[f.formats[code]] = _proportion(int(right[sel].sum()), int(sel.sum()))
    accs = [v["accuracy"] for v in per_format.values()]
    return {"questions": int(multi.sum()), "consistent": int(consistent.sum()),
            "consistent_share": _r(consistent.sum() / multi.sum()), "accuracy_spread": _r(max(accs) - min(accs)),
            "formats": per_format}


def _imperfect(f: Facts, mine: np.ndarray, ok: np.ndarray) -> dict[str, Any] | None:
    names = f.qnames["family"]
    if IMPERFECT not in names:
        return None
    flagged = mine & (f.qlabels["family"][f.question] == names.index(IMPERFECT))
    if not flagged.any():
        return None
    return {"well_posed": _count(mine & ~flagged, ok), "flagged_imperfect": _count(flagged, ok)}


def _judge_panel(rounds: list[list[tuple[str, str, str]]]) -> dict[str, Any] | None:
    """Agreement of the LLM judges that deliberated: the share of judgments on which every judge gave the same
    label before deliberation (their own labels) and after it (the revised ones)."""
    if not rounds:
        return None
    before = sum(len({own for _, own, _ in rs}) == 1 for rs in rounds)
    after = sum(len({rev or own for _, own, rev in rs}) == 1 for rs in rounds)
    changed = sum(1 for rs in rounds for _, own, rev in rs if rev and rev != own)
    judges = sorted({j for rs in rounds for j, _, _ in rs})
    return {"judgments": len(rounds), "judges": judges, "agree_before": before, "agree_after": after,
            "agreement_before": _r(before / len(rounds)), "agreement_after": _r(after / len(rounds)),
            "labels_changed": changed}


def rank_significance(f: Facts, order: list[int]) -> list[dict[str, Any]]:
    """McNemar's test between each run and the next in `order` (the ranking) on the answers both gave to the
    same (question, format, setting, sample); `tied` when the exact p-value exceeds `ALPHA`."""
    f_n, s_n = max(len(f.formats), 1), max(len(f.settings), 1)
    width = int(f.sample.max()) + 1 if len(f) else 1
    item = ((f.question.astype(np.int64) * f_n + f.fmt) * s_n + f.setting) * width + f.sample
    out = []
    for a, b in pairwise(order):
        ia, ib = np.flatnonzero(f.run == a), np.flatnonzero(f.run == b)
        _, ka, kb = np.intersect1d(item[ia], item[ib], return_indices=True)
        ra, rb = f.correct[ia[ka]], f.correct[ib[kb]]
        t = mcnemar_test(int((ra & ~rb).sum()), int((~ra & rb).sum()))
        out.append({"higher": f.run_ids[a], "lower": f.run_ids[b], "higher_model": f.models[a],
                    "lower_model": f.models[b], "shared_items": int(ka.size), "only_higher_right": t.b,
                    "only_lower_right": t.c, "p_exact": t.p_exact, "chi2": _r(t.chi2),
                    "p_chi2": t.p_chi2, "tied": bool(t.p_exact > ALPHA or ka.size == 0)})
    return out
