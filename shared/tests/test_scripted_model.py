"""The scripted oracle / anti-oracle model: registered like any backend, phrased like real models, right or
wrong by construction (the pipeline runs in tests/integration/test_oracle_runs.py)."""

from __future__ import annotations

import asyncio

import pytest
from livetab.models.base import ChatMessage, GenerateRequest, ModelError, SamplingParams
from livetab.models.registry import backend_from_spec
from livetab.models.scripted import PHRASINGS, ScriptedBackend, choose_phrasing, scripted_answer
from livetab.questions import Gold, Question
from livetab.rubric import judge_answer
from livetab.settings import ModelSettings
from livetab.tables import Source, Table

OPTIONS = ["Hibou", "Chouette", "Aigle", "Faucon"]
TABLE = Table(id="t", source=Source(kind="test"), header=[["Bird", "Wingspan (cm)", "Country"]],
              rows=[["Hibou", "95", "France"], ["Aigle", "210", "Spain"], ["Faucon", "120", "Italy"]])


def _q(gold: Gold, *, family: str = "direct", options: list[str] | None = None, lang: str = "en",
       qid: str = "q1", text: str = "Which bird?") -> Question:
    return Question(id=qid, table_id="t", family=family, text=text, gold=gold, options=options or [], language=lang)


MCQ = _q(Gold.for_option(OPTIONS, 3), family="mcq", options=OPTIONS)


def test_oracle_phrasings_of_an_option() -> None:
    said = {p: scripted_answer(MCQ, TABLE, policy="oracle", phrasing=p) for p in PHRASINGS}
    assert said["letter"] == said["bare"] == "C"
    assert said["option_text"] == "Aigle" and said["option_number"] == "Option 3" and said["letter_text"] == "C. Aigle"
    assert said["answer_is"] == "The answer is C." and said["true_false"] == "C"  # a boolean phrasing falls back
    ar = _q(Gold.for_option(OPTIONS, 3), family="mcq", options=OPTIONS, lang="ar")
    assert scripted_answer(ar, TABLE, policy="oracle", phrasing="answer_is") == "الإجابة هي C"
    assert scripted_answer(ar, TABLE, policy="oracle", phrasing="option_number") == "الخيار 3"


def test_oracle_phrasings_of_truth_values_and_imperfect_tables() -> None:
    fact = _q(Gold(kind="boolean", boolean=False, text="False"), family="fact")
    assert [scripted_answer(fact, TABLE, policy="oracle", phrasing=p) for p in ("bare", "yes_no", "true_false")] == [
        "False", "No", "False"]
    ar = _q(Gold(kind="boolean", boolean=True, text="صحيح"), family="fact", lang="ar")
    assert scripted_answer(ar, TABLE, policy="oracle", phrasing="yes_no") == "نعم"
    assert scripted_answer(ar, TABLE, policy="oracle", phrasing="true_false") == "صحيح"
    assert scripted_answer(ar, TABLE, policy="anti_oracle", phrasing="true_false") == "خطأ"
    gap = _q(Gold(kind="insufficient", text="insufficient"), family="imperfect")
    assert scripted_answer(gap, TABLE, policy="oracle", phrasing="bare") == "insufficient information"
    wrong = scripted_answer(gap, TABLE, policy="anti_oracle", phrasing="answer_is")
    assert wrong.startswith("The answer is ") and any(c.isdigit() for c in wrong)  # confident, not a refusal


def test_anti_oracle_is_wrong_by_construction() -> None:
    for p in PHRASINGS:
        for seed in range(4):
            said = scripted_answer(MCQ, TABLE, policy="anti_oracle", phrasing=p, seed=seed)
            assert "Aigle" not in said and said not in ("C", "Option 3"), said
            assert judge_answer(said, MCQ).verdict == "incorrect", (p, said)
    number = _q(Gold(kind="number", number=95.0, text="95"), text="What is the wingspan of Hibou?")
    for seed in range(6):
        said = scripted_answer(number, TABLE, policy="anti_oracle", phrasing="bare", seed=seed)
        assert said in ("210", "120") or abs(float(said) - 95) > 20, said  # another value of the table
    text = _q(Gold(kind="text", text="Spain"), text="Where does Aigle live?")
    assert "Spain" not in scripted_answer(text, TABLE, policy="anti_oracle", phrasing="sentence")
    two_way = _q(Gold(kind="text", text="Aigle"), text='Which has the larger wingspan: "Hibou" or "Aigle"?')
    assert scripted_answer(two_way, TABLE, policy="anti_oracle", phrasing="bare") == "Hibou"  # the other one


def test_rotate_cycles_every_fitting_phrasing_deterministically() -> None:
    seen = {choose_phrasing(_q(MCQ.gold, options=OPTIONS, qid=f"q{i}"), "rotate") for i in range(200)}
    assert seen == {"bare", "sentence", "answer_is", "letter", "option_text", "option_number", "letter_text"}
    assert choose_phrasing(MCQ, "rotate") == choose_phrasing(MCQ, "all") == choose_phrasing(MCQ, "rotate")
    number = _q(Gold(kind="number", number=1.0, text="1"))
    assert {choose_phrasing(_q(number.gold, qid=f"n{i}"), "rotate") for i in range(100)} == {
        "bare", "sentence", "answer_is"}


def test_registered_with_its_own_options() -> None:
    b = backend_from_spec({"name": "oracle", "backend": "scripted", "params": {"policy": "anti_oracle",
                                                                                "phrasing": "letter"}})
    assert isinstance(b, ScriptedBackend) and (b.policy, b.phrasing) == ("anti_oracle", "letter")
    with pytest.raises(ValueError, match=r"unknown option.*n_ctx"):
        backend_from_spec({"name": "x", "backend": "scripted", "params": {"n_ctx": "1"}})
    with pytest.raises(ValueError, match="policy must be one of"):
        backend_from_spec({"name": "x", "backend": "scripted", "params": {"policy": "liar"}})
    with pytest.raises(ValueError, match="phrasing must be one of"):
        backend_from_spec({"name": "x", "backend": "scripted", "params": {"phrasing": "shout"}})
    assert ModelSettings(name="o", backend="scripted", params={"policy": "oracle"}).backend == "scripted"


def test_it_needs_the_in_process_question() -> None:
    b = ScriptedBackend("oracle")
    req = GenerateRequest([ChatMessage("user", "Which bird?")], SamplingParams(n=2, seed=5))
    with pytest.raises(ModelError, match="carries no question"):
        asyncio.run(b.generate(req))
    out = asyncio.run(b.generate(GenerateRequest(req.messages, req.sampling, question=MCQ, table=TABLE)))
    assert len(out) == 2 and all(judge_answer(c.text, MCQ).verdict == "correct" for c in out)


def test_each_language_answers_in_its_own_words() -> None:
    # the phrasings come from the language packs' answer_forms, not English in every language
    de = _q(Gold(kind="boolean", boolean=True, text="Wahr"), family="fact", lang="de")
    assert scripted_answer(de, TABLE, policy="oracle", phrasing="true_false") == "Wahr"
    assert scripted_answer(de, TABLE, policy="anti_oracle", phrasing="yes_no") == "Nein"
    assert scripted_answer(de, TABLE, policy="oracle", phrasing="answer_is") == "Die Antwort lautet Wahr."
    ru = _q(Gold.for_option(OPTIONS, 3), family="mcq", options=OPTIONS, lang="ru")
    assert scripted_answer(ru, TABLE, policy="oracle", phrasing="option_number") == "Вариант 3"
    es = _q(Gold(kind="insufficient", text="-"), family="imperfect", lang="es")
    assert scripted_answer(es, TABLE, policy="oracle", phrasing="bare") == "información insuficiente"
    sv = _q(Gold(kind="text", text="Aigle"), lang="sv")
    assert scripted_answer(sv, TABLE, policy="oracle", phrasing="sentence") == "Enligt tabellen är det Aigle."


@pytest.mark.parametrize(("lang", "text", "gold", "other"), [
    ("de", "Welcher der beiden hat in der Spalte „Nr. (ges.)“ den niedrigeren Wert: „Der beste Freund“ oder "
           "„Ein verdammtes Wrack“?", "Ein verdammtes Wrack", "Der beste Freund"),
    ("es", "¿Cuál tiene el valor más alto en la columna «Escaños»: «UDP-A. « Boots » Martinez» o "
           "«Movimiento Democrático Popular»?", "UDP-A. « Boots » Martinez", "Movimiento Democrático Popular"),
    ("fr", "Laquelle a la valeur la plus élevée dans la colonne « Points » : « Lyon » ou « Nantes » ?", "Lyon", "Nantes"),
    ("sv", "Vilken av de två har det högsta värdet i kolumnen ”Poäng”: ”Malmö FF” eller ”AIK”?", "AIK", "Malmö FF"),
    ("nl", "Welke van de twee heeft de hoogste waarde in de kolom “Punten”: “Ajax” of “PSV”?", "PSV", "Ajax"),
])
def test_the_anti_oracle_names_the_other_alternative_in_every_languages_quotes(lang: str, text: str, gold: str,
                                                                               other: str) -> None:
    # FreshTab sweep: German „…“ and nested «…« … »…» were not read, and the anti-oracle answered a third value
    # (which the judge rightly leaves uncertain) instead of the other alternative
    q = _q(Gold(kind="text", text=gold), family="reasoning", lang=lang, text=text)
    assert scripted_answer(q, TABLE, policy="anti_oracle", phrasing="bare") == other
    for phrasing in PHRASINGS:
        assert judge_answer(scripted_answer(q, TABLE, policy="anti_oracle", phrasing=phrasing), q).verdict == "incorrect"
        assert judge_answer(scripted_answer(q, TABLE, policy="oracle", phrasing=phrasing), q).verdict == "correct", (
            phrasing)


def test_insight_answers_carry_the_stored_claims() -> None:
    """The oracle writes the references with their claims (supported on the table), the anti-oracle the
    contrasts with theirs (refuted), in each claim layout real models use; both read back as insights."""
    import json

    from livetab.claims import CLAIM_TAG, execute_claim

    widest = {"op": "superlative", "column": "Wingspan (cm)", "arg": "max", "key": "Bird", "value": "Aigle"}
    total = {"op": "aggregation", "agg": "sum", "column": "Wingspan (cm)", "value": 425}
    refs = ["Aigle has the widest wingspan.", "The wingspans add up to 425 cm."]
    twins = [{"insight": "Faucon has the widest wingspan.", "claim": {**widest, "value": "Faucon"}},
             {"insight": "The wingspans add up to 470 cm.", "claim": {**total, "value": 470}}]
    q = _q(Gold(kind="free", items=refs, text="\n".join(refs), claims=[json.dumps(widest), json.dumps(total)]),
           family="insight", text="Write insights.")
    q.params["contrasts"] = json.dumps(twins)
    for policy, sentences, status in (("oracle", refs, "supported"), ("anti_oracle", [t["insight"] for t in twins],
                                                                          "refuted")):
        for phrasing in ("bare", "sentence", "answer_is"):
            said = scripted_answer(q, TABLE, policy=policy, phrasing=phrasing)
            lines = said.splitlines()
            assert len(lines) == 2 and all(s in line for s, line in zip(sentences, lines, strict=True)), said
            if phrasing == "sentence":
                claims = [json.loads(line)["claim"] for line in lines]
            else:
                claims = [json.loads(m.group(1)) for m in CLAIM_TAG.finditer(said)]
                assert lines[0].startswith("1. ") == (phrasing == "answer_is")
            assert [execute_claim(TABLE, c).status for c in claims] == [status, status], (policy, phrasing, said)
    # a question stored without claims or contrasts: the references alone, and a wrong statement
    plain = _q(Gold(kind="free", items=refs, text="\n".join(refs)), family="insight")
    assert scripted_answer(plain, TABLE, policy="oracle", phrasing="bare") == "\n".join(refs)
    assert scripted_answer(plain, TABLE, policy="anti_oracle", phrasing="bare") == "The table is empty."
