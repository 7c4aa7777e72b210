"""The programmatic path on real tables: WTQ, TabFact and the Arabic TaTA tables from ../shared/data.

Every emitted question is checked again here from what it carries (params["spec"], derivation, gold):
the stored derivation re-executed, an independent plain-Python recomputation, and the dependence
check with a different RNG (so different cells are perturbed than at generation time).
"""

from __future__ import annotations

import json
import logging
import random
from collections import Counter
from typing import Any

import pytest
from livetab.claims import execute_claim
from livetab.numbers import parse_number
from livetab.questions import Question
from livetab.tables import Table
from livetab_qagen import ALL_FAMILIES, GenerationResult, generate
from livetab_qagen.derive import execute, values_equal
from livetab_qagen.frame import Frame
from livetab_qagen.verify import dependence, recompute_agrees, tolerance
from realtables import arabic_tables, tabfact_tables, wtq_tables

log = logging.getLogger(__name__)

FAMILIES = ("direct", "reasoning", "fact", "mcq", "insight", "imperfect")
PER_FAMILY = 4


@pytest.fixture(scope="module")
def runs() -> list[tuple[Table, GenerationResult]]:
    tables = wtq_tables()[::8] + tabfact_tables()[::4] + arabic_tables()[::8]
    return [(t, generate(t, per_family=PER_FAMILY, seed=7)) for t in tables]


def _asked_over(table: Table, result: GenerationResult, q: Question) -> Table:
    if q.table_id == table.id:
        return table
    return next(t for t in result.tables if t.id == q.table_id)


def _gold_matches(q: Question, value: Any) -> bool:
    g = q.gold
    if g.kind == "number":
        return values_equal(value, g.number, 1e-9)
    if g.kind == "text":
        return value == g.text
    if g.kind == "list":
        return isinstance(value, list) and len(value) == len(g.items)
    if g.kind == "boolean":
        return value is g.boolean
    if g.kind == "option":
        shown = g.option_text(q.options)
        return values_equal(parse_number(shown), value, 1e-9) if isinstance(value, float) else shown == value
    if g.kind in ("insufficient", "contradictory"):
        return value == g.kind
    if g.kind == "free":
        return isinstance(value, list) and all(v is True for v in value) and len(g.items) == len(value)
    return False


def test_every_family_in_both_languages(runs: list[tuple[Table, GenerationResult]]) -> None:
    by_lang: dict[str, Counter[str]] = {}
    for _, result in runs:
        for q in result.questions:
            by_lang.setdefault(q.language, Counter())[q.family + ("+closed_book" if q.closed_book else "")] += 1
    for lang in ("en", "ar"):
        counts = by_lang[lang]
        for family in FAMILIES:
            assert counts[family] > 0, f"no {family} questions in {lang}: {counts}"
        assert sum(v for k, v in counts.items() if k.endswith("+closed_book")) > 0
    print("\nquestions per family and language:", {k: dict(v) for k, v in by_lang.items()})


def test_recomputation_agrees_on_every_question(runs: list[tuple[Table, GenerationResult]]) -> None:
    checked = 0
    disagreements: list[str] = []
    family, skill, scope = Counter[str](), Counter[str](), Counter[str]()
    for table, result in runs:
        assert not [r for r in result.rejected if r[0] == "recompute_mismatch"], result.rejected
        for q in result.questions:
            asked = _asked_over(table, result, q)
            spec = json.loads(q.params["spec"])
            value = execute(q.derivation, Frame(asked).dataframe())
            ok, detail = recompute_agrees(spec, asked, value)
            if not ok or not _gold_matches(q, value):
                disagreements.append(f"{q.id} {q.text!r}: {detail}; gold {q.gold}")
            checked += 1
            family[q.family + ("+closed_book" if q.closed_book else "")] += 1
            skill[q.skill] += 1
            scope[q.scope] += 1
    print(f"\nrecomputed {checked} questions; per family {dict(family)}")
    print(f"per skill {dict(skill)}")
    print(f"per scope {dict(scope)}")
    assert checked > 500
    assert not disagreements, disagreements[:5]


def test_dependence_holds_on_every_question(runs: list[tuple[Table, GenerationResult]]) -> None:
    failures: list[str] = []
    n = 0
    for table, result in runs:
        for q in result.questions:
            if q.closed_book:
                continue  # same derivation and table as its base question, checked there
            asked = _asked_over(table, result, q)
            frame = Frame(asked)
            value = execute(q.derivation, frame.dataframe())
            spec = json.loads(q.params["spec"])
            dep = dependence(spec, q.derivation, frame, value, rng=random.Random(f"test:{q.id}"), max_evidence=6)
            n += 1
            if not dep.ok:
                failures.append(f"{q.id} {q.text!r}: {dep.detail}")
    print(f"\ndependence re-checked on {n} questions")
    assert not failures, failures[:5]


def test_fact_statements_are_balanced(runs: list[tuple[Table, GenerationResult]]) -> None:
    for _, result in runs:
        facts = [q for q in result.questions if q.family == "fact" and not q.closed_book]
        truths = Counter(q.gold.boolean for q in facts)
        assert truths[True] == truths[False]
        for q in facts:
            if not q.gold.boolean:
                assert q.params["perturbation"] in ("number", "entity", "comparison", "count")


def test_mcq_has_exactly_one_correct_option(runs: list[tuple[Table, GenerationResult]]) -> None:
    seen = 0
    for table, result in runs:
        for q in result.questions:
            if q.family != "mcq":
                continue
            value = execute(q.derivation, Frame(table).dataframe())
            hits = [pos for pos, opt in enumerate(q.options, start=1)
                    if (values_equal(parse_number(opt), value, 1e-9) if isinstance(value, float) else opt == value)]
            assert hits == [q.gold.option], (q.text, q.options, value)  # positions count from 1
            assert q.gold.text == q.options[q.gold.option - 1]
            assert 4 <= len(q.options) <= 5 and len(set(q.options)) == len(q.options)
            seen += 1
    assert seen > 0


def test_imperfect_tables_are_emitted_with_their_own_ids(runs: list[tuple[Table, GenerationResult]]) -> None:
    kinds = Counter[str]()
    for table, result in runs:
        ids = {t.id for t in result.tables}
        for q in result.questions:
            if q.family == "imperfect":
                assert q.table_id in ids and q.table_id != table.id
                kinds[q.gold.kind] += 1
        assert all(t.id != table.id for t in result.tables)
    assert kinds["insufficient"] > 0 and kinds["contradictory"] > 0


def test_insight_prompts_direct_and_choice(runs: list[tuple[Table, GenerationResult]]) -> None:
    for _, result in runs:
        insights = [q for q in result.questions if q.family == "insight"]
        if not insights:
            continue
        direct = [q for q in insights if q.params.get("mode") == "direct"]
        choice = [q for q in insights if q.params.get("mode") == "choice"]
        assert len(direct) <= PER_FAMILY and len(choice) == 1
        assert all(q.gold.kind == "free" and q.gold.items for q in insights)
        assert len({q.operation for q in direct}) == len(direct)


def test_insight_references_carry_claims_the_table_supports_and_contrasts_it_refutes(
        runs: list[tuple[Table, GenerationResult]]) -> None:
    """Every reference insight has its claim (run here over the table: supported) and a false twin whose
    claim the table refutes, in the question's language."""
    n = arabic = 0
    for table, result in runs:
        for q in (q for q in result.questions if q.family == "insight"):
            contrasts = json.loads(q.params["contrasts"])
            assert len(q.gold.claims) == len(q.gold.items) == len(contrasts) > 0
            for claim, contrast in zip(q.gold.claims, contrasts, strict=True):
                assert execute_claim(table, json.loads(claim)).status == "supported", (q.gold.items, claim)
                assert execute_claim(table, contrast["claim"]).status == "refuted", contrast
                n += 1
            assert not set(q.gold.items) & {c["insight"] for c in contrasts}
            if q.language == "ar":  # the twins are written in the question's language, like the references
                assert all(any("\u0600" <= ch <= "\u06ff" for ch in c["insight"]) for c in contrasts)
                arabic += 1
    assert n >= 20 and arabic > 0


def test_closed_book_variants_name_the_table(runs: list[tuple[Table, GenerationResult]]) -> None:
    for table, result in runs:
        base = {q.id: q for q in result.questions if not q.closed_book}
        for q in result.questions:
            if q.closed_book:
                original = base[q.params["closed_book_of"]]
                assert table.caption in q.text and original.text in q.text
                assert q.gold == original.gold and q.derivation == original.derivation


def test_arabic_wording_and_digits(runs: list[tuple[Table, GenerationResult]]) -> None:
    arabic = [q for _, r in runs for q in r.questions if q.language == "ar"]
    assert arabic
    assert all(any("\u0600" <= ch <= "\u06ff" for ch in q.text) for q in arabic)
    facts = [q for q in arabic if q.family == "fact"]
    assert facts and {q.gold.text for q in facts} == {"صح", "خطأ"}
    counted = [q for q in arabic if q.gold.kind == "number" and q.skill == "count"]
    assert counted and all(not any(ch.isascii() and ch.isdigit() for ch in q.gold.text) for q in counted)


def test_same_seed_same_ids_and_questions() -> None:
    table = wtq_tables(3)[2]
    a, b = generate(table, seed=3), generate(table, seed=3)
    assert [q.id for q in a.questions] == [q.id for q in b.questions]
    assert [q.text for q in a.questions] == [q.text for q in b.questions]
    c = generate(table, seed=4)
    assert {q.id for q in c.questions} != {q.id for q in a.questions}


def test_language_override_and_family_selection() -> None:
    table = wtq_tables(1)[0]
    result = generate(table, families=["direct", "fact"], language="ar", per_family=2)
    assert {q.family for q in result.questions} == {"direct", "fact"}
    assert all(q.language == "ar" for q in result.questions)


def test_bad_input_is_recorded_not_raised() -> None:
    table = wtq_tables(1)[0]
    result = generate(table, language="xx")
    assert not result.questions and result.rejected[0][0] == "locale"
    tiny = Table(id="tab_tiny", source=table.source, header=[["a"]], rows=[["1"]])
    assert generate(tiny).rejected[0][0] == "table_too_small"
    assert generate(table, families=["nope"], per_family=1).rejected[0][0] == "unknown_family"


def test_all_families_known() -> None:
    assert set(ALL_FAMILIES) == {*FAMILIES, "closed_book"}


def test_tolerance_only_for_rounded_answers() -> None:
    assert tolerance({"op": "cell"}) < 1e-6
    assert 0.005 < tolerance({"op": "agg", "round": 2}) < 0.0052
