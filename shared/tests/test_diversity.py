"""Diversity metrics against values computed by hand, and on real LoTNLG reference statements."""

from __future__ import annotations

import json
import math

import pytest
from livetab.diversity import bleu, diversity, diversity_by_model, self_bleu, shannon_entropy, tokenize
from livetab.paths import shared_data


def test_tokenize_is_unicode_aware() -> None:
    assert tokenize("The Cat, sat.") == ["the", "cat", ",", "sat", "."]
    assert tokenize("فندق أ و فندق ب") == ["فندق", "أ", "و", "فندق", "ب"]


def test_bleu_hand_computed() -> None:
    hyp = tokenize("the cat sat on the mat")
    ref = tokenize("the cat is on the mat")
    # p1 = 5/6 (the x2 clipped to 2, cat, on, mat), p2 = 3/5, p3 = 1/4, p4 = 0 -> epsilon 0.1 / 3; bp = 1
    expected = (5 / 6 * 3 / 5 * 1 / 4 * (0.1 / 3)) ** 0.25
    assert bleu(hyp, [ref]) == pytest.approx(expected)
    assert bleu(hyp, [hyp]) == pytest.approx(1.0)


def test_bleu_brevity_penalty_uses_closest_reference() -> None:
    hyp = tokenize("a b c d")
    refs = [tokenize("a b c d e f"), tokenize("a b c d e f g h i j")]
    # all precisions 1; closest reference length 6 -> bp = exp(1 - 6/4)
    assert bleu(hyp, refs) == pytest.approx(math.exp(1 - 6 / 4))


def test_self_bleu_identical_versus_diverse() -> None:
    same = ["team a won the cup in 2020"] * 3
    assert self_bleu(same) == pytest.approx(1.0)
    distinct = ["alpha beta gamma delta", "one two three four", "red green blue yellow"]
    # no shared n-gram at all: every p_n = 0.1 / count(n-grams) -> (0.1/4 * 0.1/3 * 0.1/2 * 0.1/1) ** 0.25
    assert self_bleu(distinct) == pytest.approx((0.1 / 4 * 0.1 / 3 * 0.1 / 2 * 0.1) ** 0.25)
    assert self_bleu(distinct) < self_bleu(same)
    assert self_bleu(["only one"]) == 0.0


def test_entropy_bits() -> None:
    assert shannon_entropy(["a", "b", "a", "b"]) == pytest.approx(1.0)
    assert shannon_entropy(["a", "a", "b", "c"]) == pytest.approx(1.5)
    assert shannon_entropy([]) == 0.0


def test_diversity_report_by_hand() -> None:
    r = diversity(["A b.", "", "c d", "   "])
    assert r.n_outputs == 4
    assert r.empty_rate == 0.5
    assert r.unique_tokens_per_insight == pytest.approx(5 / 2)  # {a, b, ., c, d} over 2 insights
    assert r.avg_length_tokens == pytest.approx(2.5)
    assert r.entropy_bits == pytest.approx(math.log2(5))
    assert diversity([]).empty_rate == 0.0
    per = diversity_by_model({"m2": ["x y", "x y"], "m1": ["a", ""]})
    assert list(per) == ["m1", "m2"] and per["m1"].empty_rate == 0.5
    # two-token copies: p1 = p2 = 1, no 3- or 4-grams -> smoothed 0.1 each
    assert per["m2"].self_bleu4 == pytest.approx((1 * 1 * 0.1 * 0.1) ** 0.25)


def test_real_lotnlg_statements_are_more_diverse_across_tables_than_a_copied_set() -> None:
    rows = [json.loads(line) for line in (shared_data() / "lotnlg" / "lotnlg_test_100tables.jsonl").open()]
    sample = rows[0]
    statements = [s for s in _statements(sample)]
    assert len(statements) >= 3
    real = diversity(statements)
    copied = diversity([statements[0]] * len(statements))
    assert 0.0 < real.self_bleu4 < copied.self_bleu4 == pytest.approx(1.0)
    assert real.unique_tokens_per_insight > copied.unique_tokens_per_insight
    assert real.empty_rate == 0.0


def _statements(row: dict[str, object]) -> list[str]:
    for key in ("statements", "references", "sentences"):
        value = row.get(key)
        if isinstance(value, list):
            return [str(v.get("statement", v.get("sentence", v)) if isinstance(v, dict) else v) for v in value]
    raise AssertionError(f"no statements in LoTNLG row keys {sorted(row)}")


def test_self_bleu_is_the_mean_bleu_against_all_the_others() -> None:
    """The linear-time self-BLEU gives exactly the definition's figure (each text's BLEU against every other
    text), on real insight-like sentences: LoTNLG's reference statements, with repeats and one-word texts."""
    import json
    import random

    from livetab.paths import shared_data

    lines = (shared_data() / "lotnlg" / "lotnlg_test_100tables.jsonl").read_text(encoding="utf-8").splitlines()
    sentences = [s for line in lines[:40] for s in json.loads(line).get("sentences", [])[:3]]
    texts = sentences + sentences[:5] + ["wins", "wins", "a", "Fiji won once ."]
    random.Random(3).shuffle(texts)
    toks = [t for t in (tokenize(x) for x in texts) if t]
    naive = sum(bleu(t, toks[:i] + toks[i + 1:]) for i, t in enumerate(toks)) / len(toks)
    assert len(toks) > 50 and self_bleu(texts) == pytest.approx(naive, abs=1e-12)
    for part in (texts[:2], texts[:3], ["one two three", "one two", "one two three four five"]):
        toks = [tokenize(x) for x in part]
        assert self_bleu(part) == pytest.approx(sum(bleu(t, toks[:i] + toks[i + 1:]) for i, t in enumerate(toks))
                                                / len(toks), abs=1e-12)
