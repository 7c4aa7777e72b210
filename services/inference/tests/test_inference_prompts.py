"""Prompts over real tables: formats and their combinations, settings, task kinds, languages, row caps."""

from __future__ import annotations

import base64
import re

import pytest
from inference_data import arabic_table, tabfact_table, wtq_table
from livetab.questions import Gold, Question
from livetab_inference.prompts import FORMATS, PROMPT_VERSION, build_messages, image_tokens


def q(family: str = "direct", text: str = "what is the total number of skoda cars sold in the year 2005?",
      **kw: object) -> Question:
    return Question(id="q1", table_id="t", family=family, text=text, gold=Gold(kind="text", text="x"), **kw)  # type: ignore[arg-type]


def user_text(prompt_messages: list) -> str:  # type: ignore[type-arg]
    content = prompt_messages[1].content
    return content if isinstance(content, str) else " ".join(str(p.get("text", "")) for p in content)


@pytest.mark.parametrize(("fmt", "marker"), [
    ("csv", "Model,1991,1995"), ("markdown", "| Model |"), ("html", "<table"), ("json", '"records"'),
    ("text", "row 1:"),
])
def test_each_text_format_carries_the_table(fmt: str, marker: str) -> None:
    table, _ = wtq_table(0)
    p = build_messages(q(), table, fmt=fmt, setting="with_table")
    assert p.messages[0].role == "system" and p.messages[1].role == "user"
    text = user_text(p.messages)
    assert marker in text and "Škoda Octavia" in text
    assert text.startswith("Answer the following question using only the information in the table")
    assert "without any explanation" in text and text.rstrip().endswith("Answer:")
    assert not p.truncated and p.version == PROMPT_VERSION and p.prompt_tokens_estimate > 50


def test_combinations_hold_every_part_and_cost_more() -> None:
    table, _ = wtq_table(0)
    html = build_messages(q(), table, fmt="html", setting="with_table")
    both = build_messages(q(), table, fmt="html+json", setting="with_table")
    text = user_text(both.messages)
    assert "<table" in text and '"records"' in text
    assert both.prompt_tokens_estimate > html.prompt_tokens_estimate
    markdown = build_messages(q(), table, fmt="markdown", setting="with_table")
    assert markdown.prompt_tokens_estimate < html.prompt_tokens_estimate  # TeleTables: Markdown is cheaper


def test_rows_are_capped_at_40_by_default_and_the_cut_recorded() -> None:
    table = tabfact_table("2-11692087-1.html.csv")
    assert table.n_rows > 40
    p = build_messages(q(), table, fmt="csv", setting="with_table")
    text = user_text(p.messages)
    assert p.truncated and f"only the first 40 of {table.n_rows} rows" in text
    body = [line for line in text.splitlines() if re.match(r"\d{4},", line)]  # one season per row
    assert body == [",".join(r) for r in table.rows[:40]]
    small = build_messages(q(), table, fmt="csv", setting="with_table", max_rows=5)
    assert small.truncated and small.prompt_tokens_estimate < p.prompt_tokens_estimate


def test_fact_verification_asks_for_true_or_false() -> None:
    table, _ = wtq_table(0)
    fact = Question(id="f", table_id="t", family="fact", text="Škoda Octavia sold more in 2005 than in 2004",
                    gold=Gold(kind="boolean", boolean=True))
    text = user_text(build_messages(fact, table, fmt="markdown", setting="with_table").messages)
    assert "True or False" in text and "Statement: Škoda Octavia sold more" in text


def test_multiple_choice_letters_its_options() -> None:
    table, _ = wtq_table(0)
    mcq = Question(id="m", table_id="t", family="mcq", text="Which model sold most in 2005?",
                   gold=Gold(kind="option", option=1), options=["Škoda Felicia", "Škoda Octavia", "Škoda Fabia"])
    text = user_text(build_messages(mcq, table, fmt="html", setting="with_table").messages)
    assert "A. Škoda Felicia\nB. Škoda Octavia\nC. Škoda Fabia" in text
    assert "letter of the correct option" in text


def test_insight_names_the_logical_operation() -> None:
    table, _ = wtq_table(0)
    insight = Question(id="i", table_id="t", family="insight", text="", operation="superlative",
                       gold=Gold(kind="free"))
    text = user_text(build_messages(insight, table, fmt="markdown", setting="with_table").messages)
    assert "one short statement" in text and "a maximum or a minimum" in text


def test_choice_mode_insights_ask_for_several_statements() -> None:
    # qagen's Choice mode asks for five insights: the instruction must not ask for one statement only
    table, _ = wtq_table(0)
    choice = Question(id="c", table_id="t", family="insight", text="Write five short, factual insights.",
                      operation="choice", gold=Gold(kind="free"))
    for setting in ("with_table", "closed_book"):
        text = user_text(build_messages(choice, table, fmt="markdown", setting=setting).messages)
        assert "one per line" in text and "one short statement" not in text, setting
    arabic = Question(id="a", table_id="t", family="insight", text="اكتب خمس رؤى", operation="choice",
                      language="ar", gold=Gold(kind="free"))
    assert "عبارة في كل سطر" in user_text(build_messages(arabic, table, fmt="csv", setting="with_table").messages)


def test_imperfect_wording_only_when_asked() -> None:
    table, _ = wtq_table(0)
    hint = "does not allow an answer"
    assert hint in user_text(build_messages(q("imperfect"), table, fmt="csv", setting="with_table").messages)
    assert hint not in user_text(build_messages(q(), table, fmt="csv", setting="with_table").messages)
    assert hint in user_text(build_messages(q(), table, fmt="csv", setting="with_table",
                                            imperfect_hint=True).messages)


def test_arabic_questions_get_arabic_instructions() -> None:
    table = arabic_table(0)
    question = q(text="ما متوسط العمر عند الزواج الأول؟", language="ar")
    p = build_messages(question, table, fmt="csv", setting="with_table")
    text = user_text(p.messages)
    assert p.language == "ar"
    assert text.startswith("أجب عن السؤال التالي باستخدام المعلومات الواردة في الجدول أدناه فقط")
    assert "السؤال: ما متوسط العمر" in text and "باللغة العربية" in text
    assert str(p.messages[0].content).startswith("أنت مساعد")
    other = build_messages(q(language="sw"), table, fmt="csv", setting="with_table")
    assert other.language == "en"  # no Swahili template: English instructions


def test_image_format_sends_a_png_data_url() -> None:
    table, _ = wtq_table(0)
    p = build_messages(q(), table, fmt="image", setting="with_table")
    parts = p.messages[1].content
    assert isinstance(parts, list) and [x["type"] for x in parts] == ["text", "image_url", "text"]
    url = parts[1]["image_url"]["url"]  # type: ignore[index]
    assert url.startswith("data:image/png;base64,")
    png = base64.b64decode(url.split(",", 1)[1])
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert "Model,1991" not in user_text(p.messages)  # the table is only in the image
    assert p.prompt_tokens_estimate > image_tokens(png) >= 85 + 170
    mixed = build_messages(q(), table, fmt="markdown+image", setting="with_table")
    assert "| Model |" in user_text(mixed.messages) and isinstance(mixed.messages[1].content, list)


def test_closed_book_names_the_table_but_not_its_contents() -> None:
    table, _ = wtq_table(0)
    table.caption = "Škoda sales by model"
    p = build_messages(q(), table, fmt="html", setting="closed_book")
    text = user_text(p.messages)
    assert "“Škoda sales by model”" in text and "Without seeing the table" in text
    assert "Škoda Octavia" not in text and "<table" not in text and not p.truncated
    assert build_messages(q(), None, fmt="html", setting="closed_book").messages[0].role == "system"


@pytest.mark.parametrize(("fmt", "setting", "table_ok", "message"), [
    ("xml", "with_table", True, "unknown table format"),
    ("html+html", "with_table", True, "repeats"),
    ("", "with_table", True, "unknown table format"),
    ("csv", "open_book", True, "unknown prompt setting"),
    ("csv", "with_table", False, "needs its table"),
])
def test_bad_requests_are_clear_errors(fmt: str, setting: str, table_ok: bool, message: str) -> None:
    table, _ = wtq_table(0)
    with pytest.raises(ValueError, match=message):
        build_messages(q(), table if table_ok else None, fmt=fmt, setting=setting)


def test_every_format_builds() -> None:
    table, _ = wtq_table(1)
    for fmt in FORMATS:
        assert build_messages(q(), table, fmt=fmt, setting="with_table").prompt_tokens_estimate > 0


def test_prompt_tokens_are_the_count_of_the_whole_text() -> None:
    """The table's text is counted once (by its rendering) and the parts' counts added up: the total is
    exactly what counting the messages themselves gives, on real tables in every text format and family."""
    from livetab.render import count_tokens

    tables = [wtq_table(i)[0] for i in range(6)] + [arabic_table(0), tabfact_table("2-11692087-1.html.csv")]
    questions = [q(), q("fact"), q("mcq", options=["1", "2", "3"]), q("imperfect"), q("insight", operation="count"),
                 q(text="  leading spaces\tand a tab\n")]
    for table in tables:
        for fmt in [f for f in FORMATS if "image" not in f]:
            for question in questions:
                for max_rows in (3, 40):
                    p = build_messages(question, table, fmt=fmt, setting="with_table", max_rows=max_rows)
                    whole = sum(count_tokens(str(m.content)) for m in p.messages) + 2 * 4
                    assert p.prompt_tokens_estimate == whole, (table.id, fmt, question.family)


def test_joined_counts_fall_back_where_line_breaks_would_merge() -> None:
    from livetab.render import count_tokens, count_tokens_joined

    cases = [["a b", "12 c"], ["x\n", "y"], ["x", "\ty"], ["", "y"], ["x  ", "  y"], ["é ü", "٣ ع"], ["a", "b", "c"]]
    for parts in cases:
        for sep in ("\n", "\n\n"):
            counts = [count_tokens(p) for p in parts]
            assert count_tokens_joined(parts, counts, sep) == count_tokens(sep.join(parts)), (parts, sep)
    # a separator with spaces in it is not one of line breaks: always counted whole
    assert count_tokens_joined(["a", "b"], [99, 99], " \n") == count_tokens("a \nb")
