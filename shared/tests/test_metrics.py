"""Metrics checked against values computed by hand (worked out in the comments)."""

from __future__ import annotations

import math

import pytest
from livetab.metrics import (
    accuracy,
    accuracy_gap_table,
    cohen_kappa,
    cohen_kappa_detail,
    cons_at_k,
    majority_vote,
    pass_at_1,
    pass_at_k,
    pass_at_k_mean,
    score_summary,
    two_proportion_z_test,
    wilson_interval,
)


def test_accuracy() -> None:
    assert accuracy([True, False, True, True]) == 0.75
    assert accuracy([]) == 0.0


def test_wilson_interval_of_8_of_10() -> None:
    # p = 0.8, z = 1.96: denom = 1 + 3.8416/10 = 1.38416; centre = (0.8 + 0.19208)/1.38416 = 0.716738
    # half = 1.96 * sqrt(0.016 + 0.009604) / 1.38416 = 0.226581  ->  (0.490157, 0.943319)
    lo, hi = wilson_interval(8, 10, z=1.96)
    assert lo == pytest.approx(0.490157, abs=1e-6)
    assert hi == pytest.approx(0.943319, abs=1e-6)


def test_wilson_interval_edges() -> None:
    lo, hi = wilson_interval(0, 10, z=1.96)
    assert lo == 0.0
    # upper = (0 + 0.19208)/1.38416 + 1.96*sqrt(0.009604)/1.38416 = 2 * 0.19208/1.38416 = 0.38416/1.38416
    assert hi == pytest.approx(0.38416 / 1.38416, abs=1e-9)
    assert wilson_interval(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError):
        wilson_interval(11, 10)


def test_pass_at_1_is_mean_over_questions_of_mean_over_samples() -> None:
    # question 1: 3 of 4 samples right (0.75); question 2: 1 of 2 (0.5) -> (0.75 + 0.5) / 2 = 0.625
    assert pass_at_1([[True, True, True, False], [False, True]]) == pytest.approx(0.625)


def test_unbiased_pass_at_k_hand_values() -> None:
    # n=5, c=2, k=2: 1 - C(3,2)/C(5,2) = 1 - 3/10
    assert pass_at_k(5, 2, 2) == pytest.approx(0.7)
    # k=1 reduces to c/n
    assert pass_at_k(10, 3, 1) == pytest.approx(0.3)
    # n=16, c=4, k=4: 1 - C(12,4)/C(16,4) = 1 - 495/1820
    assert pass_at_k(16, 4, 4) == pytest.approx(1 - 495 / 1820)
    assert pass_at_k(4, 1, 4) == 1.0
    assert pass_at_k(5, 0, 3) == 0.0
    with pytest.raises(ValueError):
        pass_at_k(3, 4, 1)
    # mean over questions: n=5,c=2 gives 0.7 and n=2,c=2 gives 1.0 -> (0.7 + 1.0)/2
    assert pass_at_k_mean([[True, True, False, False, False], [True, True]], 2) == pytest.approx(0.85)


def test_cons_at_k_uses_the_majority_answer() -> None:
    answers = [["40", "40", "41"], ["a", "b", "b", "c"], ["x", "y"]]
    correct = [[True, True, False], [True, False, False, False], [False, True]]
    # q1 majority "40" is right; q2 majority "b" is wrong; q3 tie -> first to reach top count: "x", wrong
    assert cons_at_k(answers, correct) == pytest.approx(1 / 3)
    assert majority_vote(["b", "a", "a", "b"]) == "b"
    assert majority_vote([]) is None
    with pytest.raises(ValueError):
        cons_at_k([["a"]], [[True, False]])


def test_cohen_kappa_of_a_known_confusion_matrix() -> None:
    # yes/yes 20, yes/no 5, no/yes 10, no/no 15 -> po = 35/50 = 0.7;
    # a says yes 25/50, b says yes 30/50: pe = 0.5*0.6 + 0.5*0.4 = 0.5 -> kappa = (0.7-0.5)/(1-0.5) = 0.4
    a = ["yes"] * 25 + ["no"] * 25
    b = ["yes"] * 20 + ["no"] * 5 + ["yes"] * 10 + ["no"] * 15
    d = cohen_kappa_detail(a, b)
    assert d.kappa == pytest.approx(0.4)
    assert d.observed_agreement == pytest.approx(0.7)
    assert d.expected_agreement == pytest.approx(0.5)
    assert d.confusion[("yes", "no")] == 5
    assert cohen_kappa([1, 0, 1, 0], [0, 1, 0, 1]) == pytest.approx(-1.0)
    assert cohen_kappa([1, 1], [1, 1]) == 1.0
    with pytest.raises(ValueError):
        cohen_kappa([1], [1, 0])


def test_accuracy_gap_table_layout() -> None:
    human = {"m1": {"a": True, "b": True, "c": False, "d": False},
             "m2": {"a": True, "b": False}}
    judges = {
        "gpt": {"m1": {"a": True, "b": False, "c": False, "d": False}, "m2": {"a": True, "b": False}},
        "qwen": {"m1": {"a": True, "b": True, "c": True, "d": False}},
    }
    rows = accuracy_gap_table(human, judges)
    assert [r.model for r in rows] == ["m1", "m2"]
    m1 = rows[0]
    assert m1.reference_accuracy == 0.5
    assert m1.judge_accuracy == {"gpt": 0.25, "qwen": 0.75}
    assert m1.gap == {"gpt": pytest.approx(-0.25), "qwen": pytest.approx(0.25)}
    assert rows[1].gap == {"gpt": 0.0}  # qwen did not judge m2: no column, not a zero


def test_two_proportion_z_test() -> None:
    # 45/100 vs 30/100: pooled 0.375, se = sqrt(0.375*0.625*0.02) = 0.0684653, z = 0.15/se = 2.19089
    r = two_proportion_z_test(45, 100, 30, 100)
    assert r.z == pytest.approx(2.19089, abs=1e-5)
    # two-sided p = 2 * (1 - Phi(2.19089)) ~= 0.02846
    assert r.p_value == pytest.approx(0.02846, abs=2e-4)
    assert two_proportion_z_test(0, 10, 0, 10).p_value == 1.0
    assert math.isclose(two_proportion_z_test(30, 100, 45, 100).z, -r.z)


def test_score_summary_of_a_batch() -> None:
    samples = {
        "q1": [("40", True), ("40", True), ("41", False), ("40", True)],  # 3/4, majority "40" right
        "q2": [("a", False), ("b", True), ("a", False), ("c", False)],  # 1/4, majority "a" wrong
    }
    s = score_summary(samples, ks=(1, 4, 16))
    assert s["samples"] == 8 and s["questions"] == 2
    assert s["accuracy"] == pytest.approx(0.5)
    assert s["pass@1"] == pytest.approx((0.75 + 0.25) / 2)
    assert s["cons@n"] == pytest.approx(0.5)
    assert s["pass@4"] == pytest.approx(1.0)  # both questions have a right sample among their 4
    assert "pass@16" not in s  # only 4 samples per question
    assert (s["accuracy_ci_low"], s["accuracy_ci_high"]) == pytest.approx(wilson_interval(4, 8))
