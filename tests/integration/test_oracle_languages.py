"""Oracle and anti-oracle runs over real FreshTab tables in every FreshTab language (de, es, fr, nl, ru, sv)
through the real embedded pipeline (scrape -> qagen -> planner -> inference -> judge -> reporter), each
language answered in its own phrasings (the language packs' `answer_forms`). English and Arabic are covered
by test_oracle_runs.py. The oracle must score 100% and the anti-oracle 0% in every language slice, every
family present in every language, and every verdict of every cell as expected; insight answers (the
references and their false twins, written in the question's language, with claims) judged by their claims:
every insight of the oracle factual, every one of the anti-oracle not."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from livetab.models.scripted import PHRASINGS, scripted_answer
from livetab.records import load_question, load_table
from livetab.rubric import judge_answer
from livetab.rubric.locale import answer_forms
from livetab.store import open_store, schema
from livetab.v1 import inference_pb2

from tests.support.oracle import (
    FAMILIES,
    FRESHTAB_LANGUAGES,
    INSIGHT,
    check_leaderboard,
    freshtab_sources,
    judge_insight,
    oracle_cycle,
    verdict_cells,
)

pytestmark = pytest.mark.slow

TABLES_PER_LANGUAGE = 3
LANG_FAMILIES = FAMILIES - {"math"}  # the math flow is English only
FORMATS = ["csv", "markdown", "html", "json"]
SETTINGS = ["with_table", "closed_book"]


@pytest.fixture(scope="module")
def language_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("oracle_langs")
    return oracle_cycle(tmp, "oracle-langs", freshtab_sources(TABLES_PER_LANGUAGE, FRESHTAB_LANGUAGES),
                        formats=FORMATS, settings=SETTINGS)


def test_oracle_100_and_anti_oracle_0_in_every_freshtab_language(language_run: dict[str, Any]) -> None:
    doc = language_run["doc"]
    by_model = check_leaderboard(doc, formats=FORMATS, settings=SETTINGS, families=LANG_FAMILIES,
                                 languages=set(FRESHTAB_LANGUAGES))
    store = open_store(language_run["settings"].store.url)
    try:
        runs = {m["model"]: m["run_id"] for m in by_model.values()}
        for name, want in (("oracle", "correct"), ("anti-oracle", "incorrect")):
            cells = verdict_cells(store, runs[name])
            wrong = {c: v for c, v in cells.items() if set(v) != {want}}
            assert not wrong, (name, wrong)
            for lang in FRESHTAB_LANGUAGES:  # every family in every language
                assert {c[0] for c in cells if c[3] == lang} == LANG_FAMILIES | {INSIGHT}, (name, lang)
            per_lang = Counter(c[3] for c, v in cells.items() for _ in v)
            print(f"\n{name}: {dict(per_lang)} judgments per language, all {want}")
        # each language answered in its own words: some response of the oracle in every language uses a
        # phrasing of that language's pack ("Die Antwort lautet", "Вариант 3", "Sant", ...), not the English one
        questions = {r["id"]: load_question(r) for r in store.select(schema.questions)}
        localised: Counter[str] = Counter()
        for r in store.select(schema.results, run_id=runs["oracle"]):
            res = inference_pb2.InferenceResult.FromString(r["payload"])
            q = questions[res.question_id]
            assert q is not None
            forms = answer_forms(q.language)
            own = [forms.sentence.split("{")[0], forms.answer_is.split("{")[0], forms.option_number.split("{")[0],
                   *forms.true, *forms.false, *forms.insufficient, *forms.contradictory]
            english = answer_forms("en")
            if any(res.response.startswith(p.strip()) for p in own if p.strip() and p not in (
                    english.option_number.split("{")[0], *english.true, *english.false)):
                localised[q.language] += 1
        assert set(localised) == set(FRESHTAB_LANGUAGES), localised
        for name, m in by_model.items():
            print(name, m["accuracy"], {v: r["accuracy"] for v, r in m["slices"]["language"].items() if "n" in r})
        print(f"{language_run['seconds']:.1f} s for the whole embedded cycle")
    finally:
        store.close()


def test_every_phrasing_in_every_language(language_run: dict[str, Any]) -> None:
    """Beyond the phrasing each question got in the run: every phrasing, right and wrong, in its language."""
    store = open_store(language_run["settings"].store.url)
    try:
        tables = {r["id"]: load_table(r) for r in store.select(schema.tables)}
        questions = [q for q in (load_question(r) for r in store.select(schema.questions)) if q is not None]
    finally:
        store.close()
    assert {q.language for q in questions} == set(FRESHTAB_LANGUAGES)
    failures = []
    for q in questions:
        for phrasing in PHRASINGS:
            for policy, want in (("oracle", "correct"), ("anti_oracle", "incorrect")):
                answer = scripted_answer(q, tables.get(q.table_id), policy=policy, phrasing=phrasing)
                if q.family == INSIGHT:  # every insight decided by its claim, all factual or none
                    verdict, labels = judge_insight(answer, q, tables[q.table_id])
                    if verdict != want or set(labels) != {"factual" if want == "correct" else "not_factual"}:
                        failures.append((q.language, policy, phrasing, q.text, answer, verdict, labels))
                    continue
                got = judge_answer(answer, q)
                if got.verdict != want:
                    failures.append((q.language, policy, phrasing, q.text, q.gold.text, answer, got.rationale))
    assert not failures, failures[:10]
