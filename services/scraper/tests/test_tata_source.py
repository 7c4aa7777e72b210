"""The `tata` source over the 181 Arabic TaTA tables in ../shared/data/arabic: headerless charts recognised,
columns named from the title and the unit of measure, section and total rows read (counts printed and
held to what was measured), and hand-checked readings of single tables."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from livetab.paths import shared_data
from livetab_scraper.sources import build_source
from livetab_scraper.sources.base import Failure, Fetched
from livetab_scraper.sources.tata import TataReading, key_name, read_tata

DATA = shared_data() / "arabic" / "tata_ar_dev_test.jsonl"


def _records() -> list[dict[str, object]]:
    return [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture(scope="module")
def readings() -> dict[str, TataReading]:
    return {str(rec["example_id"]): read_tata(rec) for rec in _records()}


def _grid(rec: dict[str, object]) -> list[list[object]]:
    data = json.loads(str(rec["table_data"]))
    assert isinstance(data, list)
    return data


def _first_row_is_data(first: list[object]) -> bool:
    """The label is the first filled cell (a label split over two columns starts in the second)."""
    cells = [str(v).strip() for v in first]
    at = next((k for k, v in enumerate(cells) if v), len(cells))
    digits = str.maketrans("٠١٢٣٤٥٦٧٨٩", "0123456789")

    def number(v: str) -> bool:
        return v.translate(digits).replace(".", "", 1).isdigit()

    rest = [v for v in cells[at + 1:] if v]
    if at == 1:  # a label in the second column, amounts after it; not years over an empty corner
        return len(cells) >= 3 and not number(cells[1]) and any(number(v) for v in rest)
    return at == 0 and (not rest or any(number(v) for v in rest))


def test_counts_over_the_181_tables(readings: dict[str, TataReading]) -> None:
    c: Counter[str] = Counter()
    for r in readings.values():
        t = r.table
        c["tables"] += 1
        c["headerless"] += r.headerless
        c["headerless, label column named from the title"] += r.headerless and r.named_from_title
        c["headerless, value column named from unit_of_measure"] += r.headerless and r.named_from_unit
        c["label column named from the title (all)"] += r.named_from_title
        c["tables with section rows"] += bool(t.group_column) or r.folded_sections > 0
        c["section column named from the title"] += bool(t.group_column) and t.group_column != "القسم"
        c["section rows"] += len(r.structure.sections) + r.folded_sections
        c["tables with total rows"] += bool(t.total_rows)
        c["total rows"] += len(t.total_rows)
        c["columns left unnamed"] += sum(1 for n in t.columns if not n.strip() or n.startswith("column "))
    print(dict(c))
    assert c["tables"] == 181
    # Headerless by a plain independent reading of the raw grids: the first row has a label and either
    # a number after it (a JSON number or digits, Arabic-Indic too) or nothing after it (a section row).
    # A row of years under an empty corner cell ("", 2002, 2007) is a header, and says so by its corner.
    expected = {str(rec["example_id"]) for rec in _records() if _first_row_is_data(_grid(rec)[0])}
    got = {e for e, r in readings.items() if r.headerless}
    assert got == expected, (sorted(got - expected), sorted(expected - got))
    assert c["headerless"] == 82
    assert c["headerless, value column named from unit_of_measure"] >= 65
    assert c["headerless, label column named from the title"] >= 8
    assert c["label column named from the title (all)"] >= 30
    assert c["tables with section rows"] >= 27 and c["section rows"] >= 80
    assert c["tables with total rows"] >= 17
    assert c["columns left unnamed"] == 0
    assert c["section column named from the title"] >= 5


def test_every_label_total_is_marked_and_no_sorted_chart_gets_a_sum_total(readings: dict[str, TataReading]) -> None:
    for example_id, r in readings.items():
        t = r.table
        label = t.columns.index(next(n for n in t.columns if n != t.group_column))
        for i, row in enumerate(t.rows):
            if row[label].strip() in ("الإجمالي", "المجموع"):
                assert i in t.total_rows, (example_id, row)
        for i in t.total_rows:
            assert t.rows[i][label] not in ("6", "9"), example_id
    # OD78-ar-40 is a sorted bar chart (2, 4, 6, ...): 6 = 2 + 4 by chance; a one-column sum is no total.
    assert readings["OD78-ar-40"].table.total_rows == []
    assert readings["FR229-ar-31"].table.total_rows == []  # a distribution whose last share (50) is the rest


def test_a_headerless_chart_is_named_from_its_title_and_unit(readings: dict[str, TataReading]) -> None:
    r = readings["SR238-ar-6"]  # [["الإجمالي", 35], ["لا يوجد", 58], ...], "… حسب التعليم"
    assert r.headerless
    assert r.table.header == [["التعليم", "النسبة المئوية للنساء في الفئة العمرية من 15 إلى 19 عامًا اللاتي بدأن الإنجاب"]]
    assert r.table.rows[0] == ["الإجمالي", "35"] and r.table.rows[1] == ["لا يوجد", "58"]
    assert r.table.total_rows == [0]
    assert r.table.column_units == {r.table.columns[1]: "النسبة المئوية للنساء في الفئة العمرية من 15 إلى 19 عامًا اللاتي بدأن الإنجاب"}


def test_sections_and_the_national_figure(readings: dict[str, TataReading]) -> None:
    t = readings["FR229-ar-7"].table  # ["كينيا", 4.6], ["محل الإقامة", ""], ["المناطق الحضرية", 2.9], ...
    assert t.columns == ["الخصائص الخلفية", "الفئة", "معدل الخصوبة الكلي"]  # "… حسب الخصائص الخلفية"
    assert t.group_column == "الخصائص الخلفية"
    assert t.rows[0] == ["", "كينيا", "4.6"] and t.total_rows == [0]
    assert t.rows[1] == ["محل الإقامة", "المناطق الحضرية", "2.9"]
    assert not any(row[1] == "محل الإقامة" for row in t.rows)  # the section row is no data row


def test_a_label_split_over_two_columns_is_one_label(readings: dict[str, TataReading]) -> None:
    t = readings["MIS22-ar-4"].table  # ["الإجمالي", "", 53], ["محل الإقامة", "", ""], ["", "المناطق الحضرية", 54]
    assert t.columns[:2] == ["القسم", "الفئة"] and len(t.columns) == 3
    assert t.rows[0][1:] == ["الإجمالي", "53"] and t.total_rows == [0]
    assert t.rows[1] == ["محل الإقامة", "المناطق الحضرية", "54"]


def test_unlabelled_proportion_and_count_rows_become_columns(readings: dict[str, TataReading]) -> None:
    t = readings["AS75-ar-6"].table  # ["مبكر", "", "", ""], ["", 0.32, 0.29, 0.3], ["", 278, 256, 266], ...
    assert t.columns[1:3] == ["توقيت ممارسة أول علاقة جنسية (النسبة)", "توقيت ممارسة أول علاقة جنسية (العدد)"]
    assert t.rows[0] == ["مبكر", "0.32", "278", "0.29", "256", "0.3", "266"]
    assert [row[0] for row in t.rows] == ["مبكر", "نموذجي", "متأخر"]


def test_a_blank_header_cell_over_a_stacked_total_is_named(readings: dict[str, TataReading]) -> None:
    t = readings["SR220-ar-13"].table  # ["", "حاد", "متوسط", ""]: 23 + 24 = 47
    assert t.columns == ["الفئة", "حاد", "متوسط", "الإجمالي"]


@pytest.mark.parametrize(("title", "expected"), [
    ("الإنجاب في سن المراهقة حسب التعليم", "التعليم"),
    ("نسبة الأطفال المصابين بالنحافة حسب المقاطعة، خلال الفترة من 2003 إلى 2008", "المقاطعة"),
    ("تطعيمات الأطفال", "الفئة"),
    ("Teenage childbearing by education", "education"),
])
def test_key_name(title: str, expected: str) -> None:
    lang = "en" if title.isascii() else "ar"
    assert key_name(title, ["أ", "ب"], lang) == expected


def test_key_name_of_years() -> None:
    assert key_name("الاتجاهات في معدل الخصوبة", ["1990", "1997", "٢٠٠٢"], "ar") == "السنة"


def test_the_configured_source_and_its_failures(tmp_path: Path) -> None:
    good = _records()[0]
    bad = {"example_id": "x", "table_data": "[[1]]", "title": "t"}
    path = tmp_path / "tata.jsonl"
    path.write_text("\n".join([json.dumps(good, ensure_ascii=False), "{not json", json.dumps(bad)]) + "\n",
                    encoding="utf-8")
    items = list(build_source({"kind": "tata", "location": str(path)}).fetch())
    fetched = [i for i in items if isinstance(i, Fetched)]
    failures = [i for i in items if isinstance(i, Failure)]
    assert len(fetched) == 1 and fetched[0].tables[0].language == "ar"
    assert fetched[0].meta.licence == "CC BY 4.0" and "TaTA" in fetched[0].meta.attribution
    assert len(failures) == 2
    assert "not valid JSON" in failures[0].reason and "too small" in failures[1].reason
