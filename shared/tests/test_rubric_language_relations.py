"""Comparisons and relation words in every FreshTab language (de, es, fr, nl, ru, sv): "A scored more
than B" / "B scored fewer than A" / "A outscored B" answering "which scored more, A or B?", "who is
older?" answered with either comparative, and "X was succeeded by Y" = "Y succeeded X", "preceded",
"ahead of" / "behind", "before" / "after" in either voice; the reverse is wrong, a hedge or a sentence
that does not relate the two stays uncertain, and nothing reversed is ever accepted. The words are each
pack's "comparison" and "relation" sections (livetab/rubric/locales/<lang>.json), with the inflected
forms (gender, number, case) listed there; Russian names in another case ("младше Бориса Петрова",
"Анну Орлову сменила Вера") read through the pack's name and object endings."""

from __future__ import annotations

import pytest
from livetab.rubric import judge_text
from livetab.rubric.locale import get_locale
from livetab.rubric.relations import question_relations
from livetab.rubric.text import fold, key

LANGS = ("de", "es", "fr", "nl", "ru", "sv")


def verdict(response: str, gold: str, question: str, lang: str) -> str:
    return judge_text(response, gold, question=question, language=lang).verdict


def test_every_pack_has_comparison_and_relation_words() -> None:
    for lang in LANGS:
        loc = get_locale(lang)
        axes = {found for found in loc.comparatives.values()}
        assert {("amount", 1), ("amount", -1), ("time", 1), ("time", -1), ("size", 1), ("size", -1)} <= axes, lang
        assert loc.more_less and loc.than_words and loc.comparison_negations, lang
        assert loc.rel_before and loc.rel_after and loc.rel_verbs <= loc.rel_before | loc.rel_after, lang


# --- "which scored more, A or B?" -------------------------------------------------------------------------

MORE: dict[str, tuple[str, str, list[tuple[str, str]]]] = {
 "de": ("Welche Mannschaft hat mehr Tore geschossen, Bayern oder Dortmund?", "Bayern",
        [("Bayern hat mehr Tore geschossen als Dortmund.", "correct"), ("Dortmund hat weniger Tore geschossen als Bayern.", "correct"),
         ("Bayern übertraf Dortmund.", "correct"), ("Dortmund hat mehr Tore geschossen als Bayern.", "incorrect"),
         ("Bayern hat weniger Tore geschossen als Dortmund.", "incorrect")]),
 "es": ("¿Qué equipo marcó más goles, Sevilla o Valencia?", "Sevilla",
        [("Sevilla marcó más goles que Valencia.", "correct"), ("Valencia marcó menos goles que Sevilla.", "correct"),
         ("Sevilla superó a Valencia.", "correct"), ("Valencia marcó más goles que Sevilla.", "incorrect"),
         ("Sevilla marcó menos goles que Valencia.", "incorrect"), ("Sevilla no marcó más goles que Valencia.", "incorrect")]),
 "fr": ("Quelle équipe a marqué le plus de buts, Lyon ou Nantes ?", "Lyon",
        [("Lyon a marqué plus de buts que Nantes.", "correct"), ("Nantes a marqué moins de buts que Lyon.", "correct"),
         ("Lyon a devancé Nantes.", "correct"), ("Nantes a marqué plus de buts que Lyon.", "incorrect"),
         ("Lyon a marqué moins de buts que Nantes.", "incorrect"), ("Nantes n'a pas marqué plus de buts que Lyon.", "correct")]),
 "nl": ("Welke club scoorde meer doelpunten, Ajax of Feyenoord?", "Ajax",
        [("Ajax scoorde meer doelpunten dan Feyenoord.", "correct"), ("Feyenoord scoorde minder doelpunten dan Ajax.", "correct"),
         ("Ajax versloeg Feyenoord.", "correct"), ("Feyenoord scoorde meer doelpunten dan Ajax.", "incorrect"),
         ("Ajax scoorde minder doelpunten dan Feyenoord.", "incorrect"), ("Ajax scoorde niet meer doelpunten dan Feyenoord.", "incorrect")]),
 "ru": ("Какая команда забила больше голов, Зенит или Спартак?", "Зенит",
        [("Зенит забил больше голов, чем Спартак.", "correct"), ("Спартак забил меньше голов, чем Зенит.", "correct"),
         ("Зенит опередил Спартак.", "correct"), ("Спартак забил больше голов, чем Зенит.", "incorrect"),
         ("Зенит забил меньше голов, чем Спартак.", "incorrect"), ("Спартак не забил больше голов, чем Зенит.", "correct")]),
 "sv": ("Vilket lag gjorde fler mål, Malmö eller Hammarby?", "Malmö",
        [("Malmö gjorde fler mål än Hammarby.", "correct"), ("Hammarby gjorde färre mål än Malmö.", "correct"),
         ("Malmö slog Hammarby.", "correct"), ("Hammarby gjorde fler mål än Malmö.", "incorrect"),
         ("Malmö gjorde färre mål än Hammarby.", "incorrect"), ("Malmö gjorde inte fler mål än Hammarby.", "incorrect")]),
}


def _cases(table: dict[str, tuple[str, str, list[tuple[str, str]]]]) -> list[tuple[str, str, str, str, str]]:
    return [(lang, q, g, r, e) for lang, (q, g, cases) in table.items() for r, e in cases]


@pytest.mark.parametrize(("lang", "question", "gold", "response", "expected"), _cases(MORE))
def test_more_or_fewer(lang: str, question: str, gold: str, response: str, expected: str) -> None:
    assert verdict(response, gold, question, lang) == expected


# --- "who is older, A or B?" ------------------------------------------------------------------------------

AGE: dict[str, tuple[str, str, list[tuple[str, str]]]] = {
 "de": ("Wer ist älter, Anna Lehmann oder Bernd Roth?", "Bernd Roth",
        [("Anna Lehmann ist jünger als Bernd Roth.", "correct"), ("Bernd Roth ist älter als Anna Lehmann.", "correct"),
         ("Bernd Roth ist jünger als Anna Lehmann.", "incorrect"), ("Anna Lehmann ist älter als Bernd Roth.", "incorrect"),
         ("Anna Lehmann ist nicht älter als Bernd Roth.", "correct"), ("Bernd Roth wurde früher geboren als Anna Lehmann.", "correct"),
         ("Anna Lehmann oder Bernd Roth ist älter.", "uncertain"), ("Vielleicht ist Anna Lehmann jünger als Bernd Roth.", "uncertain")]),
 "es": ("¿Quién es mayor, Ana López o Blas Ruiz?", "Blas Ruiz", [("Ana López es más joven que Blas Ruiz.", "correct"), ("Blas Ruiz es mayor que Ana López.", "correct"), ("Blas Ruiz es más joven que Ana López.", "incorrect"), ("Ana López es mayor que Blas Ruiz.", "incorrect")]),
 "fr": ("Qui est le plus âgé, Anne Leroy ou Bruno Roux ?", "Bruno Roux", [("Anne Leroy est plus jeune que Bruno Roux.", "correct"), ("Bruno Roux est plus âgé qu'Anne Leroy.", "correct"), ("Bruno Roux est plus jeune qu'Anne Leroy.", "incorrect"), ("Anne Leroy est plus âgée que Bruno Roux.", "incorrect"), ("Anne Leroy est moins âgée que Bruno Roux.", "correct")]),
 "nl": ("Wie is ouder, Anna de Vries of Bram Jansen?", "Bram Jansen", [("Anna de Vries is jonger dan Bram Jansen.", "correct"), ("Bram Jansen is ouder dan Anna de Vries.", "correct"), ("Bram Jansen is jonger dan Anna de Vries.", "incorrect"), ("Anna de Vries is ouder dan Bram Jansen.", "incorrect")]),
 "ru": ("Кто старше, Анна Орлова или Борис Петров?", "Борис Петров", [("Анна Орлова моложе, чем Борис Петров.", "correct"), ("Борис Петров старше, чем Анна Орлова.", "correct"), ("Борис Петров моложе, чем Анна Орлова.", "incorrect"), ("Анна Орлова старше, чем Борис Петров.", "incorrect"), ("Анна Орлова младше Бориса Петрова.", "correct")]),
 "sv": ("Vem är äldst, Anna Berg eller Bo Lund?", "Bo Lund", [("Anna Berg är yngre än Bo Lund.", "correct"), ("Bo Lund är äldre än Anna Berg.", "correct"), ("Bo Lund är yngre än Anna Berg.", "incorrect"), ("Anna Berg är äldre än Bo Lund.", "incorrect")]),
}


@pytest.mark.parametrize(("lang", "question", "gold", "response", "expected"), _cases(AGE))
def test_older_or_younger(lang: str, question: str, gold: str, response: str, expected: str) -> None:
    assert verdict(response, gold, question, lang) == expected


# --- relation words in either voice -----------------------------------------------------------------------

REL: dict[str, list[tuple[str, str, list[tuple[str, str]]]]] = {
 "de": [("Wer folgte auf Georg Kaiser?", "Bruno Lemke", [
        ("Bruno Lemke folgte auf Georg Kaiser.", "correct"), ("Georg Kaiser wurde gefolgt von Bruno Lemke.", "correct"),
        ("Georg Kaiser wurde von Bruno Lemke abgelöst.", "correct"), ("Bruno Lemke wurde von Georg Kaiser abgelöst.", "incorrect"),
        ("Bruno Lemke von Hertha folgte auf Georg Kaiser.", "correct"),
        ("Bruno Lemke ist der Nachfolger von Georg Kaiser.", "correct"), ("Bruno Lemke löste Georg Kaiser ab.", "correct"),
        ("Georg Kaiser folgte auf Bruno Lemke.", "incorrect"), ("Bruno Lemke kam vor Georg Kaiser.", "incorrect"),
        ("Bruno Lemke war der Vorgänger von Georg Kaiser.", "incorrect"), ("Georg Kaiser löste Bruno Lemke ab.", "incorrect"),
        ("Georg Kaiser und Bruno Lemke.", "uncertain")]),
        ("Wer landete hinter Anna Lehmann?", "Bernd Roth", [("Bernd Roth landete hinter Anna Lehmann.", "correct"),
         ("Anna Lehmann landete vor Bernd Roth.", "correct"), ("Bernd Roth landete vor Anna Lehmann.", "incorrect")])],
 "es": [("¿Quién sucedió a Jorge Casas?", "Bruno Lemos", [
        ("Bruno Lemos sucedió a Jorge Casas.", "correct"), ("Jorge Casas fue sucedido por Bruno Lemos.", "correct"),
        ("Jorge Casas precedió a Bruno Lemos.", "correct"), ("Jorge Casas sucedió a Bruno Lemos.", "incorrect"),
        ("Bruno Lemos fue sucedido por Jorge Casas.", "incorrect"), ("Bruno Lemos llegó antes de Jorge Casas.", "incorrect")]),
        ("¿Quién terminó detrás de Ana López?", "Blas Ruiz", [("Blas Ruiz terminó detrás de Ana López.", "correct"),
         ("Ana López terminó delante de Blas Ruiz.", "correct"), ("Blas Ruiz terminó delante de Ana López.", "incorrect")])],
 "fr": [("Qui a succédé à Georges Caron ?", "Bruno Lemaire", [
        ("Bruno Lemaire a succédé à Georges Caron.", "correct"), ("Georges Caron a précédé Bruno Lemaire.", "correct"),
        ("Bruno Lemaire a été précédé par Georges Caron.", "correct"), ("Georges Caron a été remplacé par Bruno Lemaire.", "correct"),
        ("Georges Caron a succédé à Bruno Lemaire.", "incorrect"), ("Bruno Lemaire a précédé Georges Caron.", "incorrect"),
        ("Georges Caron a été précédé par Bruno Lemaire.", "incorrect")]),
        ("Qui a terminé derrière Anne Leroy ?", "Bruno Roux", [("Bruno Roux a terminé derrière Anne Leroy.", "correct"),
         ("Anne Leroy a terminé devant Bruno Roux.", "correct"), ("Bruno Roux a terminé devant Anne Leroy.", "incorrect")])],
 "nl": [("Wie volgde Gerard Kok op?", "Bram Lemmens", [
        ("Bram Lemmens volgde Gerard Kok op.", "correct"), ("Gerard Kok werd opgevolgd door Bram Lemmens.", "correct"),
        ("Gerard Kok werd door Bram Lemmens opgevolgd.", "correct"), ("Bram Lemmens werd door Gerard Kok opgevolgd.", "incorrect"),
        ("Bram Lemmens is de opvolger van Gerard Kok.", "correct"), ("Gerard Kok volgde Bram Lemmens op.", "incorrect"),
        ("Bram Lemmens werd opgevolgd door Gerard Kok.", "incorrect"), ("Bram Lemmens was de voorganger van Gerard Kok.", "incorrect")]),
        ("Wie eindigde achter Anna de Vries?", "Bram Jansen", [("Bram Jansen eindigde achter Anna de Vries.", "correct"),
         ("Anna de Vries eindigde eerder dan Bram Jansen.", "correct"), ("Bram Jansen eindigde eerder dan Anna de Vries.", "incorrect"),
         ("Bram Jansen eindigde voor Anna de Vries.", "uncertain")])],
 "ru": [("Кто сменил Max Verstappen?", "Lando Norris", [
        ("Lando Norris сменил Max Verstappen.", "correct"), ("Max Verstappen был сменён Lando Norris.", "correct"),
        ("Max Verstappen предшествовал Lando Norris.", "correct"), ("Max Verstappen сменил Lando Norris.", "incorrect"),
        ("Lando Norris был сменён Max Verstappen.", "incorrect"), ("Lando Norris предшествовал Max Verstappen.", "incorrect")]),
        ("Кто финишировал после Анны Орловой?", "Борис Петров", [("Борис Петров финишировал после Анны Орловой.", "correct"),
         ("Борис Петров финишировал до Анны Орловой.", "incorrect"), ("Борис Петров финишировал перед Анны Орловой.", "incorrect")]),
        ("Кто сменила Анну Орлову?", "Вера Смирнова", [("Вера Смирнова сменила Анну Орлову.", "correct"), ("Анну Орлову сменила Вера Смирнова.", "correct"), ("Веру Смирнову сменила Анна Орлова.", "incorrect")])],
 "sv": [("Vem efterträdde Gösta Berg?", "Bo Lund", [
        ("Bo Lund efterträdde Gösta Berg.", "correct"), ("Gösta Berg efterträddes av Bo Lund.", "correct"),
        ("Gösta Berg föregick Bo Lund.", "correct"), ("Gösta Berg efterträdde Bo Lund.", "incorrect"),
        ("Bo Lund efterträddes av Gösta Berg.", "incorrect"), ("Bo Lund föregick Gösta Berg.", "incorrect")]),
        ("Vem kom efter Anna Berg?", "Bo Lund", [("Bo Lund kom efter Anna Berg.", "correct"), ("Bo Lund kom före Anna Berg.", "incorrect"),
         ("Anna Berg kom före Bo Lund.", "correct")])],
}


@pytest.mark.parametrize(("lang", "question", "gold", "response", "expected"),
                         [(lang, q, g, r, e) for lang, qs in REL.items() for q, g, cases in qs for r, e in cases])
def test_relation_words(lang: str, question: str, gold: str, response: str, expected: str) -> None:
    assert verdict(response, gold, question, lang) == expected


# --- what stays uncertain: a hedge, a comparative of another axis, two names without a relation --------

UNCERTAIN = {
    "de": ("Vielleicht ist Anna Lehmann jünger als Bernd Roth.", "Anna Lehmann hat mehr Titel als Bernd Roth.",
           "Georg Kaiser und Bruno Lemke waren Trainer."),
    "es": ("Quizás Ana López es más joven que Blas Ruiz.", "Ana López tiene más títulos que Blas Ruiz.",
           "Jorge Casas y Bruno Lemos fueron entrenadores."),
    "fr": ("Anne Leroy ou Bruno Roux est plus âgé.", "Anne Leroy a plus de titres que Bruno Roux.",
           "Georges Caron et Bruno Lemaire étaient entraîneurs."),
    "nl": ("Misschien is Anna de Vries jonger dan Bram Jansen.", "Anna de Vries heeft meer titels dan Bram Jansen.",
           "Gerard Kok en Bram Lemmens waren trainers."),
    "ru": ("Возможно, Анна Орлова моложе, чем Борис Петров.", "Анна Орлова выиграла больше титулов, чем Борис Петров.",
           "Max Verstappen и Lando Norris были пилотами."),
    "sv": ("Kanske är Anna Berg yngre än Bo Lund.", "Anna Berg har fler titlar än Bo Lund.",
           "Gösta Berg och Bo Lund var tränare."),
}


@pytest.mark.parametrize("lang", LANGS)
def test_hedges_other_axes_and_unrelated_names_stay_uncertain(lang: str) -> None:
    hedged, other_axis, unrelated = UNCERTAIN[lang]
    older_q, older_gold, _ = AGE[lang]
    assert verdict(hedged, older_gold, older_q, lang) == "uncertain"
    assert verdict(other_axis, older_gold, older_q, lang) == "uncertain"
    rel_q, rel_gold, _ = REL[lang][0]
    assert verdict(unrelated, rel_gold, rel_q, lang) == "uncertain"


PAIRS = {"de": [("Bayern", "Dortmund"), ("Anna Lehmann", "Bernd Roth"), ("Georg Kaiser", "Bruno Lemke")],
         "es": [("Sevilla", "Valencia"), ("Ana López", "Blas Ruiz"), ("Jorge Casas", "Bruno Lemos")],
         "fr": [("Lyon", "Nantes"), ("Anne Leroy", "Bruno Roux"), ("Georges Caron", "Bruno Lemaire")],
         "nl": [("Ajax", "Feyenoord"), ("Anna de Vries", "Bram Jansen"), ("Gerard Kok", "Bram Lemmens")],
         "ru": [("Зенит", "Спартак"), ("Анна Орлова", "Борис Петров"), ("Max Verstappen", "Lando Norris")],
         "sv": [("Malmö", "Hammarby"), ("Anna Berg", "Bo Lund"), ("Gösta Berg", "Bo Lund")]}


@pytest.mark.parametrize("lang", LANGS)
def test_no_reversed_sentence_is_accepted(lang: str) -> None:
    # Every correct sentence above with its two names swapped puts the gold on the other side: never correct.
    swapped_any = 0
    for q, g, cases in [MORE[lang], AGE[lang], *REL[lang]]:
        for r, e in cases:
            for a, b in PAIRS[lang]:
                if e == "correct" and a in r and b in r:
                    swapped = r.replace(a, "\0").replace(b, a).replace("\0", b)
                    assert verdict(swapped, g, q, lang) != "correct", swapped
                    swapped_any += 1
    assert swapped_any >= 5


def test_fixed_phrases_are_no_relation() -> None:
    # nl "op een na hoogste" (second highest) and ru "после запятой" (after the decimal point) name no anchor
    def asked(q: str, lang: str) -> tuple[tuple[str, str], ...]:
        return question_relations(key(fold(q)).split(), get_locale(lang))

    assert asked("Welke rij heeft de op een na hoogste waarde in de kolom Punten?", "nl") == ()
    assert asked("Wie eindigde na Ajax?", "nl") == (("after", "ajax"),)
    assert asked("Чему равно среднее значение столбца Очки с округлением до одного знака после запятой?", "ru") == ()
    assert asked("Кто финишировал после Зенита?", "ru") == (("after", "зенита"),)
