"""The reporter's files carry the judge calibration written beside them, and say "not computed" without it."""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from livetab.calibration import NOT_COMPUTED, Figure, calibration_doc, write_calibration
from livetab_reporter.files import write_reports


def test_without_calibration_the_files_say_not_computed(store: Any, tmp_path: Path) -> None:
    out = tmp_path / "out"
    doc = write_reports(store, [], out, "r", judge="rule")
    assert doc["calibration"]["status"] == NOT_COMPUTED
    assert json.loads((out / "leaderboard.json").read_text())["calibration"]["status"] == NOT_COMPUTED
    assert "Not computed" in (out / "leaderboard.md").read_text()
    assert "<h2>Judge calibration</h2><p>Not computed" in (out / "report.html").read_text()


def test_figures_with_method_and_n_in_every_file(store: Any, tmp_path: Path) -> None:
    out = tmp_path / "out"
    fig = Figure(key="k", compares="judge <A> vs people", method="Cohen's kappa", data="D", licence="CC BY 4.0",
                 judge="j", n=42, values={"kappa": 0.25, "agreement": 0.625}, confusion={"true/true": 42})
    write_calibration(calibration_doc([fig], command="livetab calibrate"), out)
    write_reports(store, [], out, "r", judge="rule")
    board = json.loads((out / "leaderboard.json").read_text())["calibration"]["figures"][0]
    assert (board["n"], board["method"], board["values"]["kappa"]) == (42, "Cohen's kappa", 0.25)
    md = (out / "leaderboard.md").read_text()
    assert "| judge <A> vs people | Cohen's kappa | 42 | Cohen's kappa 0.250, agreement 0.625 | D (CC BY 4.0) |" in md
    page = (out / "report.html").read_text()
    assert "judge &lt;A&gt; vs people" in page  # escaped
    assert "<td>42</td><td>Cohen&#x27;s kappa 0.250, agreement 0.625</td>" in page
    assert page.rstrip().endswith("</body></html>") and "Judge calibration" in html.unescape(page)
