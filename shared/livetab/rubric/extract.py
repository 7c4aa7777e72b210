"""Final-answer extraction from verbose and reasoning-model responses.

Order of preference: a JSON object with an "answer" field; the last `\\boxed{...}`; the text after the
last answer marker ("The answer is", "Answer:", "Final answer:", "الإجابة هي", ...); the value after a
final "=" of an equation; otherwise the last non-empty line. The thinking part of reasoning models
(`<think>...</think>`, or everything before a lone `</think>`) is removed first by
`livetab.reasoning.strip_thinking`; a response whose thinking never ended has no final answer.

Extraction runs on folded text (`text.fold`: lower case, Arabic variants unified), so the markers of
every language match however the response spells them; the span returned is folded too.
"""

from __future__ import annotations

import json
import re
from functools import cache
from typing import NamedTuple

from livetab.reasoning import strip_thinking
from livetab.rubric.locale import Locale
from livetab.rubric.text import fold

__all__ = ["Extraction", "extract_answer"]

# the keys of a JSON answer; extraction runs on folded text, where "الإجابة" is spelled "الاجابه"
_ANSWER_KEYS = ("answer", "final_answer", "الإجابة", fold("الإجابة"))
_JSON_ANSWER = re.compile(r"\{[^{}]*[\"'](?:" + "|".join(map(re.escape, _ANSWER_KEYS)) + r")[\"']\s*:[^{}]*\}",
                          re.IGNORECASE)
_BOXED = re.compile(r"\\boxed\s*\{")
_TEXT_CMD = re.compile(r"\\(?:text|textbf|mathrm|mbox)\s*\{([^{}]*)\}")
_EQUALS_TAIL = re.compile(r"=\s*([^=\n]{1,40}?)\s*\.?\s*$")
_MARKDOWN = re.compile(r"[*_`#]+")
_BULLET = re.compile(r"^(?:[-•]|\d{1,2}[.)])\s+\S")


_ARITHMETIC = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?:\s*[-+*/×÷]\s*\d+(?:\.\d+)?)+\s*$")
_NUMBER = re.compile(r"\s*-?\d+(?:\.\d+)?\s*\.?\s*")


def _false_equation(left: str, right: str) -> bool:
    """A left side ending in bare numbers and operators that do not evaluate to the bare number on the right:
    the "=" joins parts of one value (a golf score "79-75-72-80=306"), it does not state a result."""
    m = _ARITHMETIC.search(left)
    if m is None or not _NUMBER.fullmatch(right):
        return False
    tokens = re.findall(r"\d+(?:\.\d+)?|[-+*/×÷]", m.group(0))
    terms: list[float] = [float(tokens[0])]  # products and quotients first, then the sum of signed terms
    for op, num in zip(tokens[1::2], map(float, tokens[2::2]), strict=True):
        if op in "*×":
            terms[-1] *= num
        elif op in "/÷":
            if num == 0:
                return True
            terms[-1] /= num
        else:
            terms.append(num if op == "+" else -num)
    return abs(sum(terms) - float(right)) > 1e-9  # `float` reads "306" and "306." with spaces around


class Extraction(NamedTuple):
    text: str  # the final answer span (original characters, markdown emphasis removed)
    method: str  # "json", "boxed", "marker", "equation", "last_line", "whole", "empty"


def _boxed(text: str) -> str | None:
    last = None
    for m in _BOXED.finditer(text):
        last = m
    if last is None:
        return None
    depth, i = 1, last.end()
    while i < len(text) and depth:
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        i += 1
    inner = text[last.end():i - 1] if depth == 0 else text[last.end():]
    return _TEXT_CMD.sub(r"\1", inner).strip()


def _json_answer(text: str) -> str | None:
    found = list(_JSON_ANSWER.finditer(text))
    if not found:
        return None
    last = found[-1]
    try:
        obj = json.loads(last.group(0))
    except ValueError:
        return None
    if not isinstance(obj, dict):
        return None
    for k, v in obj.items():
        if str(k).lower() in _ANSWER_KEYS:
            if isinstance(v, list):
                return ", ".join(str(x) for x in v)
            if isinstance(v, bool):
                return "true" if v else "false"
            return str(v)
    return None


@cache
def _marker_re(loc: Locale) -> re.Pattern[str]:
    alts = "|".join(re.escape(m) for m in sorted(loc.answer_markers, key=len, reverse=True))
    # A marker counts when followed by ':' / 'is' / 'هي', or (for phrases) directly by the answer.
    # and only as whole words: Russian "ответ" is no marker inside "ответить" (to answer), and the "is" after
    # it is no prefix of the answer ("Answer: Isabella", "La respuesta es ISBN 978-...")
    return re.compile(rf"(?:^|(?<=[\s(\[*]))(?:{alts})(?![^\W_])\s*(?:(?:is|هي|هو)(?![^\W_]))?\s*[:：]?\s*", re.IGNORECASE)


@cache
def _marker_hints(loc: Locale) -> tuple[str, ...]:
    """For each marker its longest word: a marker can only match where one of these occurs (a plain
    substring test, several times faster than a regular expression over the whole response)."""
    return tuple(sorted({max(m.split(), key=len) for m in loc.answer_markers}, key=len, reverse=True))


def _after_marker(text: str, loc: Locale) -> str | None:
    for hint in _marker_hints(loc):
        if hint in text:
            break
    else:
        return None
    last = None
    for m in _marker_re(loc).finditer(text):
        phrase = m.group(0)
        if len(phrase.split()) == 1 and ":" not in phrase:  # (folded: a fullwidth "：" is a ":" here)
            continue  # a one-word marker ("answer", "ответ", "antwort") alone is not one; "Answer:" is
        last = m
    if last is None:
        return None
    rest = text[last.end():].strip()
    if not rest:
        return None
    line = rest.splitlines()[0].strip()
    return line or None


def extract_answer(folded: str, loc: Locale) -> Extraction:
    """The final answer span of a folded response (thinking removed)."""
    text = strip_thinking(folded).strip()
    if not text:
        return Extraction("", "empty")
    if "{" in text:
        found = _json_answer(text)
        if found is not None:
            return Extraction(found.strip(), "json")
        boxed = _boxed(text) if "\\boxed" in text else None
        if boxed is not None:
            return Extraction(boxed, "boxed")
    if "*" in text or "#" in text:  # (folded: a backtick is an apostrophe here)
        text = "\n".join(_MARKDOWN.sub("", ln) if not ln.lstrip().startswith("* ") else "- " + _MARKDOWN.sub("", ln)
                         for ln in text.splitlines()).strip()
    marked = _after_marker(text, loc)
    if marked is not None:
        return Extraction(marked, "marker")
    lines = [ln for ln in map(str.strip, text.splitlines()) if ln]
    last = lines[-1] if lines else text
    if len(lines) > 1 and _BULLET.match(last):
        block = []
        for ln in reversed(lines):
            if not _BULLET.match(ln):
                break
            block.append(ln)
        if len(block) > 1:
            return Extraction("\n".join(reversed(block)), "list_block")
    if "=" in last:
        eq = _EQUALS_TAIL.search(last)
        # "-19 (65-67-67-70=269)": an "=" inside brackets is an aside, not the answer's equation; and
        # "79-75-72-80=306" is a golf score (the rounds do not subtract to 306), not a sum to take the tail of
        tail = eq.group(1) if eq is not None else ""
        if (eq is not None and any(c.isalnum() for c in tail) and tail.count(")") <= tail.count("(")
                and not _false_equation(last[:eq.start()], tail)):
            return Extraction(tail.strip(), "equation")
    if len(lines) > 1:
        return Extraction(last, "last_line")
    return Extraction(last, "whole")
