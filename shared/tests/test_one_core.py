"""One answer-and-number core: no second implementation of its parts may reappear in the source tree.

The core: `livetab.numbers` (the only Arabic-digit table, separator table and number readers),
`livetab.reasoning` (the only reader of think tags), `livetab.render.pipe_table` (the only plain prompt
table), `livetab.gsm8k` (the only GSM8K reader) and `livetab.rubric` (the only answer matcher; qagen's
validator judges with it). The checks
read the code's syntax tree (docstrings, which may show examples, are left out) of every shared and
service module and the CLI; tests and benchmarks may spell out whatever cases they like.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NUMBERS = "shared/livetab/numbers.py"
REASONING = "shared/livetab/reasoning.py"
RENDER = "shared/livetab/render.py"
GSM8K = "shared/livetab/gsm8k.py"

# name of a function -> the one module allowed to define it
CORE_FUNCTIONS = {
    "parse_number": NUMBERS, "read_number": NUMBERS, "read_decimal": NUMBERS, "exact_number": NUMBERS,
    "first_decimal": NUMBERS, "decimals_in": NUMBERS, "normalise_digits": NUMBERS, "fold_digits": NUMBERS,
    "text_numbers": NUMBERS, "split_reasoning": REASONING, "strip_thinking": REASONING,
    "split_completion": REASONING, "render_table": RENDER, "pipe_table": RENDER, "iter_problems": GSM8K,
    "read_problems": GSM8K,
}
_INDIC = {chr(c) for c in range(0x0660, 0x066A)} | {chr(c) for c in range(0x06F0, 0x06FA)}


def _sources() -> list[Path]:
    roots = [ROOT / "shared" / "livetab", ROOT / "cli" / "livetab_cli",
             *sorted(p for p in (ROOT / "services").glob("*/livetab_*") if p.is_dir())]
    files = [f for r in roots for f in sorted(r.rglob("*.py")) if "_pb2" not in f.name and "/v1/" not in f.as_posix()]
    assert len(files) > 100, "the source tree was not found"
    return files


def _docstrings(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                ids.add(id(first.value))
    return ids


@cache
def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


@cache
def _constants(path: Path) -> tuple[tuple[int, object], ...]:
    tree = _tree(path)
    skip = _docstrings(tree)
    return tuple((n.lineno, n.value) for n in ast.walk(tree) if isinstance(n, ast.Constant) and id(n) not in skip)


def _code_constants(path: Path) -> Iterator[tuple[int, object]]:
    yield from _constants(path)


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


@pytest.fixture(scope="module")
def sources() -> list[Path]:
    return _sources()


def test_one_digit_table(sources: list[Path]) -> None:
    """Arabic-Indic or Persian digits (three or more in one literal, or their code points 0x0660/0x06F0)
    appear in code only in livetab.numbers, whose DIGITS every other module folds with."""
    found = []
    for path in sources:
        if _rel(path) == NUMBERS:
            continue
        for line, value in _code_constants(path):
            if isinstance(value, str) and len(_INDIC.intersection(value)) >= 3:
                found.append(f"{_rel(path)}:{line}: {value[:40]!r}")
            if type(value) is int and value in (0x0660, 0x06F0):
                found.append(f"{_rel(path)}:{line}: code point {value:#06x}")
    assert found == []


def test_one_think_tag_reader(sources: list[Path]) -> None:
    """Only livetab.reasoning spells out the think tags (`<think>`, `</thinking>`, `reasoning>` ...)."""
    found = [f"{_rel(p)}:{line}: {v[:60]!r}" for p in sources if _rel(p) != REASONING
             for line, v in _code_constants(p)
             if isinstance(v, str) and ("think>" in v.lower() or "think|" in v.lower() or "<reasoning" in v.lower())]
    assert found == []


def test_core_functions_are_defined_once(sources: list[Path]) -> None:
    """A number reader, digit folder, think stripper or prompt-table renderer defined outside its core module
    is a second implementation (or a re-export shim): use the core's."""
    found = []
    for path in sources:
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name in CORE_FUNCTIONS \
                    and CORE_FUNCTIONS[node.name] != _rel(path):
                found.append(f"{_rel(path)}:{node.lineno}: def {node.name}")
    assert found == []


def test_the_checks_see_the_core_itself() -> None:
    """The checks above can fail: run on the core modules they find what they forbid elsewhere."""
    numbers = ROOT / NUMBERS
    assert any(type(v) is int and v == 0x0660 for _, v in _code_constants(numbers))
    reasoning_literals = [v for _, v in _code_constants(ROOT / REASONING) if isinstance(v, str)]
    assert any("think|" in v for v in reasoning_literals)
    defined = {n.name for n in ast.walk(ast.parse(numbers.read_text(encoding="utf-8"))) if isinstance(n, ast.FunctionDef)}
    assert {"parse_number", "read_number", "normalise_digits"} <= defined


def test_one_gsm8k_reader(sources: list[Path]) -> None:
    """Only livetab.gsm8k reads GSM8K's '#### <answer>' lines (the scraper's source and qagen's math share it)."""
    found = [f"{_rel(p)}:{line}" for p in sources if _rel(p) != GSM8K
             for line, v in _code_constants(p) if isinstance(v, str) and "####" in v]
    assert found == []
    assert any(isinstance(v, str) and "####" in v for _, v in _code_constants(ROOT / GSM8K))


def test_qagen_validator_judges_with_the_rubric() -> None:
    """The validator has no answer matcher of its own: its answers_match calls the rubric's judge_answer."""
    tree = ast.parse((ROOT / "services/qagen/livetab_qagen/validator.py").read_text(encoding="utf-8"))
    fn = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "answers_match")
    called = {n.func.id for n in ast.walk(fn) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    assert "judge_answer" in called
    assert len(fn.body) <= 4, "answers_match grew rules of its own"
