"""The rule judge in every FreshTab language (de, es, fr, nl, ru, sv): each class of the rubric —
numbers in local notation and in words, scale words, percentages, booleans, lists, dates, the
imperfect-table phrases — and AraTable's own rubric examples (test_rubric_examples.py) translated.
The words come from the language packs in livetab/rubric/locales/<lang>.json."""

from __future__ import annotations

import json
from importlib import resources

import pytest
from livetab.questions import Gold, Question
from livetab.rubric import RuleVerdict, judge_answer, judge_text
from livetab.rubric.locale import available_packs, get_locale

LANGS = ["de", "es", "fr", "nl", "ru", "sv"]


def ask(gold: Gold, response: str, lang: str, **kw: float) -> RuleVerdict:
    q = Question(id=f"ex-{lang}-{gold.kind}-{gold.text}", table_id="t", family="direct", text="", gold=gold, language=lang)
    return judge_answer(response, q, **kw)


def num(value: float, text: str = "") -> Gold:
    return Gold(kind="number", number=value, text=text or str(value))


def test_every_pack_has_the_english_keys() -> None:
    folder = resources.files("livetab.rubric").joinpath("locales")
    en = set(json.loads(folder.joinpath("en.json").read_text("utf-8")))
    assert {"de", "es", "fr", "nl", "ru", "sv", "en", "ar"} <= available_packs()
    for lang in available_packs():
        assert set(json.loads(folder.joinpath(f"{lang}.json").read_text("utf-8"))) == en, lang
        loc = get_locale(lang)
        assert loc.true_phrases and loc.false_phrases and loc.insufficient and loc.contradictory
        assert len(set(loc.months.values())) == 12, lang


# --- numbers in local notation ----------------------------------------------------------------------------

@pytest.mark.parametrize(("lang", "response", "value"), [
    ("de", "Die Antwort ist 1.234,5.", 1234.5),
    ("de", "Insgesamt 1'234,5 Punkte", 1234.5),
    ("es", "La respuesta es 1.234.567,8", 1234567.8),
    ("fr", "La réponse est 1\u202f234,5", 1234.5),  # narrow no-break space
    ("fr", "Environ 1\u00a0234,5 voix", 1234.5),  # no-break space
    ("nl", "Het antwoord is 12.345", 12345.0),
    ("ru", "Ответ: 1 234,5", 1234.5),
    ("sv", "Svaret är 2,75", 2.75),
])
def test_local_notation(lang: str, response: str, value: float) -> None:
    assert ask(num(value), response, lang).verdict == "correct"


@pytest.mark.parametrize(("lang", "response"), [
    ("de", "Die Antwort ist 1.234"),  # a German thousands group, not 1.234
    ("es", "Son 1.234 votos"),
    ("nl", "Het zijn 1.234 stemmen"),
])
def test_a_point_groups_thousands(lang: str, response: str) -> None:
    assert ask(num(1234.0), response, lang).verdict == "correct"
    assert ask(num(1.234), response, lang).verdict == "incorrect"


@pytest.mark.parametrize(("lang", "response", "value"), [
    ("de", "einundzwanzig", 21), ("de", "Es sind dreiundvierzig Punkte.", 43), ("de", "zwölf", 12),
    ("es", "treinta y uno", 31), ("es", "veintidós", 22), ("es", "Hay quince filas.", 15),
    ("fr", "quatre-vingt-dix-sept", 97), ("fr", "vingt et un", 21), ("fr", "soixante-dix", 70),
    ("nl", "drieëntwintig", 23), ("nl", "Er zijn vijftien rijen.", 15),
    ("ru", "двадцать один", 21), ("ru", "Всего сорок два.", 42), ("ru", "сто двадцать", 120),
    ("sv", "tjugotvå", 22), ("sv", "Det är femton rader.", 15),
])
def test_number_words(lang: str, response: str, value: int) -> None:
    assert ask(num(float(value)), response, lang).verdict == "correct"
    assert ask(num(float(value + 1)), response, lang).verdict == "incorrect"


@pytest.mark.parametrize(("lang", "response"), [
    ("de", "38 Tausend"), ("de", "38 Tsd."), ("es", "38 mil"), ("fr", "38 mille"), ("nl", "38 duizend"),
    ("ru", "38 тысяч"), ("ru", "38 тыс."), ("sv", "38 tusen"),
])
def test_scale_words(lang: str, response: str) -> None:
    assert ask(num(38000.0), response, lang).verdict == "correct"


@pytest.mark.parametrize(("lang", "response"), [
    ("de", "1,5 Millionen"), ("es", "1,5 millones"), ("fr", "1,5 million"), ("nl", "1,5 miljoen"),
    ("ru", "1,5 млн"), ("sv", "1,5 miljoner"),
])
def test_millions(lang: str, response: str) -> None:
    assert ask(num(1_500_000.0), response, lang).verdict == "correct"


@pytest.mark.parametrize(("lang", "response"), [
    ("de", "25 Prozent"), ("es", "25 por ciento"), ("fr", "25 pour cent"), ("nl", "25 procent"),
    ("ru", "25 процентов"), ("sv", "25 procent"), ("fr", "25 %"),
])
def test_percent_words(lang: str, response: str) -> None:
    assert ask(num(0.25, "0,25"), response, lang).verdict == "correct"


@pytest.mark.parametrize(("lang", "response", "value"), [
    ("de", "Die Strecke ist 12,5 km lang.", 12.5), ("de", "Das Preisgeld beträgt 1.234,5 €.", 1234.5),
    ("es", "Mide 12,5 km.", 12.5), ("fr", "Il a couru 12,5 km.", 12.5), ("fr", "Le prix est de 1 234,5 €.", 1234.5),
    ("nl", "De afstand is 12,5 km.", 12.5), ("ru", "Длина трассы 12,5 км.", 12.5), ("ru", "Стоимость 1 234,5 руб.", 1234.5),
    ("sv", "Sträckan är 12,5 km.", 12.5), ("sv", "Priset är 1 234,5 kr.", 1234.5),
])
def test_numbers_with_units(lang: str, response: str, value: float) -> None:
    assert ask(num(value), response, lang).verdict == "correct"
    assert ask(num(value + 1), response, lang).verdict == "incorrect"


# --- AraTable's rubric examples, translated ---------------------------------------------------------------

AROUND_40 = {"de": ["etwa 40", "40", "vierzig Jahre"], "es": ["alrededor de 40", "40", "cuarenta años"],
             "fr": ["environ 40", "40", "quarante ans"], "nl": ["ongeveer 40", "40", "veertig jaar"],
             "ru": ["около 40", "40", "сорок лет"], "sv": ["ungefär 40", "40", "fyrtio år"]}


@pytest.mark.parametrize("lang", LANGS)
def test_around_40(lang: str) -> None:
    for response in AROUND_40[lang]:
        assert ask(num(40.0, "40"), response, lang).verdict == "correct", response


@pytest.mark.parametrize("lang", LANGS)
def test_1883_for_1889(lang: str) -> None:
    gold = num(1.889, "1,889")
    assert ask(gold, "1,883", lang).verdict == "correct"
    assert ask(gold, "1,883", lang, tolerance=0.0025).verdict == "incorrect"
    assert ask(gold, "1,87", lang).verdict == "incorrect"


@pytest.mark.parametrize("lang", LANGS)
def test_25_percent(lang: str) -> None:
    assert ask(num(0.25, "0,25"), "25%", lang).verdict == "correct"


# AraTable: an Arabic entity answered in Latin letters (its English name) is wrong; here the entity's own
# name beside its English one (in Russian, as in Arabic, another script too).
ENTITIES = {"de": ("Technische Universität München", "Technical University of Munich"),
            "es": ("Universidad Complutense de Madrid", "Complutense University of Madrid"),
            "fr": ("Université de Strasbourg", "University of Strasbourg"),
            "nl": ("Koninklijke Bibliotheek", "National Library of the Netherlands"),
            "ru": ("Московский государственный университет", "Moscow State University"),
            "sv": ("Kungliga Tekniska högskolan", "KTH Royal Institute of Technology")}


@pytest.mark.parametrize("lang", LANGS)
def test_entity_in_another_language_is_wrong(lang: str) -> None:
    name, english = ENTITIES[lang]
    gold = Gold(kind="text", text=name)
    assert ask(gold, english, lang).verdict == "incorrect"
    assert ask(gold, name, lang).verdict == "correct"


SETS = {"de": ("Hotel B, Hotel A", "Hotel A und Hotel B"), "es": ("Hotel B, Hotel A", "Hotel A y Hotel B"),
        "fr": ("Hôtel B, Hôtel A", "Hôtel A et Hôtel B"), "nl": ("Hotel B, Hotel A", "Hotel A en Hotel B"),
        "ru": ("Отель Б, Отель А", "Отель А и Отель Б"), "sv": ("Hotell B, Hotell A", "Hotell A och Hotell B")}


@pytest.mark.parametrize("lang", LANGS)
def test_hotels_as_a_set(lang: str) -> None:
    gold_text, response = SETS[lang]
    gold = Gold(kind="list", items=gold_text.split(", "), text=gold_text)
    assert ask(gold, response, lang).verdict == "correct"
    assert ask(gold, response.split(" ")[0] + " " + response.split(" ")[1], lang).verdict != "correct"


BOOLEANS = {
    "de": (["Wahr", "Ja", "Richtig", "Die Aussage ist wahr.", "True"], ["Falsch", "Nein", "Die Aussage ist falsch.", "Das stimmt nicht.", "False"]),
    "es": (["Verdadero", "Sí", "Es cierto.", "La afirmación es verdadera.", "True"], ["Falso", "No", "No es cierto.", "La afirmación es falsa.", "False"]),
    "fr": (["Vrai", "Oui", "C'est exact.", "L'affirmation est vraie.", "True"], ["Faux", "Non", "C'est faux.", "L'affirmation est fausse.", "False"]),
    "nl": (["Waar", "Ja", "Dat klopt.", "De bewering is waar.", "True"], ["Onwaar", "Nee", "Niet waar", "De bewering is onwaar.", "False"]),
    "ru": (["Верно", "Да", "Это правда.", "Утверждение верно.", "True"], ["Неверно", "Нет", "Ложь", "Утверждение неверно.", "False"]),
    "sv": (["Sant", "Ja", "Det stämmer.", "Påståendet är sant.", "True"], ["Falskt", "Nej", "Inte sant", "Påståendet är falskt.", "False"]),
}


@pytest.mark.parametrize("lang", LANGS)
def test_true_and_false_synonyms(lang: str) -> None:
    yes, no = BOOLEANS[lang]
    for word in yes:
        assert ask(Gold(kind="boolean", boolean=True, text=yes[0]), word, lang).verdict == "correct", word
        assert ask(Gold(kind="boolean", boolean=False, text=no[0]), word, lang).verdict == "incorrect", word
    for word in no:
        assert ask(Gold(kind="boolean", boolean=False, text=no[0]), word, lang).verdict == "correct", word
        assert ask(Gold(kind="boolean", boolean=True, text=yes[0]), word, lang).verdict == "incorrect", word


# --- dates, text, imperfect tables ------------------------------------------------------------------------

DATES = {"de": "Am 17. März 2025.", "es": "El 17 de marzo de 2025.", "fr": "Le 17 mars 2025.",
         "nl": "Op 17 maart 2025.", "ru": "17 марта 2025 года.", "sv": "Den 17 mars 2025."}


@pytest.mark.parametrize("lang", LANGS)
def test_dates_with_month_names(lang: str) -> None:
    assert judge_text(DATES[lang], "2025-03-17", language=lang, kind="date").verdict == "correct"
    assert judge_text(DATES[lang], "2025-04-17", language=lang, kind="date").verdict == "incorrect"


INSUFFICIENT = {"de": "Die Tabelle enthält keine Informationen dazu, der Wert kann nicht bestimmt werden.",
                "es": "No se puede determinar: la tabla no contiene ese dato.",
                "fr": "Impossible de déterminer, le tableau ne donne pas cette valeur.",
                "nl": "Dat kan niet worden bepaald; de tabel geeft deze waarde niet.",
                "ru": "Невозможно определить: в таблице нет этого значения.",
                "sv": "Det går inte att avgöra, uppgiften saknas i tabellen."}
CONTRADICTORY = {"de": "Die Tabelle gibt widersprüchliche Werte an.", "es": "La tabla da valores contradictorios.",
                 "fr": "Le tableau donne des valeurs contradictoires.", "nl": "De tabel geeft tegenstrijdige waarden.",
                 "ru": "В таблице приведены противоречивые значения.", "sv": "Tabellen anger motstridiga värden."}


@pytest.mark.parametrize("lang", LANGS)
def test_imperfect_table_phrases(lang: str) -> None:
    insufficient = Gold(kind="insufficient", text=INSUFFICIENT[lang])
    contradictory = Gold(kind="contradictory", text=CONTRADICTORY[lang])
    assert ask(insufficient, INSUFFICIENT[lang], lang).verdict == "correct"
    assert ask(contradictory, CONTRADICTORY[lang], lang).verdict == "correct"
    assert ask(insufficient, CONTRADICTORY[lang], lang).verdict != "correct"
    assert ask(insufficient, "42", lang).verdict == "incorrect"


@pytest.mark.parametrize(("lang", "response"), [
    ("de", "Die Antwort lautet: Max Verstappen"), ("es", "La respuesta es Max Verstappen"),
    ("fr", "La réponse est Max Verstappen"), ("nl", "Het antwoord is Max Verstappen"),
    ("ru", "Ответ: Max Verstappen"), ("sv", "Svaret är Max Verstappen"),
])
def test_answer_markers_and_text(lang: str, response: str) -> None:
    assert ask(Gold(kind="text", text="Max Verstappen"), response, lang).verdict == "correct"
    assert ask(Gold(kind="text", text="Lando Norris"), response, lang).verdict == "incorrect"


@pytest.mark.parametrize(("lang", "response"), [
    ("de", "Nicht Max Verstappen"), ("es", "No Max Verstappen"), ("fr", "Pas Max Verstappen"),
    ("nl", "Niet Max Verstappen"), ("ru", "Не Max Verstappen"), ("sv", "Inte Max Verstappen"),
])
def test_negated_gold_is_not_correct(lang: str, response: str) -> None:
    assert ask(Gold(kind="text", text="Max Verstappen"), response, lang).verdict != "correct"
