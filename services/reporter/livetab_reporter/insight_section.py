"""The insight section of the leaderboard files: FreshTab's table-to-text task, reported apart from QA accuracy.

Per model: how many insight answers there were, how many the insight judge judged (the rest are *not
judged* — no LLM insight judge configured and no claim of theirs executable over the table — or model errors),
the share of insights judged factual with its Wilson interval, how those were decided (an executed claim or
the LLM judge), FreshTab's error categories, and the diversity of the model's insight responses (self-BLEU-4:
lower is more diverse; unique tokens per response; unigram entropy; empty rate; mean length).
"""

from __future__ import annotations

import html
from typing import Any

from livetab.verdicts import ERROR_CATEGORIES

from livetab_reporter.leaderboard import InsightStats

__all__ = ["DIVERSITY_COLUMNS", "insight_entry", "insight_html", "insight_markdown"]

# (key in DiversityReport, column title)
DIVERSITY_COLUMNS = (("n_outputs", "responses"), ("self_bleu4", "self-BLEU-4 (lower: more diverse)"),
                     ("unique_tokens_per_insight", "unique tokens / response"), ("entropy_bits", "entropy (bits)"),
                     ("empty_rate", "empty rate"), ("avg_length_tokens", "mean length (tokens)"))


def insight_entry(st: InsightStats) -> dict[str, Any]:
    """The `insight` object of a model in leaderboard.json."""
    d = st.as_dict()
    d.pop("model")
    for k in ("factual_rate", "ci_low", "ci_high"):
        d[k] = round(d[k], 4)
    d["diversity"] = {k: (int(v) if k == "n_outputs" else round(v, 4)) for k, v in st.diversity.items()}
    return d


def _share(ins: dict[str, Any]) -> tuple[str, str]:
    if not ins["factual"] + ins["not_factual"]:
        return ("not judged" if ins["not_judged"] else "—"), ""
    return f"{ins['factual_rate']:.3f}", f"[{ins['ci_low']:.3f}, {ins['ci_high']:.3f}]"


def _decided(ins: dict[str, Any]) -> str:
    """How the decided insights were decided: "claim 12, llm 3" ("—" when none was)."""
    by = ins.get("decided_by") or {}
    return ", ".join(f"{k} {v}" for k, v in sorted(by.items())) or "—"


def _with_insights(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return [m for m in doc["models"] if m.get("insight")]


def insight_markdown(doc: dict[str, Any]) -> list[str]:
    """Lines of the insight section (none when no model has insight answers)."""
    models = _with_insights(doc)
    if not models:
        return []
    cats = " | ".join(ERROR_CATEGORIES)
    lines = ["", "## Insights (table-to-text, FreshTab) — not part of QA accuracy", "",
             "Each insight judged for factuality over its table; a claim the model wrote beside a sentence is "
             "executed over the table and decides it (without an LLM insight judge only such claims decide). "
             "*Not judged*: an answer none of whose insights could be decided (never counted as wrong); "
             "*undecided*: insights of judged answers that neither a claim nor the LLM judge decided.", "",
             f"| model | answers | judged | not judged | errors | insights | factual | factual share | 95% CI | "
             f"all factual (answers) | decided by | {cats} | undecided |",
             "|---|" + "---:|" * 7 + "---|---:|---|" + "---:|" * (len(ERROR_CATEGORIES) + 1)]
    for m in models:
        ins = m["insight"]
        share, ci = _share(ins)
        cat_cells = " | ".join(str(ins["categories"].get(c, 0)) for c in ERROR_CATEGORIES)
        lines.append(f"| {m['model']} | {ins['answers']} | {ins['judged']} | {ins['not_judged']} | {ins['errors']} | "
                     f"{ins['insights']} | {ins['factual']} | {share} | {ci} | {ins['all_factual']} | {_decided(ins)} | "
                     f"{cat_cells} | {ins['undecided']} |")
    lines += ["", "### Diversity of insight responses", "",
              "| model | " + " | ".join(title for _, title in DIVERSITY_COLUMNS) + " |",
              "|---|" + "---:|" * len(DIVERSITY_COLUMNS)]
    for m in models:
        div = m["insight"]["diversity"]
        lines.append(f"| {m['model']} | " + " | ".join(str(div.get(k, "")) for k, _ in DIVERSITY_COLUMNS) + " |")
    return lines


def insight_html(doc: dict[str, Any]) -> str:
    """The insight section of report.html ("" when no model has insight answers)."""
    models = _with_insights(doc)
    if not models:
        return ""
    e = html.escape
    head = "".join(f"<th>{e(c)}</th>" for c in ERROR_CATEGORIES)
    rows = []
    for m in models:
        ins = m["insight"]
        share, ci = _share(ins)
        cells = "".join(f"<td>{ins['categories'].get(c, 0)}</td>" for c in ERROR_CATEGORIES)
        rows.append(f"<tr><td>{e(m['model'])}</td><td>{ins['answers']}</td><td>{ins['judged']}</td>"
                    f"<td>{ins['not_judged']}</td><td>{ins['errors']}</td><td>{ins['insights']}</td>"
                    f"<td>{ins['factual']}</td><td class='insight-share'>{e(share)}</td><td>{e(ci)}</td>"
                    f"<td>{ins['all_factual']}</td><td>{e(_decided(ins))}</td>{cells}<td>{ins['undecided']}</td></tr>")
    div_head = "".join(f"<th>{e(title)}</th>" for _, title in DIVERSITY_COLUMNS)
    div_rows = "".join(
        f"<tr><td>{e(m['model'])}</td>"
        + "".join(f"<td>{m['insight']['diversity'].get(k, '')}</td>" for k, _ in DIVERSITY_COLUMNS) + "</tr>"
        for m in models)
    return f"""<section id="insights"><style>.not_judged{{color:#666}}</style>
<h2>Insights (table-to-text, FreshTab) — not part of QA accuracy</h2>
<p>Each insight judged for factuality over its table; a claim the model wrote beside a sentence is executed over
the table and decides it (without an LLM insight judge only such claims decide). <em>Not judged</em>: an answer
none of whose insights could be decided (never counted as wrong); <em>undecided</em>: insights of judged answers
that neither a claim nor the LLM judge decided.</p>
<table><tr><th>model</th><th>answers</th><th>judged</th><th>not judged</th><th>errors</th><th>insights</th>
<th>factual</th><th>factual share</th><th>95% CI</th><th>all factual (answers)</th><th>decided by</th>{head}
<th>undecided</th></tr>
{"".join(rows)}</table>
<h3>Diversity of insight responses</h3>
<table><tr><th>model</th>{div_head}</tr>{div_rows}</table></section>
"""
