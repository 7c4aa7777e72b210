"""The rule judge's published calibration figures, recomputed independently here from the same real data
(the hand-checked WTQ answers and all 600 WTQ model answers), and their rendering."""

from __future__ import annotations

import json
from pathlib import Path

from livetab.calibration import (
    COMPUTED,
    NOT_COMPUTED,
    Figure,
    calibration_doc,
    calibration_markdown,
    headline,
    load_calibration,
    write_calibration,
)
from livetab.paths import shared_data
from livetab.rubric.judge import judge_text
from livetab.rubric.wtq import wtq_match
from livetab.rubric.wtq_calibration import HAND_CHECKED, rule_vs_human, rule_vs_wtq
from livetab.rubric.wtq_eval import load_wtq_table

WTQ = shared_data() / "wtq" / "questions.jsonl"


def _table(q: dict[str, object]):  # type: ignore[no-untyped-def]
    """The question's WTQ table, as the rule judge reads it (its asked column decides some answers)."""
    return load_wtq_table(str(WTQ.parent / str(q["table_csv"]))) if q.get("table_csv") else None


def kappa_from_counts(confusion: dict[str, int]) -> tuple[float, float, int]:
    """Cohen's kappa, observed agreement and n over the decided cells of "judge/reference" counts."""
    cells = {tuple(k.split("/")): v for k, v in confusion.items() if not k.startswith("uncertain/")}
    n = sum(cells.values())
    labels = {a for a, _ in cells} | {b for _, b in cells}
    po = sum(v for (a, b), v in cells.items() if a == b) / n
    pe = sum(sum(v for (a, _), v in cells.items() if a == c) * sum(v for (_, b), v in cells.items() if b == c)
             for c in labels) / (n * n)
    return (po - pe) / (1 - pe), po, n


def test_rule_vs_human_recomputed_from_the_hand_checked_table() -> None:
    fig = rule_vs_human()
    rows = [json.loads(x) for x in HAND_CHECKED.read_text(encoding="utf-8").splitlines() if x.strip()]
    answers = {}
    for line in WTQ.read_text(encoding="utf-8").splitlines():
        q = json.loads(line)
        for model, response in q["llm_outputs"].items():
            answers[(q["id"], model)] = (q, str(response))
    mine: dict[str, int] = {}
    for r in rows:
        q, response = answers[(r["id"], r["model"])]
        verdict = judge_text(response, list(q["answers"]), question=q["question"], table=_table(q)).verdict
        mine[f"{verdict}/{r['human']}"] = mine.get(f"{verdict}/{r['human']}", 0) + 1
    assert fig.status == COMPUTED and fig.n == len(rows) and fig.confusion == mine
    kappa, po, decided = kappa_from_counts(mine)
    assert fig.values["decided"] == decided
    assert abs(fig.values["kappa"] - kappa) < 1e-12 and abs(fig.values["agreement"] - po) < 1e-12
    assert abs(fig.values["undecided_share"] - (len(rows) - decided) / len(rows)) < 1e-12
    assert fig.values["disagreements"] == mine.get("correct/incorrect", 0) + mine.get("incorrect/correct", 0)
    assert "not a random sample" in fig.note and fig.licence == "CC BY-SA 4.0"


def test_rule_vs_wtq_exact_match_over_all_answers() -> None:
    fig = rule_vs_wtq()
    counts: dict[str, int] = {}
    for line in WTQ.read_text(encoding="utf-8").splitlines():
        q = json.loads(line)
        for response in q["llm_outputs"].values():
            rule = judge_text(str(response), list(q["answers"]), question=q["question"], table=_table(q)).verdict
            wtq = "correct" if wtq_match(str(response), list(q["answers"]),
                                         str(q.get("target_canon", "")).split("|")) else "incorrect"
            counts[f"{rule}/{wtq}"] = counts.get(f"{rule}/{wtq}", 0) + 1
    assert fig.n == 600 == sum(counts.values()) and fig.confusion == counts
    kappa, po, _ = kappa_from_counts(counts)
    assert abs(fig.values["kappa"] - kappa) < 1e-12 and abs(fig.values["agreement"] - po) < 1e-12
    assert {m: int(v["n"]) for m, v in fig.by.items()} == {"gpt4_zero_shot": 300, "llama2_70b_without_cot": 300}


def test_written_and_rendered(tmp_path: Path) -> None:
    done = Figure(key="a", compares="x vs y", method="Cohen's kappa", data="d", licence="MIT", judge="j", n=10,
                  values={"kappa": 0.5, "agreement": 0.75}, confusion={"true/true": 5})
    empty = Figure(key="b", compares="z vs w", method="accuracy", data="d", licence="MIT", judge="k",
                   values={"kappa": float("nan")}, status=NOT_COMPUTED, note="needs a model")
    write_calibration(calibration_doc([done, empty], command="livetab calibrate"), tmp_path)
    doc = load_calibration(tmp_path)
    assert doc is not None and doc["figures"][1]["values"]["kappa"] is None  # JSON has no NaN
    assert headline(doc["figures"][0]) == "Cohen's kappa 0.500, agreement 0.750"
    assert headline(doc["figures"][1]) == "not computed: needs a model"
    md = "\n".join(calibration_markdown(doc))
    assert "| x vs y | Cohen's kappa | 10 | Cohen's kappa 0.500, agreement 0.750 | d (MIT) | j |" in md
    assert "| z vs w | accuracy | — | not computed: needs a model |" in md
    assert (tmp_path / "calibration.md").read_text(encoding="utf-8").startswith("# Judge calibration")
    assert "Not computed" in "\n".join(calibration_markdown(None))
    (tmp_path / "calibration.json").write_text("{not json", encoding="utf-8")
    assert load_calibration(tmp_path) is None
