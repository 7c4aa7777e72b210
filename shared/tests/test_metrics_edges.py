"""The metrics at their edges: bad arguments are refused with a message saying what was wrong, empty and
degenerate inputs give the documented values, and every field of a result is filled. Hand values in the
comments."""

from __future__ import annotations

import pytest
from livetab.metrics import (
    accuracy_gap_table,
    cohen_kappa,
    cohen_kappa_detail,
    cons_at_k,
    pass_at_1,
    pass_at_k,
    pass_at_k_mean,
    score_summary,
    two_proportion_z_test,
    wilson_interval,
)


def test_wilson_interval_defaults_to_95_percent_and_stays_in_0_1() -> None:
    # z = 1.959964 (95 %), 8 of 10: slightly narrower than with z = 1.96
    lo, hi = wilson_interval(8, 10)
    assert lo == pytest.approx(0.490162, abs=2e-6) and hi == pytest.approx(0.943317, abs=2e-6)
    # all right: the upper end is 1 (rounding would give 1.0000000000000002 for 16 of 16), never above
    for n in range(1, 100):
        lo, hi = wilson_interval(n, n)
        assert hi <= 1.0 and lo == pytest.approx(n / (n + 1.959963984540054 ** 2), abs=1e-12)
        assert wilson_interval(0, n)[0] >= 0.0
    assert wilson_interval(16, 16)[1] == 1.0


@pytest.mark.parametrize(("successes", "n"), [(-1, 5), (6, 5), (0, -1), (-1, -1)])
def test_wilson_interval_refuses_impossible_counts(successes: int, n: int) -> None:
    with pytest.raises(ValueError, match=rf"0 <= successes <= n, got {successes}/{n}"):
        wilson_interval(successes, n)


def test_pass_at_1_skips_questions_without_samples_and_keeps_single_samples() -> None:
    assert pass_at_1([[True], [], [False, False]]) == pytest.approx(0.5)  # (1 + 0) / 2; the empty one skipped
    assert pass_at_1([[True]]) == 1.0
    assert pass_at_1([]) == 0.0 and pass_at_1([[]]) == 0.0


@pytest.mark.parametrize(("n", "c", "k"), [(3, 4, 1), (3, -1, 1), (3, 1, 0), (3, 1, 4), (2, 3, 5)])
def test_pass_at_k_refuses_impossible_arguments(n: int, c: int, k: int) -> None:
    with pytest.raises(ValueError, match=rf"got n={n} c={c} k={k}"):
        pass_at_k(n, c, k)


def test_pass_at_k_with_fewer_wrong_samples_than_k_is_certain() -> None:
    assert pass_at_k(5, 4, 2) == 1.0  # only one wrong sample: any 2 include a right one
    assert pass_at_k(5, 3, 2) == pytest.approx(1 - 1 / 10)  # C(2,2)/C(5,2)
    assert pass_at_k(4, 0, 2) == 0.0


def test_pass_at_k_mean_without_eligible_questions_is_zero() -> None:
    assert pass_at_k_mean([[True], [True, True]], 3) == 0.0  # no question has 3 samples
    assert pass_at_k_mean([], 1) == 0.0


def test_cons_at_k_skips_empty_questions_and_checks_lengths() -> None:
    # the empty question in the middle is skipped, not the end of the count: q1 right, q3 wrong -> 1/2
    assert cons_at_k([["a"], [], ["b", "c", "c"]], [[True], [], [True, False, False]]) == pytest.approx(0.5)
    assert cons_at_k([], []) == 0.0 and cons_at_k([[]], [[]]) == 0.0
    with pytest.raises(ValueError, match="2 answer lists but 1 verdict lists"):
        cons_at_k([["a"], ["b"]], [[True]])
    with pytest.raises(ValueError, match="1 answers but 2 verdicts for one question"):
        cons_at_k([["a"]], [[True, False]])


def test_kappa_with_labels_one_rater_never_uses() -> None:
    # a: x x y z, b: x x y y -> po = 3/4; a's z never appears in b: pe = (2*2 + 1*2 + 1*0)/16 = 6/16
    d = cohen_kappa_detail(["x", "x", "y", "z"], ["x", "x", "y", "y"])
    assert d.expected_agreement == pytest.approx(6 / 16)
    assert d.kappa == pytest.approx((0.75 - 0.375) / (1 - 0.375))
    assert d.n == 4 and d.confusion == {("x", "x"): 2, ("y", "y"): 1, ("z", "y"): 1}


def test_kappa_when_both_raters_use_one_label() -> None:
    assert cohen_kappa(["yes"], ["yes"]) == 1.0  # a single item is enough
    # each rater sticks to one label, and they differ: no agreement, none expected (pe = 0)
    assert cohen_kappa(["yes", "yes"], ["no", "no"]) == 0.0  # kappa = (0 - 0) / (1 - 0)
    d = cohen_kappa_detail(["a"] * 3, ["a"] * 3)
    assert d.kappa == 1.0 and d.expected_agreement == 1.0 and d.n == 3


def test_kappa_refuses_bad_input_with_a_message() -> None:
    with pytest.raises(ValueError, match=r"differ in length \(1 vs 2\)"):
        cohen_kappa([1], [1, 0])
    with pytest.raises(ValueError, match=r"^cohen_kappa: no items$"):
        cohen_kappa([], [])


def test_accuracy_gap_table_keeps_judges_after_one_without_labels() -> None:
    human = {"m": {"a": True, "b": False, "c": True}}
    judges = {"alpha": {}, "beta": {"m": {"a": True, "b": True}}}  # alpha labelled nothing of m
    (row,) = accuracy_gap_table(human, judges)
    assert row.n == 3 and row.reference_accuracy == pytest.approx(2 / 3)
    assert row.judge_accuracy == {"beta": 1.0}
    assert row.gap == {"beta": pytest.approx(0.5)}  # over a and b only: reference 1/2


@pytest.mark.parametrize(("x1", "n1", "x2", "n2"), [
    (0, 0, 1, 2), (1, 2, 0, 0), (1, 0, 1, 2), (1, 2, 1, 0), (0, -1, 0, 2), (3, 2, 1, 2), (1, 2, 3, 2), (-1, 2, 1, 2), (1, 2, -1, 2),
])
def test_z_test_refuses_impossible_counts(x1: int, n1: int, x2: int, n2: int) -> None:
    with pytest.raises(ValueError, match=rf"got {x1}/{n1}, {x2}/{n2}"):
        two_proportion_z_test(x1, n1, x2, n2)


def test_z_test_on_the_smallest_and_fullest_samples() -> None:
    r = two_proportion_z_test(1, 1, 0, 1)  # n = 1 is a sample: 1/1 vs 0/1, pooled 0.5, se = sqrt(0.5) -> z = sqrt(2)
    assert r.z == pytest.approx(2 ** 0.5) and (r.p1, r.p2) == (1.0, 0.0)
    same = two_proportion_z_test(10, 10, 5, 5)  # both all right: no variance, no difference
    assert (same.z, same.p_value, same.p1, same.p2) == (0.0, 1.0, 1.0, 1.0)
    r = two_proportion_z_test(2, 2, 1, 2)
    assert (r.p1, r.p2) == (1.0, 0.5)


def test_score_summary_always_reports_pass_at_1() -> None:
    samples = {"q1": [("a", True), ("b", False)], "q2": [("c", False), ("c", False)]}
    s = score_summary(samples, ks=(2,))
    assert s["pass@1"] == pytest.approx(0.25) and s["pass@2"] == pytest.approx(0.5)
    assert set(s) == {"questions", "samples", "accuracy", "accuracy_ci_low", "accuracy_ci_high", "pass@1",
                      "cons@n", "pass@2"}
