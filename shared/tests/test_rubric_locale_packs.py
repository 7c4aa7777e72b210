"""Adding a language is adding a pack (`locales/<lang>.json`): a new pack is read with what it borrows,
and a malformed pack is refused when it is loaded, with an error that names the pack and the field, rather
than judging answers with a silently empty word list.

The packs here are written to a folder of the test's own, which stands in for the package's `locales/`
folder (the shipped English pack is copied there as the lender)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from importlib import resources
from pathlib import Path

import pytest
from livetab.rubric import judge_text, locale
from livetab.rubric.locale import answer_forms, available_packs, get_locale, pack_section
from livetab.rubric.numbers import find_numbers
from livetab.rubric.text import fold


def _clear() -> None:
    available_packs.cache_clear()
    get_locale.cache_clear()
    answer_forms.cache_clear()


@pytest.fixture
def packs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    folder = tmp_path / "locales"
    folder.mkdir()
    english = resources.files("livetab.rubric").joinpath("locales").joinpath("en.json").read_text("utf-8")
    (folder / "en.json").write_text(english, encoding="utf-8")

    class Files:
        @staticmethod
        def files(package: str) -> Path:
            assert package == "livetab.rubric"
            return tmp_path

    monkeypatch.setattr(locale, "resources", Files)
    _clear()
    yield folder
    monkeypatch.undo()
    _clear()


def write(folder: Path, lang: str, pack: dict[str, object]) -> None:
    (folder / f"{lang}.json").write_text(json.dumps(pack, ensure_ascii=False), encoding="utf-8")


def test_a_new_pack_reads_its_own_words_and_what_it_borrows(packs: Path) -> None:
    # German-like pack: its own "Billion" is 10^12 (not the English 10^9) and must win over the lender's;
    # the months it names are its own, English month names come with the borrow, after its own
    write(packs, "de", {
        "language": "de",
        "units": {"eins": 1, "zwei": 2},
        "scales": {"Tausend": 1000, "Billion": 1e12},
        "months": {"März": 3, "Mai": 5},
        "true": ["ja", "wahr", "true"],
        "percent_words": ["Prozent"],
        "answer_markers": ["Antwort"],
        "or_lookalikes": ["Où"],
        "borrow": {"en": ["scales", "months", "true"]},
    })
    assert available_packs() == frozenset({"en", "de"})
    de = get_locale("de-AT")
    assert de.language == "de"
    assert de.scales["billion"] == 1e12  # its own value, folded
    assert de.scales["million"] == 1e6  # borrowed
    assert de.scales["tausend"] == 1000
    assert de.months["marz"] == 3 and de.months["mai"] == 5 and de.months["may"] == 5
    assert isinstance(de.months["may"], int)
    assert de.true_phrases[:3] == ("ja", "wahr", "true")  # its own first, in order, no duplicate
    assert de.true_phrases.count("true") == 1 and "yes" in de.true_phrases
    assert de.units == {"eins": 1.0, "zwei": 2.0}  # not borrowed: not English
    assert de.percent_alt == "prozent"
    assert de.answer_markers == ("antwort",)
    assert de.or_lookalikes == ("où",)  # as written, lower-cased, not folded
    assert de.negations == frozenset()  # a field the pack leaves out is empty
    # no answer phrasings of its own: the English ones
    assert answer_forms("de").language == "en"


@pytest.mark.parametrize(("pack", "message"), [
    ({"borrow": ["en"]}, "locale zz: 'borrow' must map a language to a list of fields"),
    ({"borrow": {"zz": ["months"]}}, "locale zz: cannot borrow from 'zz'"),
    ({"borrow": {"pt": ["months"]}}, "locale zz: cannot borrow from 'pt'"),
    ({"borrow": {"en": ["negations"]}}, "locale zz: field 'negations' cannot be borrowed"),
    ({"true": "ja"}, "locale field 'true' must be a list"),
    ({"or_lookalikes": "où"}, "locale field 'or_lookalikes' must be a list"),
    ({"months": ["januar"]}, "locale field 'months' must be an object"),
    ({"comparison": ["größer"]}, "locale field 'comparison' must map names to lists of words"),
    ({"comparison": {"more": "größer"}}, "locale field 'comparison' must map names to lists of words"),
    ({"relation": {"after": ["nach"], "fixed_phrases": "vor allem"}},
     "locale field 'relation' must map names to lists of words"),
])
def test_a_malformed_pack_is_refused_by_name(packs: Path, pack: dict[str, object], message: str) -> None:
    write(packs, "zz", pack)
    with pytest.raises(ValueError) as err:
        get_locale("zz")
    assert str(err.value) == message


def test_a_borrowed_field_of_another_shape_is_not_merged(packs: Path) -> None:
    # the pack's own list stays as it is when the lender's field is not a list (and the other way round)
    write(packs, "zz", {"true": ["ja"], "months": {"januar": 1}, "borrow": {"en": ["true", "months"]}})
    en = json.loads((packs / "en.json").read_text("utf-8"))
    en["true"] = {"yes": 1}
    en["months"] = ["january"]
    write(packs, "en", en)
    zz = get_locale("zz")
    assert zz.true_phrases == ("ja",)
    assert zz.months == {"januar": 1}


def test_a_pack_with_no_borrow_field(packs: Path) -> None:
    write(packs, "zz", {"true": ["ja"], "borrow": None})
    assert get_locale("zz").true_phrases == ("ja",)
    assert get_locale("zz").months == {}


def test_the_english_pack_must_have_answer_forms(packs: Path) -> None:
    en = json.loads((packs / "en.json").read_text("utf-8"))
    del en["answer_forms"]
    write(packs, "en", en)
    with pytest.raises(ValueError, match=r"^the English pack must have answer_forms$"):
        answer_forms("en")


def test_a_pack_without_scale_words_still_reads_digits_and_percents(packs: Path) -> None:
    # a new language written with number words but no scale words ("million", "ألف"): its digit numbers,
    # thousands groups and percents are read as in any other pack, and a percent gold is judged on them
    write(packs, "zz", {"units": {"eins": 1, "zwei": 2}, "percent_words": ["Prozent"]})
    zz = get_locale("zz")
    assert zz.scales == {}
    found = find_numbers(fold("1,200 Besucher, davon 45 % und zwei Prozent Kinder"), zz)
    assert [(n.value, n.percent) for n in found] == [(1200.0, False), (45.0, True), (2.0, True)]
    assert judge_text("Die Quote lag bei 45 Prozent.", "45%", language="zz").verdict == "correct"
    assert judge_text("Die Quote lag bei 54 %.", "45%", language="zz").verdict == "incorrect"


def test_a_pack_section_is_read_as_written() -> None:
    # the shipped packs' total-row words (`livetab.total_labels`), not folded: the hamza of "إجمالي" stays
    assert pack_section("en", "total_rows") == {"start": ["total", "totals", "grand total", "sum", "overall"],
                                                "end": ["total", "totals"]}
    ar = pack_section("ar", "total_rows")
    assert ar["end"] == ["الإجمالي", "المجموع"] and "إجمالي" in ar["start"]


def test_a_pack_section_of_no_pack_or_no_such_section_is_empty() -> None:
    assert pack_section("xx", "total_rows") == {}  # no pack for the language
    assert pack_section("en", "no_such_section") == {}


@pytest.mark.parametrize("section", [["total"], {"start": "total"}, {"start": ["total"], "end": 3}])
def test_a_malformed_pack_section_is_refused_by_name(packs: Path, section: object) -> None:
    write(packs, "zz", {"total_rows": section})
    with pytest.raises(ValueError) as err:
        pack_section("zz", "total_rows")
    assert str(err.value) == "locale zz: 'total_rows' must map names to lists of words"


def test_a_pack_section_gives_names_and_words_as_strings(packs: Path) -> None:
    write(packs, "zz", {"total_rows": {"start": ["Summe", 100], "end": []}})
    assert pack_section("zz", "total_rows") == {"start": ["Summe", "100"], "end": []}
