"""The report's SVG charts: well-formed documents whose bars and error bars sit where the numbers say, labels
as text, the same bytes for the same figures."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
from livetab_reporter.plots import COLOURS, make_plots
from livetab_reporter.svg import Bar, Frame, Series, grouped_bars, hbars, lines, nice_ticks

NS = "{http://www.w3.org/2000/svg}"


def _tree(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == f"{NS}svg" and root.get("role") == "img" and root.get("aria-label")
    return root


def _texts(root: ET.Element) -> list[str]:
    return ["".join(t.itertext()) for t in root.iter(f"{NS}text")]


def _bars(root: ET.Element, colour: str) -> list[ET.Element]:
    return [r for r in root.iter(f"{NS}rect") if r.get("fill") == colour]


def test_horizontal_bars_end_at_their_value_with_the_interval_around_it() -> None:
    svg = hbars(["b (n=10)", "a (n=10)"], [Bar(0.6, 0.3, 0.85, 10), Bar(0.2, 0.05, 0.5, 10)], COLOURS[:2],
                title="Accuracy per model", xlabel="accuracy (95% Wilson interval)")
    root = _tree(svg)
    texts = _texts(root)
    assert {"Accuracy per model", "accuracy (95% Wilson interval)", "b (n=10)", "a (n=10)", "0.0", "1.0"} <= set(texts)
    assert texts.index("b (n=10)") < texts.index("a (n=10)")  # in the given order, top to bottom
    [first], [second] = _bars(root, COLOURS[0]), _bars(root, COLOURS[1])
    assert float(first.get("y", 0)) < float(second.get("y", 0))
    zero = float(first.get("x", 0))
    ticks = {t: float(e.get("x", 0)) for e, t in ((e, "".join(e.itertext())) for e in root.iter(f"{NS}text"))
             if t in ("0.0", "1.0")}
    unit = ticks["1.0"] - ticks["0.0"]
    assert ticks["0.0"] == pytest.approx(zero)
    assert float(first.get("width", 0)) == pytest.approx(0.6 * unit, abs=0.02)
    assert float(second.get("width", 0)) == pytest.approx(0.2 * unit, abs=0.02)
    # the first bar's error bar: a horizontal line from 0.3 to 0.85 at the bar's middle
    mid = float(first.get("y", 0)) + float(first.get("height", 0)) / 2
    spans = [(float(ln.get("x1", 0)), float(ln.get("x2", 0))) for ln in root.iter(f"{NS}line")
             if ln.get("y1") == ln.get("y2") and float(ln.get("y1", 0)) == pytest.approx(mid, abs=0.01)]
    assert any(a == pytest.approx(zero + 0.3 * unit, abs=0.02) and b == pytest.approx(zero + 0.85 * unit, abs=0.02)
               for a, b in spans), spans


def test_grouped_bars_one_per_series_and_category_heights_by_value() -> None:
    series = [Series("m1", COLOURS[0], [Bar(1.0, 0.7, 1.0, 9), Bar(0.25, 0.1, 0.5, 8)]),
              Series("m2", COLOURS[1], [Bar(0.5, 0.2, 0.8, 6), Bar(0.0, 0.0, 0.0, 0)])]
    svg = grouped_bars([["fresh", "(after 2026-10-01)", "n=15"], ["older", "n=8"]], series, title="Accuracy by freshness",
                       xlabel="freshness", ylabel="accuracy (95% Wilson interval)")
    root = _tree(svg)
    texts = _texts(root)
    assert "fresh(after 2026-10-01)n=15" in texts and "oldern=8" in texts  # one label of three lines, of two
    assert {"m1", "m2", "model", "freshness", "accuracy (95% Wilson interval)"} <= set(texts)
    m1, m2 = _bars(root, COLOURS[0]), _bars(root, COLOURS[1])
    assert len(m1) == 3 and len(m2) == 3  # two bars and the legend's swatch each
    full, quarter = float(m1[0].get("height", 0)), float(m1[1].get("height", 0))
    assert quarter == pytest.approx(full / 4, abs=0.02) and float(m2[0].get("height", 0)) == pytest.approx(full / 2, abs=0.02)
    assert float(m2[1].get("height", 0)) == 0.0
    assert float(m1[0].get("x", 0)) < float(m2[0].get("x", 0)) < float(m1[1].get("x", 0))  # grouped by category


def test_rotated_labels_when_there_are_many_categories() -> None:
    cats = [[f"value {i} (n=3)"] for i in range(8)]
    svg = grouped_bars(cats, [Series("m", COLOURS[2], [Bar(0.5, 0.2, 0.8, 3)] * 8)], title="t", xlabel="x", ylabel="y",
                       rotate=True)
    rotated = [t for t in _tree(svg).iter(f"{NS}text") if "rotate(-30" in (t.get("transform") or "")]
    assert len(rotated) == 8 and all(t.get("text-anchor") == "end" for t in rotated)


def test_lines_join_the_points_in_order_with_their_error_bars() -> None:
    svg = lines([Series("m", COLOURS[3], [Bar(0.2, 0.1, 0.4, 5), Bar(0.8, 0.6, 0.9, 5)], xs=[100.0, 900.0])],
                title="Accuracy vs table complexity", xlabel="prompt tokens", ylabel="accuracy")
    root = _tree(svg)
    [poly] = list(root.iter(f"{NS}polyline"))
    (x1, y1), (x2, y2) = [tuple(map(float, p.split(","))) for p in (poly.get("points") or "").split()]
    assert x1 < x2 and y1 > y2  # left to right, the second point higher
    assert {"200", "400", "600", "800"} <= set(_texts(root))  # round ticks over the data
    assert len([c for c in root.iter(f"{NS}circle") if c.get("fill") == COLOURS[3]]) == 3  # two points + legend


def test_frame_maps_data_to_pixels() -> None:
    f = Frame(10, 20, 110, 220, (0.0, 1.0), (0.0, 2.0))
    assert (f.x(0.0), f.x(0.5), f.x(1.0)) == (10, 60, 110)
    assert (f.y(0.0), f.y(1.0), f.y(2.0)) == (220, 120, 20)


@pytest.mark.parametrize(("lo", "hi", "want"), [(0.0, 1.0, [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]),
                                                (113.0, 126.0, [110.0, 115.0, 120.0, 125.0, 130.0]),
                                                (5.0, 5.0, [5.0, 5.2, 5.4, 5.6, 5.8, 6.0])])
def test_nice_ticks_cover_the_range_in_round_steps(lo: float, hi: float, want: list[float]) -> None:
    ticks = nice_ticks(lo, hi)
    assert ticks == pytest.approx(want)


def test_labels_are_escaped_and_the_figures_are_the_same_bytes_each_time() -> None:
    from livetab.metrics import wilson_interval

    lo, hi = wilson_interval(3, 4)
    f = {"n": 4, "correct": 3, "accuracy": 0.75, "ci_low": lo, "ci_high": hi}
    doc = {"release": "r", "judge": "rule", "models": [
        {"model": "<script>m&1", **f, "samples_per_question": 1, "pass_at_1": 0.75, "cons_at_1": 0.75, "errors": 0,
         "families": {"direct": f, "fact": f}, "slices": {"table_cells": {"<26": f, ">=401": f}}, "insight": None}]}
    first = {p.name: p.svg for p in make_plots(doc, []) if p.drawn}
    assert first == {p.name: p.svg for p in make_plots(doc, []) if p.drawn}
    for svg in first.values():
        root = _tree(svg)  # parses: every label escaped
        assert "<script>" not in svg and "&lt;script&gt;m&amp;1" in svg
        assert any("<script>m&1" in t for t in _texts(root))
