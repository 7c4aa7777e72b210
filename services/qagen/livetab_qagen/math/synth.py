"""Programmatically built word problems of GSM8K's shapes, so the math family scales without an LLM.

Each template draws names and numbers, writes the problem text (recording where each number sits)
and the steps over ``q1``, ``q2``... The expected answer is computed here with exact fractions; the
Z3 check then has to agree on the table version, exactly as for GSM8K problems.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

from livetab_qagen.math.formalise import Formalisation, Quantity, formalise_steps
from livetab_qagen.math.gsm8k import Mention

__all__ = ["SHAPES", "synthesise", "synthesise_many"]

log = logging.getLogger(__name__)

_PEOPLE = ("Amara", "Bruno", "Chiara", "Dmitri", "Elif", "Farah", "Goran", "Hana", "Ines", "Jonas", "Kiri", "Lena",
           "Mateo", "Nadia", "Omar", "Priya", "Rafael", "Sofia", "Tomas", "Yusuf")
_THINGS = ("marbles", "stickers", "apples", "books", "shells", "coins", "cards", "pencils")
_ITEMS = (("notebook", "notebooks"), ("pen", "pens"), ("mug", "mugs"), ("lamp", "lamps"), ("scarf", "scarves"),
          ("ticket", "tickets"))


@dataclass
class _Draft:
    """Text under construction: literal pieces and numbers, each number with its entity and column."""

    parts: list[str | tuple[int | Fraction, str, str]]

    def realise(self) -> tuple[str, list[Quantity]]:
        text = ""
        quantities: list[Quantity] = []
        for part in self.parts:
            if isinstance(part, str):
                text += part
                continue
            value, entity, label = part
            shown = str(value)
            mention = Mention(value=Fraction(value), start=len(text), end=len(text) + len(shown), text=shown)
            quantities.append(Quantity(var=f"q{len(quantities) + 1}", value=Fraction(value), entity=entity,
                                       label=label, mention=mention))
            text += shown
        return text, quantities


Shape = Callable[[random.Random], tuple[_Draft, list[str], Fraction]]


def _purchase(rng: random.Random) -> tuple[_Draft, list[str], Fraction]:
    a = rng.choice(_PEOPLE)
    (i1, i1s), (i2, i2s) = rng.sample(_ITEMS, 2)
    n1, p1, n2, p2 = rng.randint(2, 9), rng.randint(2, 30), rng.randint(2, 9), rng.randint(2, 30)
    draft = _Draft([f"{a} buys ", (n1, a, i1s), f" {i1s} at $", (p1, a, f"price per {i1} ($)"), " each and ",
                    (n2, a, i2s), f" {i2s} at $", (p2, a, f"price per {i2} ($)"),
                    f" each. How many dollars does {a} spend in total?"])
    return draft, ["q1*q2", "q3*q4", "s1+s2"], Fraction(n1 * p1 + n2 * p2)


def _times_as_many(rng: random.Random) -> tuple[_Draft, list[str], Fraction]:
    a, b = rng.sample(_PEOPLE, 2)
    thing = rng.choice(_THINGS)
    k, n = rng.randint(2, 6), rng.randint(3, 40)
    draft = _Draft([f"{a} has ", (k, a, f"times as many {thing} as {b}"), f" times as many {thing} as {b}. {b} has ",
                    (n, b, thing), f" {thing}. How many {thing} do {a} and {b} have together?"])
    return draft, ["q1*q2", "s1+q2"], Fraction(k * n + n)


def _wage(rng: random.Random) -> tuple[_Draft, list[str], Fraction]:
    a = rng.choice(_PEOPLE)
    r, h, d = rng.randint(8, 40), rng.randint(2, 10), rng.randint(3, 25)
    draft = _Draft([f"{a} earns $", (r, a, "hourly wage ($)"), " per hour and works ", (h, a, "hours per day"),
                    " hours a day for ", (d, a, "days worked"), f" days. How many dollars does {a} earn?"])
    return draft, ["q1*q2", "s1*q3"], Fraction(r * h * d)


def _percent_left(rng: random.Random) -> tuple[_Draft, list[str], Fraction]:
    a = rng.choice(_PEOPLE)
    thing = rng.choice(_THINGS)
    n, p = 20 * rng.randint(2, 30), 5 * rng.randint(1, 19)
    draft = _Draft([f"{a} has ", (n, a, thing), f" {thing} and sells ", (p, a, "percent sold"),
                    f"% of them. How many {thing} does {a} have left?"])
    return draft, ["q1*q2/100", "q1-s1"], Fraction(n) - Fraction(n * p, 100)


def _give_and_buy(rng: random.Random) -> tuple[_Draft, list[str], Fraction]:
    a, b = rng.sample(_PEOPLE, 2)
    thing = rng.choice(_THINGS)
    x = rng.randint(20, 90)
    g, c = rng.randint(1, x - 1), rng.randint(1, 40)
    draft = _Draft([f"{a} had ", (x, a, f"{thing} at first"), f" {thing}. {a} gave ", (g, a, f"{thing} given away"),
                    f" of them to {b} and then bought ", (c, a, f"{thing} bought"),
                    f" more. How many {thing} does {a} have now?"])
    return draft, ["q1-q2", "s1+q3"], Fraction(x - g + c)


def _share(rng: random.Random) -> tuple[_Draft, list[str], Fraction]:
    a = rng.choice(_PEOPLE)
    n = rng.randint(2, 8)
    per_day = n * rng.randint(1, 6)
    d = rng.randint(2, 9)
    draft = _Draft([f"{a} bakes ", (per_day, a, "cookies per day"), " cookies a day for ", (d, a, "baking days"),
                    " days and shares them equally among ", (n, a, "friends"),
                    " friends. How many cookies does each friend get?"])
    return draft, ["q1*q2", "s1/q3"], Fraction(per_day * d, n)


SHAPES: dict[str, Shape] = {
    "purchase": _purchase, "times_as_many": _times_as_many, "wage": _wage, "percent_left": _percent_left,
    "give_and_buy": _give_and_buy, "share": _share,
}


def synthesise(shape: str, seed: int) -> Formalisation:
    """One synthetic problem of `shape`, formalised (steps over q1..qn), reproducible from `seed`."""
    rng = random.Random(f"{shape}:{seed}")
    draft, steps, expected = SHAPES[shape](rng)
    text, quantities = draft.realise()
    return formalise_steps(text, [(s, None) for s in steps], expected, source=f"synthetic:{shape}:{seed}",
                           method="synthetic-template", goal_index=len(steps) - 1, quantities=quantities)


def synthesise_many(n: int, *, seed: int = 0) -> list[Formalisation]:
    """`n` problems cycling through the shapes."""
    names = sorted(SHAPES)
    return [synthesise(names[i % len(names)], seed * 1_000_003 + i) for i in range(n)]
