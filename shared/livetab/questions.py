"""Questions and their computed gold answers, as plain typed objects.

The answer contract (documented field by field on `Gold` in protos/livetab/v1/question.proto) in one
place: `Gold.option` counts from 1 (0 = unset), option 1 is shown to a model as "A"
(`option_letter`, `option_position`), and `Gold.for_option` is the one way to build a multiple-choice
gold. Python <-> proto is `to_proto`/`from_proto`; the store keeps the proto (livetab.records).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from livetab.v1 import question_pb2

__all__ = ["FAMILIES", "GOLD_KINDS", "OPTION_LETTERS", "TABLE_STATE_KINDS", "Gold", "Question", "Verification", "option_letter",
           "option_position"]

FAMILIES = ("direct", "reasoning", "fact", "mcq", "insight", "imperfect", "math")
GOLD_KINDS = ("number", "text", "list", "boolean", "option", "insufficient", "contradictory", "free")
# golds that say what the table lacks: a question with such a gold cannot be asked without its table
TABLE_STATE_KINDS = ("insufficient", "contradictory")
OPTION_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"  # option 1 is "A": how options are shown and named


def option_letter(position: int) -> str:
    """The letter option `position` (counted from 1) is shown with: 1 -> "A", 3 -> "C"."""
    if not 1 <= position <= len(OPTION_LETTERS):
        raise ValueError(f"option position {position} is not in 1..{len(OPTION_LETTERS)}")
    return OPTION_LETTERS[position - 1]


def option_position(letter: str) -> int:
    """The position (counted from 1) a Latin option letter names: "C" or "c" -> 3; 0 for anything else."""
    s = letter.strip().upper()
    return OPTION_LETTERS.index(s) + 1 if len(s) == 1 and s in OPTION_LETTERS else 0


@dataclass
class Gold:
    """A typed gold answer. `text` always holds a readable form of the answer; which other fields carry it
    depends on `kind` (see protos/livetab/v1/question.proto). `option` counts from 1; 0 = unset."""

    kind: str
    text: str = ""
    items: list[str] = field(default_factory=list)
    number: float = 0.0
    boolean: bool = False
    option: int = 0
    unit: str = ""
    claims: list[str] = field(default_factory=list)  # free: each reference's executable claim (JSON), beside items

    @classmethod
    def for_option(cls, options: list[str], position: int) -> Gold:
        """The gold of a multiple-choice question whose correct option is `options[position - 1]`."""
        if not 1 <= position <= len(options):
            raise ValueError(f"option position {position} is not in 1..{len(options)} (positions count from 1)")
        return cls(kind="option", option=position, text=options[position - 1])

    def option_text(self, options: list[str]) -> str:
        """The text of the correct option (kind `option`); "" when `option` is unset or out of range."""
        return options[self.option - 1] if self.kind == "option" and 1 <= self.option <= len(options) else ""

    def shown(self, options: list[str]) -> str:
        """The answer as a person reads it beside a model's: "C. Aigle" for an option (its letter as the prompt
        shows it, then its text), `text` for every other kind."""
        text = self.option_text(options)
        return f"{option_letter(self.option)}. {text}" if text else self.text

    def to_proto(self) -> question_pb2.Gold:
        return question_pb2.Gold(kind=self.kind, text=self.text, items=self.items, number=self.number,
                                 boolean=self.boolean, option=self.option, unit=self.unit,
                                 claims=self.claims)

    @classmethod
    def from_proto(cls, m: question_pb2.Gold) -> Gold:
        return cls(kind=m.kind, text=m.text, items=list(m.items), number=m.number, boolean=m.boolean,
                   option=m.option, unit=m.unit, claims=list(m.claims))


@dataclass
class Verification:
    method: str = ""
    passed: bool = False
    detail: str = ""
    validator_trials: int = 0
    validator_correct: int = 0
    simplicity_trials: int = 0
    simplicity_correct: int = 0
    decisions: list[str] = field(default_factory=list)


@dataclass
class Question:
    id: str
    table_id: str
    family: str
    text: str
    gold: Gold
    skill: str = ""
    scope: str = ""
    operation: str = ""
    difficulty: str = "easy"
    language: str = "en"
    options: list[str] = field(default_factory=list)
    derivation: str = ""
    verification: Verification = field(default_factory=Verification)
    status: str = "verified"
    generator: str = ""
    params: dict[str, str] = field(default_factory=dict)
    release: str = ""
    source_created_at: str = ""
    closed_book: bool = False

    def to_proto(self) -> question_pb2.Question:
        v = self.verification
        return question_pb2.Question(
            id=self.id, table_id=self.table_id, family=self.family, skill=self.skill, scope=self.scope,
            operation=self.operation, difficulty=self.difficulty, language=self.language, text=self.text,
            options=self.options, gold=self.gold.to_proto(), derivation=self.derivation,
            verification=question_pb2.Verification(
                method=v.method, passed=v.passed, detail=v.detail, validator_trials=v.validator_trials,
                validator_correct=v.validator_correct, simplicity_trials=v.simplicity_trials,
                simplicity_correct=v.simplicity_correct, decisions=v.decisions,
            ),
            status=self.status, generator=self.generator, params=self.params, release=self.release,
            source_created_at=self.source_created_at, closed_book=self.closed_book,
        )

    @classmethod
    def from_proto(cls, m: question_pb2.Question) -> Question:
        v = m.verification
        return cls(
            id=m.id, table_id=m.table_id, family=m.family, text=m.text, gold=Gold.from_proto(m.gold),
            skill=m.skill, scope=m.scope, operation=m.operation, difficulty=m.difficulty, language=m.language,
            options=list(m.options), derivation=m.derivation,
            verification=Verification(method=v.method, passed=v.passed, detail=v.detail,
                                      validator_trials=v.validator_trials, validator_correct=v.validator_correct,
                                      simplicity_trials=v.simplicity_trials,
                                      simplicity_correct=v.simplicity_correct, decisions=list(v.decisions)),
            status=m.status, generator=m.generator, params=dict(m.params), release=m.release,
            source_created_at=m.source_created_at, closed_book=m.closed_book,
        )
