"""The freshtab source on FreshTab's real published files (shared/data/freshtab) and on bad input:
every line read or rejected with a reason, readable headers, missing values, dates, pandas floats,
and the column types of a hand-checked sample of 10 tables per language."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from livetab.numbers import parse_number
from livetab.paths import shared_data
from livetab_scraper.coltypes import detect_column_types
from livetab_scraper.sources import Failure, Fetched, build_source
from livetab_scraper.sources.base import Item
from livetab_scraper.sources.freshtab import iter_freshtab, read_date, readable_header

FOLDER = shared_data() / "freshtab"
LINES = {"FT2-5_25_de.jsonl": 50, "FT2-5_25_es.jsonl": 50, "FT2-5_25_fr.jsonl": 50, "FT2-5_25_nl.jsonl": 50,
         "FT2-5_25_ru.jsonl": 50, "FT2-5_25_sv.jsonl": 27, "FreshTab.01.26.en.jsonl": 50,
         "FreshTab.02.26.en.jsonl": 50, "FreshTab.10.25.en.jsonl": 50, "FreshTab.11.25.en.jsonl": 50,
         "FreshTab.12.25.en.jsonl": 50}
NUMERIC = {"integer", "decimal", "percentage", "currency"}


@pytest.fixture(scope="module")
def items() -> list[Item]:
    return list(build_source({"kind": "freshtab", "location": str(FOLDER)}).fetch())


def fetched(items: list[Item]) -> list[Fetched]:
    return [i for i in items if isinstance(i, Fetched)]


def by_url(items: list[Item], fragment: str) -> Fetched:
    hits = [i for i in fetched(items) if fragment in i.meta.uri]
    assert len(hits) == 1, (fragment, [h.meta.uri for h in hits])
    return hits[0]


def test_every_line_of_every_file_is_read_or_rejected(items: list[Item]) -> None:
    per_file: Counter[str] = Counter()
    for i in items:
        name = i.extra["freshtab_dataset"] + ".jsonl" if isinstance(i, Fetched) else Path(i.location.split(":")[0]).name
        per_file[name] += 1
    assert dict(per_file) == LINES  # each line gave one item
    for name, n in LINES.items():
        with (FOLDER / name).open(encoding="utf-8") as f:
            assert sum(1 for line in f if line.strip()) == n
    failures = [i for i in items if isinstance(i, Failure)]
    assert failures == []  # all 527 published tables are usable
    langs = Counter(i.language for i in fetched(items))
    assert langs == {"en": 250, "de": 50, "es": 50, "fr": 50, "nl": 50, "ru": 50, "sv": 27}
    assert len({i.tables[0].id for i in fetched(items)}) == 527


def test_tables_keep_source_date_labels_and_attribution(items: list[Item]) -> None:
    snooker = by_url(items, "EBSA-Snookereuropameisterschaft_2025")
    t = snooker.tables[0]
    assert t.language == "de" and t.domain == "sport" and t.source.kind == "freshtab"
    assert t.source.created_at == "2025-03-17T00:00:00Z" and snooker.event_date == "2025-03-17T00:00:00Z"
    assert any("malformed" in n for n in snooker.notes)  # the doubled date is recorded
    assert snooker.extra["freshtab_category"] == "sport | competition | tournament"
    assert t.source.licence == "CC BY-SA 4.0" and t.source.uri in t.source.attribution
    english = [i for i in fetched(items) if i.language == "en"]
    assert all(i.meta.created_at[:4] in ("2016", "2020", "2021", "2022", "2023", "2024", "2025", "2026") or
               any("no date" in n for n in i.notes) for i in english)
    assert {i.domain for i in fetched(items)} == {"sport", "politics", "culture", "other"}  # "mix" is other
    undated = [i for i in fetched(items) if not i.meta.created_at]
    assert len(undated) == 104 and all("no date given" in i.notes for i in undated)


@pytest.mark.parametrize(("raw", "name"), [
    ("no._overall", "No. overall"),
    ("fecha_de_emisión_original", "Fecha de emisión original"),
    ("party.1", "Party"),
    ("partido_partido.2", "Partido"),
    ("pos._pos.", "Pos."),
    ("estado_federado_estado_federado", "Estado federado"),
    ("unnamed:_3_level_1", ""),
    ("spd_unnamed:_2_level_1", "Spd"),
    ("título\u200a[9]\u200b[10]\u200b", "Título"),
    ("original\xadtitel", "Originaltitel"),
    ("rennzeit_(std.)", "Rennzeit (std.)"),
    ("4", ""),
])
def test_readable_header(raw: str, name: str) -> None:
    assert readable_header(raw) == name


def test_headers_on_the_real_files(items: list[Item]) -> None:
    frieren = by_url(items, "es.wikipedia.org/wiki/S%C5%8Ds%C5%8D_no_Frieren").tables[0]
    # pandas' "isbn.1" keeps the suffix livetab gives a repeated name, so a question can name the column
    assert frieren.columns == ["Número", "Fecha de publicación", "Isbn", "Fecha de publicación (2)", "Isbn (2)"]
    assert any("title row" in n for n in by_url(items, "es.wikipedia.org/wiki/S%C5%8Ds%C5%8D_no_Frieren").notes)
    headerless = [i for i in fetched(items) if any("column numbers" in n for n in i.notes)]
    assert len(headerless) == 17
    assert sum(any("became the header" in n for n in i.notes) for i in headerless) == 15
    promoted = [i for i in fetched(items) if any("one title over every column" in n for n in i.notes)]
    assert promoted and all(len(set(i.tables[0].header[0])) > 1 for i in promoted)
    for i in fetched(items):
        for name in i.tables[0].header[0]:
            assert "_" not in name or "unnamed" not in name.lower()
            assert "\xad" not in name and "\u200b" not in name


def test_na_is_missing(items: list[Item]) -> None:
    raw_na = 0
    for name in LINES:
        with (FOLDER / name).open(encoding="utf-8") as f:
            raw_na += sum(row.count("<NA>") for line in f for row in json.loads(line)["table"][1:])
    assert raw_na > 1000
    for i in fetched(items):
        assert all(cell != "<NA>" for row in i.tables[0].rows for cell in row)


def test_read_date() -> None:
    assert read_date("2026-01-14T06:26:26Z") == ("2026-01-14T06:26:26Z", "")
    stamp, note = read_date("2025-03-17T00:00:00+00:00T00:00:00Z")
    assert stamp == "2025-03-17T00:00:00Z" and "malformed" in note
    assert read_date("") == ("", "no date given")
    assert read_date("March 2025")[0] == "" and "not readable" in read_date("March 2025")[1]


def test_pandas_floats_and_cells_that_do_not_parse(items: list[Item]) -> None:
    canada = by_url(items, "%D0%9A%D0%B0%D0%BD%D0%B0%D0%B4%D0%B5_(2025)")  # Парламентские выборы в Канаде (2025)
    seats = canada.tables[0].columns.index("Мест 2021")
    assert [r[seats] for r in canada.tables[0].rows[:3]] == ["160,0", "119,0", "32,0"]  # was 160.0 ...
    assert any("pandas floats" in n and "Мест 2021" in n for n in canada.notes)
    tenerife = by_url(items, "Municipios_de_la_provincia_de_Santa_Cruz_de_Tenerife")
    pop = tenerife.tables[0].columns.index("Población (2024)")
    cells = [r[pop] for r in tenerife.tables[0].rows]
    assert "50.549" in cells and "9.12" in cells  # a Spanish thousands group is left as it is
    assert any("not numbers" in n and "9.12" in n for n in tenerife.notes)  # the mangled cell is recorded
    judo = by_url(items, "Championnats_d%27Europe_de_judo_2025")
    assert any("'Rang'" in n and "'NC'" in n for n in judo.notes)


def test_bad_input_is_rejected_with_a_reason(tmp_path: Path) -> None:
    good = {"title": "T", "category": "sport | x", "url": "https://de.wikipedia.org/wiki/T", "date": "",
            "QID": "Q1", "table": [["a", "b"], ["1", "2"]], "language": "de"}
    lines = [json.dumps(good), "{not json", json.dumps({**good, "table": None}),
             json.dumps({**good, "table": [["a", "b"]]}), json.dumps({**good, "url": ""}), "[1, 2]",
             json.dumps({**good, "table": [["a", "b"], ["<NA>", "<NA>"]]})]
    (tmp_path / "FT_x_de.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    got = list(iter_freshtab(tmp_path / "FT_x_de.jsonl"))
    assert isinstance(got[0], Fetched) and got[0].tables[0].rows == [["1", "2"]]
    reasons = [i.reason for i in got[1:] if isinstance(i, Failure)]
    assert len(reasons) == 6
    for word, reason in zip(["not valid JSON", "no 'table'", "1 row(s)", "no 'url'", "not a JSON object",
                             "every data row is empty"], reasons, strict=True):
        assert word in reason
    (tmp_path / "release.json").write_text(json.dumps([good, good]), encoding="utf-8")
    assert sum(isinstance(i, Fetched) for i in iter_freshtab(tmp_path / "release.json")) == 2
    assert isinstance(next(iter_freshtab(tmp_path / "missing.jsonl")), Failure)
    # the scraper command always passes a language: it never overrides the records' own ...
    src = build_source({"kind": "freshtab", "location": str(tmp_path / "release.json"), "language": "en"})
    assert [i.tables[0].language for i in src.fetch() if isinstance(i, Fetched)] == ["de", "de"]
    # ... it only stands for records that name none; force_language overrides
    (tmp_path / "release2.json").write_text(json.dumps([{**good, "language": ""}]), encoding="utf-8")
    src = build_source({"kind": "freshtab", "location": str(tmp_path / "release2.json"), "language": "nl"})
    assert [i.tables[0].language for i in src.fetch() if isinstance(i, Fetched)] == ["nl"]
    src = build_source({"kind": "freshtab", "location": str(tmp_path / "release.json"), "force_language": "sv"})
    assert [i.tables[0].language for i in src.fetch() if isinstance(i, Fetched)] == ["sv", "sv"]
    assert len(list(build_source({"kind": "freshtab", "location": str(tmp_path), "limit": 1}).fetch())) >= 1


def test_hand_checked_column_types(items: list[Item]) -> None:
    """Every column a careful reader sees as numeric is typed numeric, and no text column is; columns
    of dates, durations, scores and ordinals are not asserted ("other"). Labels read by hand."""
    data = Path(__file__).parent / "data" / "freshtab_column_types.jsonl"
    checked = [json.loads(line) for line in data.read_text(encoding="utf-8").splitlines()]
    assert Counter(c["language"] for c in checked) == {lang: 10 for lang in ("en", "de", "es", "fr", "nl", "ru", "sv")}
    tables = {i.extra["csv_id"]: i.tables[0] for i in fetched(items)}
    wrong, asserted, gaps = [], 0, 0
    for c in checked:
        assert tables[c["csv_id"]].source.uri == c["url"]
        types = detect_column_types(tables[c["csv_id"]])
        assert set(types) == set(c["columns"]), c["url"]
        for col, expected in c["columns"].items():
            if col in c.get("gaps", {}):
                gaps += 1
                continue
            if (expected == "number" and types[col] not in NUMERIC) or (expected == "text" and types[col] in NUMERIC):
                wrong.append((c["language"], c["url"], col, expected, types[col]))
            asserted += expected != "other"
    assert wrong == []
    assert asserted > 300 and gaps == 0


def test_change_arrows_are_signs() -> None:
    # FreshTab's ru election table: "▲11,14", "▼ 10" in its ± columns
    assert [parse_number(t, "ru") for t in ("▲11,14", "▼1,35", "▲ 9", "▼ 10")] == [11.14, -1.35, 9.0, -10.0]


@pytest.mark.slow
def test_a_scrape_command_turns_a_freshtab_release_into_cleaned_tables() -> None:
    """The scraper handler path (one config entry: kind freshtab, location): every line is a cleaned
    table in its own language with its source date, or a failure with a reason."""
    from livetab.v1 import table_pb2
    from livetab_scraper.handler import ScraperHandler

    cmd = table_pb2.ScrapeCommand(source="freshtab", location=str(FOLDER), language="en")
    found = list(ScraperHandler()._found(cmd, None))
    assert len(found) == 527
    tables = [f.table for f in found if f.table is not None]
    # measured: 523 cleaned, 4 rejected by cleaning for fewer than 20 non-empty cells: a German table (18), and
    # three English election tables whose cell count pandas' span copies had inflated (the structure reader
    # drops the swatch column or the copied "Party (2)", "Party (3)": 15, 15 and 14 real cells)
    assert Counter(t.language for t in tables) == {"en": 247, "de": 49, "es": 50, "fr": 50, "nl": 50, "ru": 50, "sv": 27}
    assert [f.reason[:21] for f in found if f.table is None] == ["rejected by cleaning:"] * 4
    dated = [t for t in tables if t.source.created_at]
    assert len(dated) >= 0.75 * len(tables) and all(t.source.kind == "freshtab" for t in tables)
