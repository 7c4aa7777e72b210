"""Content ids: the same content always gets the same id (so a redelivered record upserts the row it
already wrote instead of adding a second one), and any difference in the content gives another id."""

from __future__ import annotations

import datetime
import hashlib
import json
import re
from pathlib import PurePosixPath

from livetab.ids import content_id, judge_name, judgment_id, question_id, request_id, run_id, table_id
from livetab.settings import JudgeSettings, ModelSettings

ID = re.compile(r"^[a-z]+_[0-9a-f]{20}$")


def test_content_id_is_a_prefixed_sha256_of_the_canonical_json() -> None:
    parts = ("https://en.wikipedia.org/wiki/X", {"b": 1, "a": "é"}, 3)
    blob = json.dumps(list(parts), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    assert content_id("tab", *parts) == "tab_" + hashlib.sha256(blob.encode()).hexdigest()[:20]
    # canonical: key order does not matter, every value does, and so does the order of the parts
    assert content_id("x", {"a": 1, "b": 2}) == content_id("x", {"b": 2, "a": 1})
    assert content_id("x", {"a": 1}) != content_id("x", {"a": 2})
    assert content_id("x", "a", "b") != content_id("x", "b", "a")
    assert content_id("x", "ab") != content_id("x", "a", "b")
    assert content_id("x", "1") != content_id("x", 1)
    assert content_id("x", "a") != content_id("y", "a")


def test_values_json_cannot_write_are_hashed_by_their_text() -> None:
    # a release date or a path in a run's settings still gives a stable id (its str), instead of an error
    day = datetime.date(2026, 11, 30)
    assert content_id("run", {"cut": day}) == content_id("run", {"cut": "2026-11-30"})
    assert content_id("run", PurePosixPath("out/demo")) == content_id("run", "out/demo")


def test_every_id_is_deterministic_and_well_formed() -> None:
    ids = [
        table_id("u", "r", 0), question_id("tab_1", "reasoning.arg", {"col": 2}),
        run_id("team", "model", "2026-11", {"samples": 3}), request_id("run_1", "q_1", "markdown", "with_table", 0),
        judgment_id("req_1", "rule"),
    ]
    again = [
        table_id("u", "r", 0), question_id("tab_1", "reasoning.arg", {"col": 2}),
        run_id("team", "model", "2026-11", {"samples": 3}), request_id("run_1", "q_1", "markdown", "with_table", 0),
        judgment_id("req_1", "rule"),
    ]
    assert ids == again
    assert [i.split("_")[0] for i in ids] == ["tab", "q", "run", "req", "jdg"]
    assert all(ID.match(i) for i in ids), ids


def test_every_part_of_an_id_matters() -> None:
    assert len({table_id("u", "r", 0), table_id("v", "r", 0), table_id("u", "s", 0), table_id("u", "r", 1)}) == 4
    assert len({question_id("t", "g", {"a": 1}), question_id("s", "g", {"a": 1}), question_id("t", "h", {"a": 1}),
                question_id("t", "g", {"a": 2})}) == 4
    assert len({run_id("t", "m", "r", {}), run_id("u", "m", "r", {}), run_id("t", "n", "r", {}),
                run_id("t", "m", "s", {}), run_id("t", "m", "r", {"k": 1})}) == 5
    base = ("run", "q", "markdown", "with_table", 0)
    variants = {request_id(*base)}
    for i, other in enumerate(("run2", "q2", "html", "closed_book", 1)):
        parts = list(base)
        parts[i] = other
        variants.add(request_id(*parts))  # type: ignore[arg-type]
    assert len(variants) == 6, "a request id must tell samples, formats and settings apart"


def test_a_judgment_id_is_a_content_id_of_request_and_judge() -> None:
    """Redelivered, the same result judged again by the same judge gets the same id (an upsert, not a second
    row); another judge's verdict on it, or the same judge's on another request, gets another."""
    assert judgment_id("req_a", "rule") == judgment_id("req_a", "rule") == content_id("jdg", "req_a", "rule")
    assert judgment_id("req_a", "rule") != judgment_id("req_b", "rule")
    assert judgment_id("req_a", "rule") != judgment_id("req_a", "cascade:a@0.0+b@0.0")
    assert judgment_id("req_a", "rule") != "req_a" and judgment_id("req_a", "rule") != request_id("req_a", "", "", "", 0)


def test_judge_name_names_the_rule_judge_or_the_cascade_with_its_temperatures() -> None:
    assert judge_name(JudgeSettings()) == "rule"
    two = [ModelSettings(name="a"), ModelSettings(name="b")]
    assert judge_name(JudgeSettings(llm_judges=two)) == "cascade:a@0.0+b@0.0"
    assert judge_name(JudgeSettings(llm_judges=two, llm_temperatures=[0.5])) == "cascade:a@0.5+b@0.0"
    assert judge_name(JudgeSettings(llm_judges=two, llm_temperatures=[0.5, 1.0])) == "cascade:a@0.5+b@1.0"
    assert judge_name(JudgeSettings(llm_judges=two[:1], llm_temperatures=[0.5, 1.0])) == "cascade:a@0.5"


def test_plain_parts_are_written_as_json_dumps_writes_them() -> None:
    """The direct path for str and int parts gives the text, and so the ids, json.dumps gives: every
    character that JSON escapes, non-ASCII and astral ones, big and negative ints; anything else (a bool, a
    float, a dict, a str subclass) goes to json.dumps itself."""
    import random

    from livetab.ids import canonical_json

    class Tag(str):
        pass

    rng = random.Random(7)
    every_escape = "".join(chr(c) for c in range(0x80)) + "é\u2028\u2029\ufeff😀\ud800"
    samples: list[tuple[object, ...]] = [(), ("",), (every_escape,), (0, -1, 10**40), ("run_1", "q_1", "md", "x", 15),
                                         ("a", True), (False,), (1.5, "a"), ({"b": 1, "a": "é"},), (Tag("t"), 1),
                                         (None, "a"), (["x", 1],)]
    for _ in range(300):
        samples.append(tuple(rng.choice([rng.randrange(-10**6, 10**6),
                                         "".join(chr(rng.randrange(0, 0x2FFFF)) for _ in range(rng.randrange(8)))])
                             for _ in range(rng.randrange(1, 6))))
    for parts in samples:
        expected = json.dumps(parts, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
        assert canonical_json(parts) == expected, parts
    assert request_id("run_1", "q_1", "markdown", "with_table", 3) == "req_" + hashlib.sha256(
        json.dumps(["run_1", "q_1", "markdown", "with_table", 3], ensure_ascii=False,
                   separators=(",", ":")).encode()).hexdigest()[:20]
