"""A scripted model that knows the gold: the oracle and the anti-oracle the scoring contract is tested with.

`policy: oracle` answers every question correctly, `policy: anti_oracle` wrongly, each in a phrasing
real models use. Run through the whole pipeline, the leaderboard must show 100% for the oracle and 0%
for the anti-oracle in every slice; anything else is a bug in generation, prompting or judging.

It reads the question (and its table) from `GenerateRequest.question` / `.table`, the in-process
context the inference handler sets; remote backends never send that context anywhere. A request
without it is an error: the scripted model only runs in-process.

Phrasings (`phrasing`): one name from `PHRASINGS`, or `rotate` (alias `all`) to cycle through every
phrasing that fits the question's gold kind, chosen deterministically from the question id, the prompt
and the sample seed. A phrasing that does not fit the kind (a letter for a number) falls back to `bare`.

A multiple-choice oracle answers as a perfect reader would: the option whose text is the gold's text, by
the letter the prompt showed it with, so a gold position or a prompt lettering that breaks the answer
contract gives wrong verdicts instead of agreeing with itself.

The anti-oracle's answer is wrong by construction: another option, a value of the table (or a number)
farther from the gold than any tolerance, another cell's text, the opposite truth value, a confident
number instead of "insufficient information" — and never a value that equals the gold.

Insight questions (gold kind `free`): the oracle writes the question's reference insights, each with the
executable claim qagen stored beside it (`Gold.claims`, verified supported on the table); the anti-oracle
writes their contrasts (`Question.params["contrasts"]`: each reference's false twin, in the question's
language, with a claim verified refuted on the table). The phrasing picks how the claims are written, as
models write them: `bare` one line per insight with a <claim> tag, `sentence` one JSON object
{"insight", "claim"} per line, `answer_is` a numbered list with tags.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from typing import Any

from livetab.claims import tagged
from livetab.models.base import ChatMessage, Completion, GenerateRequest, ModelError
from livetab.numbers import parse_number
from livetab.questions import Question, option_letter
from livetab.rubric.locale import answer_forms
from livetab.tables import Table

__all__ = ["OPTION_PHRASINGS", "PHRASINGS", "POLICIES", "ScriptedBackend", "choose_phrasing", "contrast_insights",
           "prompt_text", "reference_insights", "say_option", "scripted_answer"]

POLICIES = ("oracle", "anti_oracle")
_GENERAL = ("bare", "sentence", "answer_is")
_OPTION = ("letter", "option_text", "option_number", "letter_text")
_BOOLEAN = ("true_false", "yes_no")
PHRASINGS = (*_GENERAL, *_OPTION, *_BOOLEAN)
OPTION_PHRASINGS = (*_GENERAL, *_OPTION)  # every way the scripted model names an option
ROTATE = ("rotate", "all")



def _lang(q: Question) -> str:
    return answer_forms(q.language or "en").language


def _fits(kind: str) -> tuple[str, ...]:
    if kind == "option":
        return OPTION_PHRASINGS
    if kind == "boolean":
        return (*_GENERAL, *_BOOLEAN)
    return _GENERAL


def choose_phrasing(q: Question, phrasing: str, seed: int = 0) -> str:
    fits = _fits(q.gold.kind)
    if phrasing in ROTATE:
        h = int(hashlib.sha256(q.id.encode()).hexdigest()[:8], 16)
        return fits[(h + seed) % len(fits)]
    return phrasing if phrasing in fits else "bare"


def _wrap(value: str, phrasing: str, lang: str) -> str:
    forms = answer_forms(lang)
    if phrasing == "sentence":
        return forms.sentence.format(v=value)
    if phrasing == "answer_is":
        return forms.answer_is.format(v=value)
    return value


def say_option(q: Question, position: int, phrasing: str, lang: str, letter: str = "") -> str:
    """Option `position` (counted from 1) of `q` as a model names it in `phrasing` ("C", "Option 3", ...);
    `letter`: the letter the prompt showed it with (default: the contract's, 1 = "A")."""
    letter, text = letter or option_letter(position), q.options[position - 1]
    if phrasing == "option_text":
        return text
    if phrasing == "option_number":
        return answer_forms(lang).option_number.format(n=position)
    if phrasing == "letter_text":
        return f"{letter}. {text}"
    return _wrap(letter, phrasing, lang)  # bare, letter, sentence, answer_is


def _say_boolean(value: bool, phrasing: str, lang: str) -> str:
    forms = answer_forms(lang)
    words = forms.true if value else forms.false
    if phrasing == "yes_no":
        return words[1]
    return _wrap(words[0], phrasing, lang)  # true_false, bare, sentence, answer_is


def _cells(table: Table | None) -> list[str]:
    if table is None:
        return []
    return [c.strip() for row in table.rows for c in row if c and c.strip()]


def _norm(s: str) -> str:
    return re.sub(r"[\W_]+", " ", s.casefold()).strip()


def _far(x: float, gold: float) -> bool:
    """Farther from the gold than any tolerance the judge allows (and not the gold scaled by 100)."""
    gap = max(1.0, 0.2 * abs(gold))
    return abs(x - gold) > gap and not math.isclose(x, gold * 100, rel_tol=0.05) and not math.isclose(
        x * 100, gold, rel_tol=0.05)


def _fmt(x: float) -> str:
    return str(int(x)) if x == int(x) and abs(x) < 1e15 else f"{x:.4g}"


def _wrong_number(gold: float, table: Table | None, salt: int) -> str:
    values = []
    for cell in _cells(table):
        n = parse_number(cell)
        if n is not None and math.isfinite(n) and _far(n, gold) and not (1000 <= n <= 2100 and n == int(n)):
            values.append(n)
    if values:
        return _fmt(values[salt % len(values)])
    far = gold * 3 + 17 if gold >= 0 else gold * 3 - 17
    return _fmt(far)


def _wrong_text(gold_texts: list[str], q: Question, table: Table | None, salt: int, count: int = 1) -> list[str]:
    """Table cells (else fixed words) that share no word with any gold text and are not numbers."""
    golds = [_norm(g) for g in gold_texts if _norm(g)]
    gold_words = {w for g in golds for w in g.split()}
    seen: set[str] = set()
    picks: list[str] = []
    for cell in _cells(table):
        k = _norm(cell)
        if (not k or k in seen or parse_number(cell) is not None or len(cell) > 60
                or gold_words & set(k.split()) or any(k in g or g in k for g in golds)):
            continue
        seen.add(k)
        picks.append(cell)
    fallback = ["أطلانطس", "زنجبار", "كيتو"] if _lang(q) == "ar" else ["Atlantis", "Zanzibar", "Quito", "Hokkaido"]
    picks += [f for f in fallback if not gold_words & set(_norm(f).split())]
    start = salt % max(1, len(picks) - count + 1)
    return picks[start:start + count]


# a quoted value in every language's quotes: "…" (en), „…“ (de), “…” (nl), ”…” (sv), «…» / « … » (ar, es, fr, ru),
# «» holding quotes of their own too («UDP-A. « Boots » Martinez»)
_QUOTED = re.compile(r'"([^"]{1,80})"|„([^“”]{1,80})[“”]|“([^”]{1,80})”|”([^”]{1,80})”|«\s*((?:[^«»]|«[^«»]*»){1,80}?)\s*»')


def _other_alternative(q: Question, gold: str) -> str | None:
    """For "Which has the lower X: "A" or "B"?" with gold A: the other alternative B (the two alternatives
    are the question's last two quoted strings)."""
    last = [next(g for g in m.groups() if g is not None) for m in _QUOTED.finditer(q.text)][-2:]
    keys = [_norm(a) for a in last]
    if len(last) != 2 or _norm(gold) not in keys or keys[0] == keys[1]:
        return None
    return last[1] if keys[0] == _norm(gold) else last[0]


_SHOWN = re.compile(r"^([A-Z])\. (.*)$", re.MULTILINE)


def prompt_text(messages: list[ChatMessage]) -> str:
    """The text of a request's messages (text parts of multimodal content included)."""
    parts: list[str] = []
    for m in messages:
        if isinstance(m.content, str):
            parts.append(m.content)
        else:
            parts += [str(p.get("text", "")) for p in m.content if p.get("type") == "text"]
    return "\n".join(parts)


def _right_option(q: Question, shown: str) -> tuple[int, str]:
    """Where the right option is, read as a perfect reader would: the option whose text is the gold's text
    (not `Gold.option`, so a position written with another numbering shows up as a wrong verdict), and the
    letter the prompt showed that text with (so a prompt that letters options differently does too)."""
    g = q.gold
    position = q.options.index(g.text) + 1 if g.text in q.options else g.option
    letters = {text.strip(): letter for letter, text in _SHOWN.findall(shown)}
    return position, letters.get(g.text.strip(), "") if g.text else ""


def _insights(pairs: list[tuple[str, dict[str, Any] | None]], phrasing: str) -> str:
    """Insights written with their claims in `phrasing`'s layout (see the module docs); an insight without a
    claim is written as its sentence alone."""
    lines = []
    for i, (sentence, claim) in enumerate(pairs, start=1):
        if claim is None:
            line = sentence
        elif phrasing == "sentence":
            line = json.dumps({"insight": sentence, "claim": claim}, ensure_ascii=False)
        else:
            line = tagged(sentence, claim)
        lines.append(f"{i}. {line}" if phrasing == "answer_is" else line)
    return "\n".join(lines)


def _claim(text: str) -> dict[str, Any] | None:
    try:
        claim = json.loads(text) if text else None
    except ValueError:
        return None
    return claim if isinstance(claim, dict) else None


def reference_insights(q: Question) -> list[tuple[str, dict[str, Any] | None]]:
    """An insight question's reference insights, each with its stored claim (None where it has none)."""
    g = q.gold
    items = g.items or ([g.text] if g.text else [])
    return [(text, _claim(g.claims[i]) if i < len(g.claims) else None) for i, text in enumerate(items)]


def contrast_insights(q: Question) -> list[tuple[str, dict[str, Any] | None]]:
    """An insight question's contrasts: each reference's false twin with its claim (refuted on the table)."""
    try:
        found = json.loads(q.params.get("contrasts", "[]"))
    except ValueError:
        return []
    return [(str(c["insight"]), c["claim"] if isinstance(c.get("claim"), dict) else None)
            for c in found if isinstance(c, dict) and c.get("insight")]


def _oracle(q: Question, phrasing: str, lang: str, shown: str = "") -> str:
    g = q.gold
    if g.kind == "option":
        position, letter = _right_option(q, shown)
        return say_option(q, position, phrasing, lang, letter)
    if g.kind == "boolean":
        return _say_boolean(g.boolean, phrasing, lang)
    if g.kind in ("insufficient", "contradictory"):
        plain, sentence = getattr(answer_forms(lang), g.kind)
        return sentence if phrasing == "sentence" else _wrap(plain, phrasing, lang)
    if g.kind == "list":
        return _wrap(answer_forms(lang).join.join(g.items or [g.text]), phrasing, lang)
    if g.kind == "free":
        refs = reference_insights(q)
        claimed = [r for r in refs if r[1] is not None]
        return _insights(claimed or refs, phrasing)  # a question without claims: its references alone
    return _wrap(g.text or _fmt(g.number), phrasing, lang)


def _anti_oracle(q: Question, table: Table | None, phrasing: str, lang: str, salt: int) -> str:
    g = q.gold
    if g.kind == "option":
        right = {g.option, *(p for p, text in enumerate(q.options, start=1) if text == g.text)}
        others = [p for p in range(1, len(q.options) + 1) if p not in right]
        if not others:
            raise ModelError(f"question {q.id} has no wrong option")
        return say_option(q, others[salt % len(others)], phrasing, lang)
    if g.kind == "boolean":
        return _say_boolean(not g.boolean, phrasing, lang)
    if g.kind in ("insufficient", "contradictory"):
        return _wrap(_wrong_number(0.0, table, salt), phrasing, lang)  # a confident value, not a refusal
    if g.kind == "number":
        return _wrap(_wrong_number(g.number, table, salt), phrasing, lang)
    if g.kind == "list":
        items = g.items or [g.text]
        return _wrap(answer_forms(lang).join.join(_wrong_text(items, q, table, salt, len(items))), phrasing, lang)
    if g.kind == "free":
        contrasts = contrast_insights(q)
        return _insights(contrasts, phrasing) if contrasts else "The table is empty."
    gold_number = parse_number(g.text)
    if gold_number is not None and math.isfinite(gold_number):
        return _wrap(_wrong_number(gold_number, table, salt), phrasing, lang)
    other = _other_alternative(q, g.text)
    return _wrap(other if other is not None else _wrong_text([g.text], q, table, salt)[0], phrasing, lang)


def scripted_answer(q: Question, table: Table | None, *, policy: str, phrasing: str, seed: int = 0,
                    shown: str = "") -> str:
    """The answer the scripted model gives to `q` under `policy` in `phrasing` (see the module docs);
    `shown` is the prompt's text, where a multiple-choice oracle reads the letter its option was shown with."""
    if policy not in POLICIES:
        raise ValueError(f"policy must be one of {POLICIES}, got {policy!r}")
    lang = _lang(q)
    chosen = choose_phrasing(q, phrasing, seed)
    if policy == "oracle":
        return _oracle(q, chosen, lang, shown)
    salt = int(hashlib.sha256(f"{q.id}:{seed}".encode()).hexdigest()[:8], 16)
    return _anti_oracle(q, table, chosen, lang, salt)


class ScriptedBackend:
    """An in-process model that answers from the gold: `oracle` right, `anti_oracle` wrong."""

    def __init__(self, name: str = "scripted", *, policy: str = "oracle", phrasing: str = "rotate") -> None:
        if policy not in POLICIES:
            raise ValueError(f"policy must be one of {', '.join(POLICIES)}, got {policy!r}")
        if phrasing not in PHRASINGS and phrasing not in ROTATE:
            raise ValueError(f"phrasing must be one of {', '.join((*PHRASINGS, *ROTATE))}, got {phrasing!r}")
        self.name, self.policy, self.phrasing = name, policy, phrasing

    async def generate(self, request: GenerateRequest) -> list[Completion]:
        q = request.question
        if q is None:
            raise ModelError(f"scripted model {self.name}: the request carries no question (it runs in-process "
                             "only, where the inference handler passes the question)")
        s = request.sampling
        shown = prompt_text(request.messages)
        # the prompt joins the rotation, so one question asked in several formats is answered in several phrasings
        offset = int(hashlib.sha256(shown.encode()).hexdigest()[:6], 16)
        return [Completion(text=scripted_answer(q, request.table, policy=self.policy, phrasing=self.phrasing,
                                                seed=s.seed + i + offset, shown=shown))
                for i in range(max(1, s.n))]
