"""Formal models of math word problems: given quantities, arithmetic steps, a goal.

Without any model, GSM8K's calculator annotations give the formalisation: every literal in a step's
expression is resolved to an earlier step's result, to a number written in the question (a *given
quantity*, which becomes a table cell) or, failing both, to a constant (7 days a week, 100 for a
percentage). A generator model may propose the same structure (`formalise_with_model`); either way
the Z3 check in `z3check.py` decides whether the formalisation is admitted.
"""

from __future__ import annotations

import ast
import json
import logging
import re
from dataclasses import dataclass, field
from fractions import Fraction

from livetab.models.base import ChatMessage, GenerateRequest, ModelBackend, ModelError, SamplingParams

from livetab_qagen.math.gsm8k import GSM8KProblem, Mention, annotated_steps, question_mentions

__all__ = [
    "BinOp",
    "Const",
    "Expr",
    "Formalisation",
    "FormaliseError",
    "Quantity",
    "Ref",
    "Step",
    "evaluate",
    "formalise_annotations",
    "formalise_steps",
    "formalise_with_model",
    "render",
    "variables_of",
]

log = logging.getLogger(__name__)


class FormaliseError(ValueError):
    """The problem could not be formalised; the message is the recorded reason."""


@dataclass(frozen=True)
class Const:
    value: Fraction


@dataclass(frozen=True)
class Ref:
    var: str


@dataclass(frozen=True)
class BinOp:
    op: str  # + - * /
    left: Expr
    right: Expr


Expr = Const | Ref | BinOp


@dataclass(frozen=True)
class Quantity:
    """A given number: read from the table cell (entity, label) in the table version."""

    var: str
    value: Fraction
    entity: str
    label: str
    mention: Mention | None = None


@dataclass(frozen=True)
class Step:
    var: str
    expr: Expr
    value: Fraction


@dataclass
class Formalisation:
    source: str
    question: str
    quantities: list[Quantity]
    steps: list[Step]
    goal: str
    expected: Fraction
    method: str
    unit: str = ""
    notes: list[str] = field(default_factory=list)

    def quantity(self, var: str) -> Quantity:
        for q in self.quantities:
            if q.var == var:
                return q
        raise KeyError(var)

    def used_quantities(self) -> list[Quantity]:
        """Given quantities the goal depends on, in order of appearance."""
        deps: set[str] = set()
        by_var = {s.var: s for s in self.steps}
        todo = [self.goal]
        while todo:
            v = todo.pop()
            if v in deps:
                continue
            deps.add(v)
            if v in by_var:
                todo.extend(variables_of(by_var[v].expr))
        return [q for q in self.quantities if q.var in deps]


def variables_of(expr: Expr) -> set[str]:
    if isinstance(expr, Ref):
        return {expr.var}
    if isinstance(expr, BinOp):
        return variables_of(expr.left) | variables_of(expr.right)
    return set()


def evaluate(expr: Expr, env: dict[str, Fraction]) -> Fraction:
    """Exact evaluation; raises ZeroDivisionError or KeyError."""
    if isinstance(expr, Const):
        return expr.value
    if isinstance(expr, Ref):
        return env[expr.var]
    a, b = evaluate(expr.left, env), evaluate(expr.right, env)
    if expr.op == "+":
        return a + b
    if expr.op == "-":
        return a - b
    if expr.op == "*":
        return a * b
    return a / b


def _fmt(v: Fraction) -> str:
    if v.denominator == 1:
        return str(v.numerator)
    f = float(v)
    return repr(f) if Fraction(repr(f)) == v else f"{v.numerator}/{v.denominator}"


def _show(expr: Expr, parent: int = 0) -> str:
    if isinstance(expr, Const):
        return _fmt(expr.value)
    if isinstance(expr, Ref):
        return expr.var
    prec = 1 if expr.op in "+-" else 2
    text = f"{_show(expr.left, prec)} {expr.op} {_show(expr.right, prec + (expr.op in '-/'))}"
    return f"({text})" if prec < parent else text


def render(form: Formalisation, *, cell_values: bool = False) -> str:
    """The formalisation as readable text (the question's derivation)."""
    lines = [f"; formalised from {form.method} ({form.source})"]
    used = {q.var for q in form.used_quantities()}
    for q in form.quantities:
        if q.var not in used:
            continue
        tail = f"   ; = {_fmt(q.value)}" if cell_values else ""
        lines.append(f"{q.var} = cell(name={q.entity!r}, column={q.label!r}){tail}")
    for s in form.steps:
        lines.append(f"{s.var} = {_show(s.expr)}")
    lines.append(f"goal = {form.goal}")
    lines.append("z3: assert the cells read from the table and the steps over the reals; solve for goal; "
                 "then assert goal != model(goal): unsat means the answer is unique")
    return "\n".join(lines)


# --- naming given quantities after the words around them ---------------------------------------

_NOT_NAMES = set("""A An The If How What When Where Which Who Whom Whose Why Each Every In On At There This That These
Those He She They It His Her Their Its After Before Then So For Of To From By With Without During Since Until
One Two Three Four Five Six Seven Eight Nine Ten Half Twice I We You My Our Your Mr Mrs Ms Dr Find Calculate
Suppose Assume Given Let Also But And Or Some All Most Many Few Both Over Under About Out Up Yesterday Today
Tomorrow Last Next First Second Third New Old Once While As Because Although However Therefore If""".split())
_LABEL_STOP = set("""which that and but if so then while when because or to is are was were he she they it his her
their its who has have had will would can could should did does do for in on at with from by as than
each every per""".split()) - {"per", "each"}
_ARTICLES = {"a", "an", "the"}
_ORDINALS = ("", "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")
_NOT_AFTER_NAME = {"she", "he", "they", "it", "we", "i", "you", "her", "his", "their", "the", "a", "an", "there",
                   "this", "that", "these", "those", "if", "all", "each", "every"}
_LABEL_TRAIL = {"of", "as", "more", "less", "than", "per", "each"}
_SENTENCE = re.compile(r"[^.!?]*(?:[.!?]+|$)")
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*|%")


def _sentences(text: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in _SENTENCE.finditer(text) if m.group().strip()]


def _name_positions(question: str) -> list[tuple[int, str]]:
    """Capitalised words taken for names. A sentence's first word counts only when what follows it
    is not a comma, a pronoun or an article ("Later, her husband", "Normally she can")."""
    out: list[tuple[int, str]] = []
    for m in re.finditer(r"\b([A-Z][a-z]+)\b", question):
        word = m.group(1)
        if word in _NOT_NAMES:
            continue
        before = question[: m.start()].rstrip()
        if not before or before[-1] in ".!?":
            after = question[m.end():].lstrip()
            nxt = re.match(r"[A-Za-z]+", after)
            if after.startswith(",") or (nxt and nxt.group().lower() in _NOT_AFTER_NAME):
                continue
        out.append((m.start(), word))
    return out


def _entity_for(question: str, mention: Mention, default: str) -> str:
    spans = _sentences(question)
    start = next((s for s, e in spans if s <= mention.start < e), 0)
    names = [(p, w) for p, w in _name_positions(question) if p < mention.start]
    here = [w for p, w in names if p >= start]
    if here:
        return here[-1]
    return names[-1][1] if names else default


def _label_for(question: str, mention: Mention) -> str:
    words: list[str] = []
    for w in _WORD.findall(question[mention.end: mention.end + 60].split(".")[0].split(",")[0]):
        lw = w.lower()
        if lw == "%":
            words.append("percent")
            continue
        if lw in _LABEL_STOP or len(words) >= 4:
            break
        if lw not in _ARTICLES:
            words.append(lw)
    if not words:
        prev = [w.lower() for w in _WORD.findall(question[max(0, mention.start - 40): mention.start])]
        words = [w for w in prev if w not in _LABEL_STOP][-2:]
    while words and words[-1] in _LABEL_TRAIL:
        words.pop()
    label = " ".join(words) or "value"
    if question[max(0, mention.start - 1): mention.start] == "$":
        label = f"{label} ($)"
    return label


def describe_mentions(question: str, mentions: list[Mention]) -> list[Quantity]:
    """Name each mentioned number after its entity (the proper noun it belongs to) and its words."""
    names = [w for _, w in _name_positions(question)]
    noun = re.search(r"\b(?:[Aa]n?|[Tt]he)\s+([a-z]{3,})", question)
    default = names[0] if names else (noun.group(1).capitalize() if noun else "Item")
    out: list[Quantity] = []
    seen: dict[tuple[str, str], int] = {}
    for i, m in enumerate(mentions, 1):
        entity = _entity_for(question, m, default)
        label = _label_for(question, m)
        n = seen.get((entity, label), 0) + 1
        seen[(entity, label)] = n
        if n > 1:  # no digits: a digit in a column name would read as a number in the blurred text
            label = f"{label} ({_ORDINALS[n] if n < len(_ORDINALS) else 'another'})"
        out.append(Quantity(var=f"q{i}", value=m.value, entity=entity, label=label, mention=m))
    return out


# --- resolving literals ---------------------------------------------------------------------------

def _normalise_expression(text: str) -> str:
    s = text.replace("×", "*").replace("÷", "/")
    s = re.sub(r"(?<=[\d\s)])[xX](?=[\s\d(.])", "*", s)
    s = re.sub(r"(\d),(\d{3})", r"\1\2", s)
    s = re.sub(r"(\d+(?:\.\d+)?|\.\d+)\s*%", r"(\1/100)", s)
    return s


def _to_expr(node: ast.expr, resolve: dict[str, Expr], literal: object) -> Expr:
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return literal(node)  # type: ignore[operator,no-any-return]
    if isinstance(node, ast.Name):
        if node.id not in resolve:
            raise FormaliseError(f"unknown name {node.id!r} in expression")
        return resolve[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return BinOp("-", Const(Fraction(0)), _to_expr(node.operand, resolve, literal))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.UAdd):
        return _to_expr(node.operand, resolve, literal)
    if isinstance(node, ast.BinOp):
        ops = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/"}
        op = ops.get(type(node.op))
        if op is None:
            raise FormaliseError(f"operator {type(node.op).__name__} is not + - * /")
        return BinOp(op, _to_expr(node.left, resolve, literal), _to_expr(node.right, resolve, literal))
    raise FormaliseError(f"unsupported expression element {type(node).__name__}")


def formalise_steps(question: str, steps: list[tuple[str, Fraction | None]], expected: Fraction, *, source: str,
                    method: str, goal_index: int | None = None,
                    quantities: list[Quantity] | None = None) -> Formalisation:
    """Formalise a problem from written steps ``(expression, stated result or None)``.

    Literals resolve to the most recent earlier step with that result, else to an unused-first number
    of the question with that value, else to a constant. Names ``q1``... refer to the question's
    numbers in order, ``s1``... to earlier steps. `quantities` overrides the names read from the text.
    """
    if quantities is None:
        quantities = describe_mentions(question, question_mentions(question))
    formal_steps: list[Step] = []
    env: dict[str, Fraction] = {q.var: q.value for q in quantities}
    used_q: set[str] = set()
    for i, (text, stated) in enumerate(steps, 1):
        try:
            tree = ast.parse(_normalise_expression(text), mode="eval").body
        except SyntaxError:
            raise FormaliseError(f"step {i}: cannot parse {text!r}") from None
        in_step: set[str] = set()

        def literal(node: ast.Constant, _in_step: set[str] = in_step, _used: set[str] = used_q) -> Expr:
            v = Fraction(str(node.value))
            for s in reversed(formal_steps):
                if s.value == v:
                    return Ref(s.var)
            # a second literal of a value already read in this step is a constant ("half": x/2)
            same = [q for q in quantities if q.value == v and q.var not in _in_step]
            if same:
                pick = next((q for q in same if q.var not in _used), same[0])
                _in_step.add(pick.var)
                return Ref(pick.var)
            return Const(v)

        resolve: dict[str, Expr] = {q.var: Ref(q.var) for q in quantities}
        resolve.update({s.var: Ref(s.var) for s in formal_steps})
        expr = _to_expr(tree, resolve, literal)
        used_q |= in_step
        try:
            value = evaluate(expr, env)
        except ZeroDivisionError:
            raise FormaliseError(f"step {i}: division by zero in {text!r}") from None
        if stated is not None and value != stated:
            raise FormaliseError(f"step {i}: {text!r} evaluates to {value}, the solution states {stated}")
        var = f"s{i}"
        env[var] = value
        formal_steps.append(Step(var=var, expr=expr, value=value))
    if not formal_steps:
        raise FormaliseError("no arithmetic steps")
    if goal_index is None:
        hits = [s for s in formal_steps if s.value == expected]
        if not hits:
            raise FormaliseError(f"no step produces the final answer {expected}")
        goal = hits[-1].var
    else:
        goal = formal_steps[goal_index].var
    form = Formalisation(source=source, question=question, quantities=quantities, steps=formal_steps, goal=goal,
                         expected=expected, method=method)
    needed = {goal}
    for s in reversed(formal_steps):
        if s.var in needed:
            needed |= variables_of(s.expr)
    form.steps = [s for s in formal_steps if s.var in needed]
    if not form.used_quantities():
        raise FormaliseError("the goal depends on no number written in the question")
    return form


def formalise_annotations(problem: GSM8KProblem) -> Formalisation:
    """The model-free path: GSM8K's calculator annotations. Raises FormaliseError with the reason."""
    try:
        steps = annotated_steps(problem.answer)
    except ValueError as e:
        raise FormaliseError(str(e)) from None
    if not steps:
        raise FormaliseError("no calculator annotations")
    return formalise_steps(problem.question, [(s.expression, s.result) for s in steps], problem.final_answer,
                           source=f"gsm8k:{problem.index}", method="gsm8k-annotations")


_MODEL_SYSTEM = ("You formalise math word problems. Reply with JSON only: "
                 '{"steps": ["<arithmetic over numbers from the problem and earlier steps s1, s2, ...>"], '
                 '"goal": "<s1, s2, ...>"}. Use only + - * / and parentheses.')


async def formalise_with_model(backend: ModelBackend, question: str, expected: Fraction, *, source: str,
                               max_tokens: int = 160, seed: int = 0) -> Formalisation:
    """Ask a generator model for the steps; the result still has to pass the Z3 check to be admitted."""
    request = GenerateRequest(
        messages=[ChatMessage("system", _MODEL_SYSTEM), ChatMessage("user", question)],
        sampling=SamplingParams(temperature=0.0, max_tokens=max_tokens, seed=seed),
    )
    try:
        completions = await backend.generate(request)
    except ModelError as e:
        raise FormaliseError(f"model {backend.name}: {e}") from None
    text = completions[0].text if completions else ""
    match = re.search(r"\{.*\}", text, re.S)
    try:
        data = json.loads(match.group(0)) if match else None
    except json.JSONDecodeError:
        data = None
    if not isinstance(data, dict) or not isinstance(data.get("steps"), list):
        raise FormaliseError(f"model {backend.name}: no JSON with steps in reply {text[:120]!r}")
    exprs = [str(s) for s in data["steps"]]
    goal = str(data.get("goal", f"s{len(exprs)}"))
    if not re.fullmatch(r"s\d+", goal) or not 1 <= int(goal[1:]) <= len(exprs):
        raise FormaliseError(f"model {backend.name}: goal {goal!r} names no step")
    return formalise_steps(question, [(e, None) for e in exprs], expected, source=source,
                           method=f"model:{backend.name}", goal_index=int(goal[1:]) - 1)
