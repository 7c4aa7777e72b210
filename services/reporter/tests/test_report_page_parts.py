"""The page's parts on their own: slices rendered and drawn generically (a slice the code has never heard of
gets its table and its figure), figures skipped with a reason, the live/retired decision, and the guard that
keeps unredacted answers off a live release's public page."""

from __future__ import annotations

from typing import Any

import pytest
from livetab.publication import is_public
from livetab.settings import Settings, load_settings
from livetab_reporter.page import page_html
from livetab_reporter.plots import complexity_bins, make_plots


def _f(n: int, correct: int) -> dict[str, Any]:
    from livetab.metrics import wilson_interval

    lo, hi = wilson_interval(correct, n)
    return {"n": n, "correct": correct, "accuracy": correct / n, "ci_low": lo, "ci_high": hi}


def _doc(slices: dict[str, dict[str, dict[str, Any]]]) -> dict[str, Any]:
    return {"release": "r1", "judge": "rule", "models": [
        {"model": "m1", **_f(10, 7), "samples_per_question": 1, "pass_at_1": 0.7, "cons_at_1": 0.7, "errors": 0,
         "families": {"direct": _f(6, 5), "fact": _f(4, 2)}, "slices": slices, "insight": None}]}


def test_a_new_slice_gets_its_table_and_its_figure() -> None:
    doc = _doc({"freshness": {"fresh": _f(5, 2), "old": _f(5, 5)}, "table_width": {"narrow": _f(4, 3), "wide": _f(6, 4)},
                "language": {"en": _f(10, 7)}})
    plots = {p.name: p for p in make_plots(doc, [])}
    assert plots["by_freshness"].drawn and plots["by_table_width"].drawn and plots["by_family"].drawn
    assert plots["by_freshness"].svg.startswith("<svg") and plots["by_freshness"].svg.rstrip().endswith("</svg>")
    assert "fresh" in plots["by_freshness"].svg and "n=5" in plots["by_freshness"].svg  # labels are text
    assert not plots["by_domain"].drawn and "no `domain` slice" in plots["by_domain"].note
    assert not plots["by_language"].drawn and "only one language" in plots["by_language"].note
    assert not plots["complexity"].drawn  # no answers with token counts
    page = page_html(doc, [], list(plots.values()), [], "", public_release=False, private=False)
    assert "data-slice='table_width'" in page and "data-slice='freshness'" in page
    assert "Accuracy by domain — the leaderboard has no `domain` slice" in page
    assert page.count("<figure ") == page.count("<svg ") == sum(p.drawn for p in plots.values())  # inline


def test_fresh_vs_older_is_drawn_from_a_contamination_view() -> None:
    doc = _doc({})
    doc["models"][0]["contamination"] = {"split_date": "2026-10-01", "fresh": _f(4, 1), "older": _f(6, 6), "p_value": 0.02}
    [fresh] = [p for p in make_plots(doc, []) if p.name == "by_freshness"]
    assert fresh.drawn and "(after 2026-10-01)" in fresh.svg and "(up to 2026-10-01)" in fresh.svg  # two-line labels
    page = page_html(doc, [], [fresh], [], "", public_release=False, private=False)
    assert "contamination" in page and "p_value" in page  # an unknown per-model view is shown as a table


def test_complexity_bins_hold_equal_shares_with_intervals() -> None:
    answers = [{"model": "m", "family": "direct", "prompt_tokens": 10 * i, "verdict": "correct" if i % 2 else "incorrect"}
               for i in range(1, 31)]
    [(model, bins)] = complexity_bins(answers, bins=5).items()
    assert model == "m" and [b["n"] for b in bins] == [6] * 5 and bins[0]["lo"] == 10 and bins[-1]["hi"] == 300
    assert all(b["ci_low"] <= b["accuracy"] <= b["ci_high"] for b in bins)
    assert sum(b["correct"] for b in bins) == 15


def test_every_release_is_live_unless_retired(tmp_path: Any) -> None:
    assert not is_public("r1") and not is_public("r1", Settings())
    cfg = tmp_path / "c.yaml"
    cfg.write_text("releases:\n  retired: [r0]\n")
    assert is_public("r0", load_settings(cfg, env={})) and not is_public("r1", load_settings(cfg, env={}))
    assert is_public("r1", load_settings(cfg, env={"LIVETAB_RELEASES__RETIRED": '["r1"]'}))


def test_a_live_public_page_refuses_unredacted_answers() -> None:
    answer = {"model": "m1", "question_id": "q1", "question": "Who won?", "gold": "Fiji", "verdict": "correct"}
    with pytest.raises(ValueError, match="unredacted"):
        page_html(_doc({}), [answer], [], [], "", public_release=False, private=False)
    assert "Fiji" in page_html(_doc({}), [answer], [], [], "", public_release=False, private=True)
    assert "Fiji" in page_html(_doc({}), [answer], [], [], "", public_release=True, private=False)


def test_a_page_given_only_the_answers_it_shows_counts_them_all() -> None:
    """The public page of a live release is given only the answers it shows, redacted (not a redacted copy of every
    one), with how many there are in all."""
    from livetab_reporter.page import SAMPLE_LIMIT

    answers = [{"model": "m1", "question_id": f"q{i}", "verdict": "correct"} for i in range(SAMPLE_LIMIT)]
    page = page_html(_doc({}), answers, [], [], "", public_release=False, private=False, answers_total=100_000)
    assert "Answers (100000)" in page and f"{SAMPLE_LIMIT} of 100000 answers shown" in page
    whole = page_html(_doc({}), answers, [], [], "", public_release=False, private=False)
    assert f"Answers ({SAMPLE_LIMIT})" in whole and "answers shown" not in whole


def test_each_model_has_one_colour_in_every_figure() -> None:
    """Colours follow the leaderboard's order, not each figure's own: here the second-ranked model ("alpha", sorted
    first by name) is the only one with a `format` slice and with token counts, and it keeps its colour."""
    from livetab_reporter.plots import COLOURS, model_colours

    doc = _doc({})
    zeta, alpha = doc["models"][0], {**doc["models"][0], "model": "alpha", **_f(10, 3)}
    zeta["model"] = "zeta"
    alpha["slices"] = {"format": {"markdown": _f(5, 2), "html": _f(5, 1)}}
    doc["models"] = [zeta, alpha]
    answers = [{"model": "alpha", "family": "direct", "prompt_tokens": 10 * i, "verdict": "correct" if i % 3 else "wrong"}
               for i in range(1, 31)]
    assert model_colours(doc) == {"zeta": COLOURS[0], "alpha": COLOURS[1]}
    plots = {p.name: p for p in make_plots(doc, answers)}
    for name in ("by_format", "complexity"):  # alpha alone: its colour, never the first one
        assert plots[name].drawn and COLOURS[1] in plots[name].svg and COLOURS[0] not in plots[name].svg, name
    for name in ("ranking", "by_family"):  # both models, each in its own colour
        assert COLOURS[0] in plots[name].svg and COLOURS[1] in plots[name].svg, name


def test_size_bins_and_difficulties_read_in_their_own_order() -> None:
    """Before: "101-400" came before "26-100" and "hard" before "medium" (sorted as text), in the figure and the
    breakdown table alike."""
    doc = _doc({"table_cells": {"101-400": _f(4, 1), "26-100": _f(4, 2), "<26": _f(4, 3), ">=401": _f(4, 0)},
                "difficulty": {"hard": _f(4, 1), "easy": _f(4, 3), "medium": _f(4, 2)}})
    plots = {p.name: p for p in make_plots(doc, [])}
    svg = plots["by_table_cells"].svg
    positions = [svg.index(f"n={4}", svg.index(label.replace("<", "&lt;").replace(">", "&gt;")))
                 for label in ("<26", "26-100", "101-400", ">=401")]
    assert positions == sorted(positions)
    page = page_html(doc, [], list(plots.values()), [], "", public_release=False, private=False)
    cells = page[page.index("data-slice='table_cells'"):]
    assert [cells.index(f"<td>{v}</td>") for v in ("&lt;26", "26-100", "101-400", "&gt;=401")] == sorted(
        cells.index(f"<td>{v}</td>") for v in ("&lt;26", "26-100", "101-400", "&gt;=401"))
    levels = page[page.index("data-slice='difficulty'"):]
    assert levels.index("<td>easy</td>") < levels.index("<td>medium</td>") < levels.index("<td>hard</td>")
